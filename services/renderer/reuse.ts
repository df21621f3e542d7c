// Keeps an answer for a bounded time per instance (chrome and redirects at most 30 s, template
// rule 7 and spec limits); the clock is injected so tests never sleep.

/** The spec's ceiling for reusing a chrome or redirect answer. */
export const MAX_REUSE_MS = 30_000;

/** A source of the current time in milliseconds. */
export type Clock = () => number;

/** Answers kept by key for at most `ttlMs`; concurrent misses of one key share one load. */
export class Reuse<T> {
  #kept = new Map<
    string,
    { at: number; value: Promise<T>; loading: boolean }
  >();
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
   */
  get(key: string, load: () => Promise<T>): Promise<T> {
    const now = this.clock();
    const kept = this.#kept.get(key);
    if (kept && (kept.loading || now - kept.at < this.ttlMs)) {
      return kept.value;
    }
    if (this.#kept.size >= this.maxKeys) this.#kept.clear();
    const value = load();
    const entry = { at: now, value, loading: true };
    this.#kept.set(key, entry);
    value.then(() => {
      entry.loading = false;
      if (this.ttlMs === 0 && this.#kept.get(key) === entry) {
        this.#kept.delete(key);
      }
    }, () => {
      entry.loading = false;
      if (this.#kept.get(key) === entry) this.#kept.delete(key);
    });
    return value;
  }
}
