// The shelf of kept public answers: one database state's answers at a time (a generation of
// announced commits, or a snapshot on a read replica: core/public/kept_answers.ts), a reuse
// window, a memory budget. One shelf per database handle.
import { changeFeedOf, type Db } from "../db/database.ts";
import type { SerializedAnswer } from "./answer.ts";
import type { PublicContext } from "./request_context.ts";
import { answerCache, TELEMETRY_ON } from "../telemetry/mod.ts";

/**
 * How long a kept answer may be reused even when nothing changed: answers carry cursors stamped
 * with the time they were issued, which must not grow older than a shared cache would let them
 * (`max-age` 30 s).
 */
export const KEPT_REUSE_MS = 10_000;

/**
 * The database state a request's answers are kept under: `g<generation>` on a handle with a
 * change feed (null while the feed is not live: nothing is kept or served), else the snapshot
 * the context statement read.
 */
export function keptStateOf(db: Db, context: PublicContext): string | null {
  if (!changeFeedOf(db)) return context.snapshot;
  return context.generation === null ? null : `g${context.generation}`;
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
  /** Reused since it was kept or last spared from eviction (second chance). */
  used: boolean;
}

/** Whether `kept` may still be reused at `now`: not older than the window, not from the future. */
function young(kept: Kept, now: number): boolean {
  const age = now - kept.at;
  return age >= 0 && age <= KEPT_REUSE_MS;
}

/** Answers of one database state, oldest first, within a memory budget. */
export class KeptAnswers {
  /** Answers larger than this share of the budget are served but not kept. */
  static readonly ENTRY_SHARE = 8;
  /**
   * Keys asked for once and not kept, remembered at most (the memory then starts over): a key is
   * kept when asked for again before 2,000 other keys were. With 20,000, random single reads over
   * 100,000 entries kept about a fifth of their answers, most of them evicted unread, and ran
   * about 10% below computed ones (docs/benchmarks.md); answers asked for often (lists, popular
   * pages) come back well within 2,000.
   */
  static readonly SEEN_MAX = 2_000;
  #state = "";
  #entries = new Map<string, Kept>();
  // Keys asked for once: an answer is kept only when its key is asked for again. Random single
  // reads over a large site are mostly asked for once each; keeping every one of them evicted
  // the answers asked for often and made the collector carry megabytes of answers nobody read
  // again (kept single reads ran at half the computed rate, docs/benchmarks.md).
  #seen = new Set<string>();
  #bytes = 0;
  /** Reads served from kept answers, and reads that had to be computed. */
  hits = 0;
  misses = 0;
  /** Lookups in the current window of {@link KeptAnswers.WINDOW}, and the hits among them. */
  #windowLookups = 0;
  #windowHits = 0;
  /** One read in this many consults the shelf (1: every read). */
  #consultEvery = 1;
  #reads = 0;

  /** Lookups over which the shelf judges whether it pays. */
  static readonly WINDOW = 4096;
  /**
   * Below this share of hits a lookup costs more than hits save (a miss costs the key, the
   * lookup and the admission memory, about 5 us; a hit saves a computed answer, 80 us or more),
   * and only one read in {@link KeptAnswers.SAMPLE_EVERY} consults the shelf until a window of
   * them finds hits again.
   */
  static readonly PAYING_HITS = 0.05;
  static readonly SAMPLE_EVERY = 16;

  constructor(readonly budget: number) {}

  /** Bytes an answer takes while kept: UTF-16 text, its key and headers. */
  static bytesOf(key: string, answer: SerializedAnswer): number {
    return 2 * (key.length + answer.text.length + answer.cacheTag.length) +
      256;
  }

  /** Whether an answer young enough is kept under `key`, whatever its state. */
  holds(key: string, now: number): boolean {
    const kept = this.#entries.get(key);
    return kept !== undefined && young(kept, now);
  }

