// Public answers kept per database handle and reused only by requests that see the very same
// database state. On a primary handle the state is the generation of announced commits
// (core/db/change_feed.ts): every table announces its changes when they commit (migration 0269),
// each announcement moves the generation, and an answer kept under a generation serves requests
// that start while it has not moved, without asking the database anything. On a read replica,
// which may not yet show a commit the primary announced, the state is PostgreSQL's snapshot
// (`pg_current_snapshot()`: oldest running transaction, next transaction id, running ones),
// read by the request's context statement: two statements with equal snapshots see exactly the
// same committed rows. Either way any commit, anywhere in the database, makes the next read
// compute afresh. The cache saves work and never changes an answer (ARCHITECTURE "Scale");
// nothing is shared between processes.
import type { Context } from "hono";
import { changeFeedOf, type Db } from "../db/database.ts";
import type { AppEnv } from "../web/env.ts";
import { requestUrl } from "../web/request_url.ts";
import {
  publicJson,
  serializeAnswer,
  type SerializedAnswer,
  serializedJson,
} from "./answer.ts";
import type { PublicAnswer, PublicReadContext } from "./read_answer.ts";
import { onConfirmedContext } from "./context_refresh.ts";
import type { PublicContext } from "./request_context.ts";
import { tokenScope } from "./site_tokens.ts";
import { answerCache, TELEMETRY_ON } from "../telemetry/mod.ts";

/**
 * How long a kept answer may be reused even when nothing changed: answers carry cursors stamped
 * with the time they were issued, which must not grow older than a shared cache would let them
 * (`max-age` 30 s).
 */
export const KEPT_REUSE_MS = 10_000;

/** What a public read answers besides its body: previews are never kept nor cached. */
export type ReadAnswer = PublicAnswer & { preview?: boolean };

/**
 * Serves a public GET (list, single read, related items): from the answers kept for the request's
 * database state when the same site, token and URL were answered within {@link KEPT_REUSE_MS}, else by
 * `read`, keeping the answer when the budget (`PUBLIC_ANSWER_CACHE_MB`) allows. A read that
 * started from a remembered context which its page statement could not confirm starts over
 * with a fresh one.
 */
export async function servePublicRead(
  c: Context<AppEnv>,
  read: (ctx: PublicReadContext, params: URLSearchParams) => Promise<
    ReadAnswer
  >,
): Promise<Response> {
  const { db, clock, config } = c.get("services");
  const now = clock.now();
  const url = requestUrl(c);
  const budget = config.publicAnswerCacheBytes;
  // A preview answers a draft to one token holder and is never stored (spec 3 part 3).
  const keep = budget > 0 && !url.searchParams.has("preview");
  const shelf = keep ? keptAnswersOf(db, budget) : null;
  const key = () =>
    keptKey(c.get("site").id, c.get("siteToken")?.id ?? null, url);
  const cache = () => c.get("siteToken") ? "private" : "public";
  if (shelf && !c.get("publicContext").unconfirmed) {
    const state = keptStateOf(db, c.get("publicContext"));
    const kept = state === null
      ? null
      : shelf.lookup(state, key(), now.getTime());
    if (kept) return serializedJson(c, kept, cache());
  }
  const run = () =>
    read({
      db,
      now,
      siteId: c.get("site").id,
      token: c.get("siteToken"),
      context: c.get("publicContext"),
      publicUrl: config.publicUrl,
    }, url.searchParams);
  const answer = await onConfirmedContext(c, run);
  if (answer.preview) return publicJson(c, answer, { cache: "none" });
  const serialized = serializeAnswer(answer);
  const state = shelf ? keptStateOf(db, c.get("publicContext")) : null;
  if (state !== null) shelf!.store(state, key(), serialized, now.getTime());
  return serializedJson(c, serialized, cache());
}

/** Whether a kept answer may serve this request, judged on a remembered context. */
export function mayServeKept(
  c: Context<AppEnv>,
  url: URL,
  context: PublicContext,
): boolean {
  const { config, clock, db } = c.get("services");
  const budget = config.publicAnswerCacheBytes;
  if (budget <= 0) return false;
  const now = clock.now();
  const scope = tokenScope(context.token, context.site.id, now);
  return keptAnswersOf(db, budget).holds(
    keptKey(context.site.id, scope?.id ?? null, url),
    now.getTime(),
  );
}

/**
 * The database state a request's answers are kept under: `g<generation>` on a handle with a
 * change feed (null while the feed is not live: nothing is kept or served), else the snapshot
 * the context statement read.
 */
