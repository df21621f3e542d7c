// Keeps an answer for a bounded time per instance (chrome and redirects at most 30 s, template
// rule 7 and spec limits); the clock is injected so tests never sleep.

/** The spec's ceiling for reusing a chrome or redirect answer. */
export const MAX_REUSE_MS = 30_000;

/** A source of the current time in milliseconds. */
export type Clock = () => number;

/** Answers kept by key for at most `ttlMs`; concurrent misses of one key share one load. */
export class Reuse<T> {
  #kept = new Map<string, Kept<T>>();
  constructor(
    readonly ttlMs: number,
    readonly clock: Clock,
    readonly maxKeys = 64,
  ) {
    if (ttlMs > MAX_REUSE_MS) {
      throw new Error(
        `Cannot reuse answers for ${ttlMs} ms: expected at most ${MAX_REUSE_MS}`,
      );
    }
  }

  /**
   * The kept answer for `key` while fresh or still loading, else `load()`'s (a failed load is
   * not kept). Requests that arrive while a load is in flight share it, even with no window.
   * Once a kept answer is half its window old, the next request starts one load in the
   * background and is still served the kept answer; the fresh one replaces it when it arrives.
   * No answer older than the window is ever served, and no reader waits on a slow read while
   * a fresh enough answer is kept.
   */
  get(key: string, load: () => Promise<T>): Promise<T> {
    const now = this.clock();
    const kept = this.#kept.get(key);
    if (kept && kept.loading) return kept.value;
    if (kept && now - kept.at < this.ttlMs) {
      if (now - kept.at >= this.ttlMs / 2 && !kept.refreshing) {
        kept.refreshing = true;
        this.#start(key, load, now, kept);
      }
      return kept.value;
    }
    if (this.#kept.size >= this.maxKeys) this.#kept.clear();
    const entry = this.#start(key, load, now, null);
    this.#kept.set(key, entry);
    return entry.value;
  }

  /** Starts `load()`; a background refresh of `replacing` takes its place once it succeeds. */
  #start(
    key: string,
    load: () => Promise<T>,
    now: number,
    replacing: Kept<T> | null,
  ): Kept<T> {
    const value = load();
    const entry: Kept<T> = {
      at: now,
      value,
      loading: replacing === null,
      refreshing: false,
    };
    value.then(() => {
      entry.loading = false;
      if (replacing) {
        if (this.#kept.get(key) === replacing) this.#kept.set(key, entry);
      } else if (this.ttlMs === 0 && this.#kept.get(key) === entry) {
        this.#kept.delete(key);
      }
    }, () => {
      entry.loading = false;
      if (replacing) replacing.refreshing = false;
      else if (this.#kept.get(key) === entry) this.#kept.delete(key);
    });
    return entry;
  }
}

interface Kept<T> {
  /** Clock time the load started. */
  at: number;
  value: Promise<T>;
  /** A first load still in flight: requests share it. */
  loading: boolean;
  /** A background refresh of this answer is in flight. */
  refreshing: boolean;
}