  /**
   * Whether this read consults the shelf (looks its answer up and offers it for keeping). Random
   * single reads over a large site almost never find their answer kept; while a window of
   * lookups finds under {@link KeptAnswers.PAYING_HITS} of them, only a sample of reads looks,
   * and they run as computed reads do. Reads answered ahead of routing never get here.
   */
  consults(): boolean {
    if (this.#consultEvery === 1) return true;
    return ++this.#reads % this.#consultEvery === 0;
  }

  #judge(hit: boolean): void {
    this.#windowLookups++;
    if (hit) this.#windowHits++;
    if (this.#windowLookups < KeptAnswers.WINDOW) return;
    this.#consultEvery =
      this.#windowHits < KeptAnswers.PAYING_HITS * this.#windowLookups
        ? KeptAnswers.SAMPLE_EVERY
        : 1;
    this.#windowLookups = 0;
    this.#windowHits = 0;
  }

  /** The answer kept under `key` for exactly `state`, younger than {@link KEPT_REUSE_MS}. */
  lookup(state: string, key: string, now: number): SerializedAnswer | null {
    const kept = state === this.#state ? this.#entries.get(key) : null;
    const hit = kept !== undefined && kept !== null && young(kept, now);
    this.#judge(hit);
    if (!hit) {
      if (kept) {
        this.#forget(key, kept);
        this.#see(key);
      }
      this.misses++;
      if (TELEMETRY_ON) answerCache.add(1, { result: "miss" });
      return null;
    }
    this.#reused(kept);
    return kept.answer;
  }

  /**
   * Counts a reuse of `answer` served by another step (core/public/front_answers.ts) when it is
   * still what {@link lookup} would answer for `state` and `key` at `now`; false otherwise.
   */
  serveAgain(
    state: string,
    key: string,
    answer: SerializedAnswer,
    now: number,
  ): boolean {
    if (state !== this.#state) return false;
    const kept = this.#entries.get(key);
    if (!kept || kept.answer !== answer || !young(kept, now)) return false;
    this.#reused(kept);
    return true;
  }

  #reused(kept: Kept): void {
    // Marked, not moved: deleting and setting the key again on every reuse cost a kept answer
    // about 70 us once the map held tens of thousands of answers (docs/benchmarks.md).
    kept.used = true;
    this.hits++;
    if (TELEMETRY_ON) answerCache.add(1, { result: "hit" });
  }

  /**
   * Keeps an answer computed at `now` by a request that started at `state`, when its key was
   * asked for before (else only remembers the key); answers whether it was kept.
   */
  store(
    state: string,
    key: string,
    answer: SerializedAnswer,
    now: number,
  ): boolean {
    const bytes = KeptAnswers.bytesOf(key, answer);
    if (bytes > this.budget / KeptAnswers.ENTRY_SHARE) return false;
    if (state !== this.#state) {
      // A request still running on an older state must not throw away newer answers.
      if (this.#state !== "" && !newer(state, this.#state)) return false;
      this.#state = state;
      this.#entries.clear();
      this.#bytes = 0;
    }
    const old = this.#entries.get(key);
    if (old) this.#forget(key, old);
    else if (!this.#seen.delete(key)) {
      this.#see(key);
      return false;
    }
    this.#entries.set(key, { answer, at: now, bytes, used: false });
    this.#bytes += bytes;
    // Oldest first, and an answer reused since it was kept gets a second chance at the back.
    while (this.#bytes > this.budget) {
      const [k, kept] = this.#entries.entries().next().value!;
      if (kept.used) {
        kept.used = false;
        this.#entries.delete(k);
        this.#entries.set(k, kept);
      } else this.#forget(k, kept);
    }
    return true;
  }

  #see(key: string): void {
    if (this.#seen.size >= KeptAnswers.SEEN_MAX) this.#seen.clear();
    this.#seen.add(key);
  }

  /** Keys kept, the next to be evicted first (reused ones aside). */
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