export function keptStateOf(db: Db, context: PublicContext): string | null {
  if (!changeFeedOf(db)) return context.snapshot;
  return context.generation === null ? null : `g${context.generation}`;
}

function keptKey(siteId: string, tokenId: string | null, url: URL): string {
  return `${siteId}\n${tokenId ?? ""}\n${url.pathname}${url.search}`;
}

/** The kept answers of `db` (created with `budget` bytes on first use). */
export function keptAnswersOf(db: Db, budget: number): KeptAnswers {
  let shelf = shelves.get(db);
  if (!shelf) shelves.set(db, shelf = new KeptAnswers(budget));
  return shelf;
}

const shelves = new WeakMap<Db, KeptAnswers>();

interface Kept {
  answer: SerializedAnswer;
  /** Clock time the answer was computed. */
  at: number;
  bytes: number;
}

/** Answers of one database state, least recently used first, within a memory budget. */
export class KeptAnswers {
  /** Answers larger than this share of the budget are served but not kept. */
  static readonly ENTRY_SHARE = 8;
  #state = "";
  #entries = new Map<string, Kept>();
  #bytes = 0;
  /** Reads served from kept answers, and reads that had to be computed. */
  hits = 0;
  misses = 0;

  constructor(readonly budget: number) {}

  /** Bytes an answer takes while kept: UTF-16 text, its key and headers. */
  static bytesOf(key: string, answer: SerializedAnswer): number {
    return 2 * (key.length + answer.text.length + answer.cacheTag.length) +
      256;
  }

  /** Whether an answer young enough is kept under `key`, whatever its state. */
  holds(key: string, now: number): boolean {
    const kept = this.#entries.get(key);
    return kept !== undefined && now - kept.at >= 0 &&
      now - kept.at <= KEPT_REUSE_MS;
  }

  /** The answer kept under `key` for exactly `state`, younger than {@link KEPT_REUSE_MS}. */
  lookup(state: string, key: string, now: number): SerializedAnswer | null {
    const kept = state === this.#state ? this.#entries.get(key) : null;
    const age = kept ? now - kept.at : -1;
    if (!kept || age < 0 || age > KEPT_REUSE_MS) {
      if (kept) this.#forget(key, kept);
      this.misses++;
      if (TELEMETRY_ON) answerCache.add(1, { result: "miss" });
      return null;
    }
    // Most recently used last: eviction takes the front of the map.
    this.#entries.delete(key);
    this.#entries.set(key, kept);
    this.hits++;
    if (TELEMETRY_ON) answerCache.add(1, { result: "hit" });
    return kept.answer;
  }

  /** Keeps an answer computed at `now` by a request that started at `state`. */
  store(
    state: string,
    key: string,
    answer: SerializedAnswer,
    now: number,
  ): void {
    const bytes = KeptAnswers.bytesOf(key, answer);
    if (bytes > this.budget / KeptAnswers.ENTRY_SHARE) return;
    if (state !== this.#state) {
      // A request still running on an older state must not throw away newer answers.
      if (this.#state !== "" && !newer(state, this.#state)) return;
      this.#state = state;
      this.#entries.clear();
      this.#bytes = 0;
    }
    const old = this.#entries.get(key);
    if (old) this.#forget(key, old);
    this.#entries.set(key, { answer, at: now, bytes });
    this.#bytes += bytes;
    for (const [k, kept] of this.#entries) {
      if (this.#bytes <= this.budget) break;
      this.#forget(k, kept);
    }
  }

  /** Keys kept, least recently used first. */
  keys(): string[] {
    return [...this.#entries.keys()];
  }

  #forget(key: string, kept: Kept): void {
    this.#entries.delete(key);
    this.#bytes -= kept.bytes;
  }
}

/**
 * Whether state `a` is later than `b`: generations (`g<n>`) only grow; of two snapshots
 * (`xmin:xmax:running,...`), transaction ids only grow, and while no new id is handed out,
 * running transactions only finish.
 */
export function newer(a: string, b: string): boolean {
  if (a.startsWith("g")) return Number(a.slice(1)) > Number(b.slice(1));
  const [aMin, aMax, aRunning] = a.split(":");
  const [bMin, bMax, bRunning] = b.split(":");
  if (BigInt(aMax) !== BigInt(bMax)) return BigInt(aMax) > BigInt(bMax);
  if (BigInt(aMin) !== BigInt(bMin)) return BigInt(aMin) > BigInt(bMin);
  const running = (list: string) => list === "" ? 0 : list.split(",").length;
  return running(aRunning) < running(bRunning);
}
