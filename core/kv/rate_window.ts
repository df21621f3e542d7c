// Fixed-window rate counters in Deno KV, e.g. 120 requests per minute per credential.

import { type Clock, systemClock } from "../clock.ts";

/** Options of {@linkcode RateWindow}. */
export interface RateWindowOptions {
  /** Source of time for window alignment; defaults to the wall clock. */
  clock?: Clock;
}

/** The decision for one hit. */
export interface RateDecision {
  /** Whether this hit is within the limit (and was counted). */
  allowed: boolean;
  /** Hits still allowed in this window after this one. */
  remaining: number;
  /** 0 when allowed; else whole seconds until the window ends, rounded up, at least 1. */
  retryAfterSeconds: number;
  /** When the current window ends and the count starts again. */
  resetAt: Date;
}

const PREFIX = "rate";

/**
 * Fixed-window counters. Windows start at multiples of `windowMs` from the Unix epoch
 * (a one-minute window starts on each whole UTC minute). Only allowed hits are counted.
 */
export class RateWindow {
  #kv: Deno.Kv;
  #clock: Clock;

  constructor(kv: Deno.Kv, options: RateWindowOptions = {}) {
    this.#kv = kv;
    this.#clock = options.clock ?? systemClock;
  }

  /**
   * Counts one hit on `key` against `limit` hits per `windowMs`. The `limit`-th hit of a
   * window is allowed, the next is refused with the seconds left in the window. Concurrent
   * hits never lose counts: each increment is a version-checked atomic write, retried on conflict.
   */
  async hit(
    key: string | readonly string[],
    limit: number,
    windowMs: number,
  ): Promise<RateDecision> {
    if (!Number.isInteger(limit) || limit < 0) {
      throw new RangeError(
        `Cannot count against limit ${limit}: expected a whole number of hits`,
      );
    }
    if (!Number.isInteger(windowMs) || windowMs < 1) {
      throw new RangeError(
        `Cannot count in a window of ${windowMs} ms: expected a positive integer`,
      );
    }
    const parts = typeof key === "string" ? [key] : key;
    // A failed commit means another hit was counted, which happens at most `limit` times per
    // window, so this bound is only reached when windows keep rolling over under contention.
    const maxAttempts = limit + 10;
    for (let attempt = 0; attempt < maxAttempts; attempt++) {
      const now = this.#clock.now().getTime();
      const windowStart = Math.floor(now / windowMs) * windowMs;
      const resetAt = windowStart + windowMs;
      const kvKey = [PREFIX, ...parts, windowStart];
      const current = await this.#kv.get<number>(kvKey);
      const count = current.value ?? 0;
      if (count >= limit) {
        return {
          allowed: false,
          remaining: 0,
          retryAfterSeconds: Math.max(1, Math.ceil((resetAt - now) / 1000)),
          resetAt: new Date(resetAt),
        };
      }
      const committed = await this.#kv.atomic()
        .check(current)
        .set(kvKey, count + 1, { expireIn: resetAt - now })
        .commit();
      if (committed.ok) {
        return {
          allowed: true,
          remaining: limit - count - 1,
          retryAfterSeconds: 0,
          resetAt: new Date(resetAt),
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
