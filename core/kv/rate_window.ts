// Sliding-window rate limits in Deno KV: no span of `windowMs` admits more than `limit` hits per key.

import { type Clock, systemClock } from "../clock.ts";

/** Options of {@linkcode RateWindow}. */
export interface RateWindowOptions {
  /** Source of time; defaults to the wall clock. */
  clock?: Clock;
}

/** The decision for one hit. */
export interface RateDecision {
  /** Whether this hit is within the limit (and was counted). */
  allowed: boolean;
  /** Hits still allowed right now after this one. */
  remaining: number;
  /** 0 when allowed; else whole seconds until a hit is allowed again, rounded up, at least 1. */
  retryAfterSeconds: number;
  /** When the oldest counted hit leaves the window and one more hit is allowed. */
  resetAt: Date;
}

/** Largest limit: the admitted times of one key are kept in one KV value (64 KiB at most). */
export const MAX_RATE_LIMIT = 4096;

const PREFIX = "rate-log";

/** Logs remembered per KV store at most (the least recently hit are forgotten first). */
export const REMEMBERED_LOGS = 10_000;

/**
 * The log each key's last admitted hit in this process wrote, with its versionstamp, per store:
 * the next hit on the key checks that versionstamp instead of reading the log first, and reads
 * it only when the check fails (another process or hit wrote it since, or it expired). Shared by
 * every RateWindow of a store, as some are made per request.
 */
const writtenLogs = new WeakMap<Deno.Kv, Map<string, Deno.KvEntry<number[]>>>();

/**
 * A sliding-window log per key: the times of the hits admitted in the last `windowMs` are
 * kept in one KV value, and a hit is admitted only while fewer than `limit` are. So no span
 * of `windowMs` (not only each clock minute) ever admits more than `limit`, which a fixed
 * window cannot promise (it admits up to twice the limit across a boundary). Refused hits
 * are not counted. Every process sharing the KV store shares the limit: each admission is a
 * version-checked atomic write, retried on conflict.
 *
 * Reusable for any limit: `new RateWindow(kv).hit(["plugin", installationId], 120, 60_000)`.
 */
export class RateWindow {
  #kv: Deno.Kv;
  #clock: Clock;
  #logs: Map<string, Deno.KvEntry<number[]>>;

  constructor(kv: Deno.Kv, options: RateWindowOptions = {}) {
    this.#kv = kv;
    this.#clock = options.clock ?? systemClock;
    let logs = writtenLogs.get(kv);
    if (!logs) writtenLogs.set(kv, logs = new Map());
    this.#logs = logs;
  }

  /**
   * Counts one hit on `key` against `limit` hits in any `windowMs`. The `limit`-th hit in a
   * span is allowed, the next is refused with the seconds until the oldest one leaves it.
   */
  async hit(
    key: string | readonly string[],
    limit: number,
    windowMs: number,
  ): Promise<RateDecision> {
    if (!Number.isInteger(limit) || limit < 0 || limit > MAX_RATE_LIMIT) {
      throw new RangeError(
        `Cannot count against limit ${limit}: expected a whole number of hits from 0 to ${MAX_RATE_LIMIT}`,
      );
    }
    if (!Number.isInteger(windowMs) || windowMs < 1) {
      throw new RangeError(
        `Cannot count in a window of ${windowMs} ms: expected a positive integer`,
      );
    }
    const parts = typeof key === "string" ? [key] : key;
    const kvKey = [PREFIX, ...parts];
    const logs = this.#logs;
    const logKey = JSON.stringify(parts);
    // Taken, so a concurrent hit on the key reads the log rather than race on the same check.
    let remembered: Deno.KvEntryMaybe<number[]> | undefined = logs.get(logKey);
    logs.delete(logKey);
    // A failed commit means another hit was admitted, which happens at most `limit` times
    // per window, so this bound is only reached under sustained contention.
    const maxAttempts = limit + 10;
    for (let attempt = 0; attempt < maxAttempts; attempt++) {
      const now = this.#clock.now().getTime();
      const fromMemory = remembered !== undefined;
      const current = remembered ?? await this.#kv.get<number[]>(kvKey);
      remembered = undefined;
      // KV expiry is lazy and clocks are injected: the stored times are re-checked here.
      // A time later than `now` was counted by another process after this one read its
      // clock: it is kept (dropping it would lose that hit when this write replaces the log).
      const times = (current.value ?? []).filter((t) => t > now - windowMs)
        .sort((x, y) => x - y);
      if (times.length >= limit) {
        // Others may have added hits since: the refusal's wait is read from the stored log.
        if (fromMemory) continue;
        const freesAt = (times[times.length - limit] ?? now) + windowMs;
        return {
          allowed: false,
          remaining: 0,
          retryAfterSeconds: Math.max(1, Math.ceil((freesAt - now) / 1000)),
          resetAt: new Date(freesAt),
        };
      }
      times.push(now);
      const committed = await this.#kv.atomic()
        .check(current)
        .set(kvKey, times, { expireIn: windowMs })
        .commit();
      if (committed.ok) {
        logs.set(logKey, {
          key: kvKey,
          value: times,
          versionstamp: committed.versionstamp,
        });
        if (logs.size > REMEMBERED_LOGS) {
          logs.delete(logs.keys().next().value!);
        }
        return {
          allowed: true,
          remaining: limit - times.length,
          retryAfterSeconds: 0,
          resetAt: new Date(times[0] + windowMs),
        };
      }
    }
    throw new Error(
      `Cannot count a hit on "${
        parts.join("/")
      }": still contended after ${maxAttempts} attempts`,
    );
  }
}
