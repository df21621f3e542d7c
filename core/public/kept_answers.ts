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
import type { AppEnv } from "../web/env.ts";
import { requestUrl } from "../web/request_url.ts";
import { rememberFront } from "./front_answers.ts";
import {
  cacheableHeaders,
  publicJson,
  serializeAnswer,
  type SerializedAnswer,
  serializedJson,
} from "./answer.ts";
import type { PublicAnswer, PublicReadContext } from "./read_answer.ts";
import { onConfirmedContext } from "./context_refresh.ts";
import type { PublicContext } from "./request_context.ts";
import { tokenScope } from "./site_tokens.ts";
import { keptAnswersOf, keptStateOf } from "./kept_shelf.ts";

/** What a public read answers besides its body: previews are never kept nor cached. */
export type ReadAnswer = PublicAnswer & { preview?: boolean };

/**
 * Serves a public GET (list, single read, related items): from the answers kept for the request's
 * database state when the same site, token and URL were answered within `KEPT_REUSE_MS` (kept_shelf.ts), else by
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
  // While kept answers do not pay for this process's reads, most reads leave them alone.
  const answers = keep ? keptAnswersOf(db, budget) : null;
  const shelf = answers?.consults() ? answers : null;
  // Built once: a computed answer that may be kept looks it up, then stores it under it.
  let keyText: string | undefined;
  const key = () =>
    keyText ??= keptKey(c.get("site").id, c.get("siteToken")?.id ?? null, url);
  const cache = () => c.get("siteToken") ? "private" : "public";
  if (shelf && !c.get("publicContext").unconfirmed) {
    const state = keptStateOf(db, c.get("publicContext"));
    const kept = state === null
      ? null
      : shelf.lookup(state, key(), now.getTime());
    if (kept) return keptJson(c, state!, key(), kept, cache());
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
  // Remembered for answering ahead of routing only once reused: most answers kept are never
  // asked for again within the window, and remembering each cost every miss a second key.
  if (state !== null) shelf!.store(state, key(), serialized, now.getTime());
  return serializedJson(c, serialized, cache());
}

/**
 * Answers a kept answer, and on a handle with a change feed remembers the request, so the same
 * one is answered before routing (core/public/front_answers.ts).
 */
function keptJson(
  c: Context<AppEnv>,
  state: string,
  keptKey: string,
  answer: SerializedAnswer,
  cache: "public" | "private",
): Response {
  const headers = cacheableHeaders(c, answer, cache);
  if (state.startsWith("g")) {
    const expires = c.get("publicContext").token?.expires_at ?? null;
    rememberFront(c, {
      state,
      keptKey,
      answer,
      headers,
      tokenExpiresAt: c.get("siteToken") ? expires?.getTime() ?? null : null,
    });
  }
  return serializedJson(c, answer, cache, headers);
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

function keptKey(siteId: string, tokenId: string | null, url: URL): string {
  return `${siteId}\n${tokenId ?? ""}\n${url.pathname}${url.search}`;
}
