// The injected source of time, so expiry, leases and cron rules are testable without sleeping.

/** Anything that can tell the current time. */
export interface Clock {
  now(): Date;
}

/** The wall clock. */
export const systemClock: Clock = { now: () => new Date() };

/** A clock that only moves when a test moves it. */
export class ManualClock implements Clock {
  #ms: number;
  constructor(start: Date | string = "2026-01-01T00:00:00.000Z") {
    this.#ms = new Date(start).getTime();
  }
  now(): Date {
    return new Date(this.#ms);
  }
  /** Moves the clock forward by `ms` milliseconds. */
  advance(ms: number): void {
    this.#ms += ms;
  }
  /** Sets the clock to an exact instant. */
  set(at: Date | string): void {
    this.#ms = new Date(at).getTime();
  }
}
