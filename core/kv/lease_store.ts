// Named leases in Deno KV: one owner at a time, renewable, lapsing at an expiry read from the injected clock.

import { type Clock, systemClock } from "../clock.ts";

/** Options of {@linkcode LeaseStore}. */
export interface LeaseStoreOptions {
  /** Source of time for expiry; defaults to the wall clock. */
  clock?: Clock;
}

/** A lease as stored. */
export interface Lease {
  name: string;
  owner: string;
  /** When this owner first took the lease (kept across renewals). */
  takenAt: Date;
  /** The first instant at which the lease no longer holds. */
  expiresAt: Date;
}

/** The answer of {@linkcode LeaseStore.take}. */
export type TakeLeaseResult =
  | { ok: true; lease: Lease; renewed: boolean }
  | { ok: false; code: "lease_held"; owner: string; expiresAt: Date };

/** The answer of {@linkcode LeaseStore.release}. */
export type ReleaseLeaseResult =
  | { ok: true }
  | { ok: false; code: "lease_not_held"; owner: string | null };

interface LeaseRecord {
  owner: string;
  takenAt: number;
  expiresAt: number;
}

const PREFIX = "lease";
const MAX_ATTEMPTS = 20;

/**
 * Leases over Deno KV. A lease is held from `take` until `expiresAt` (exclusive);
 * KV expiry is lazy, so every read compares the stored expiry with the clock.
 */
export class LeaseStore {
  #kv: Deno.Kv;
  #clock: Clock;

  constructor(kv: Deno.Kv, options: LeaseStoreOptions = {}) {
    this.#kv = kv;
    this.#clock = options.clock ?? systemClock;
  }

  /**
   * Takes lease `name` for `owner` for `ttlMs` milliseconds. Succeeds when the lease is free,
   * expired, or already held by `owner` (a renewal, which moves the expiry to now + `ttlMs`);
   * otherwise refuses with the current owner and expiry. Of concurrent takers exactly one wins.
   */
  async take(
    name: string,
    owner: string,
    ttlMs: number,
  ): Promise<TakeLeaseResult> {
    if (!Number.isInteger(ttlMs) || ttlMs < 1) {
      throw new RangeError(
        `Cannot take lease "${name}" for ${ttlMs} ms: expected a positive integer`,
      );
    }
    const key = [PREFIX, name];
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const current = await this.#kv.get<LeaseRecord>(key);
      const now = this.#clock.now().getTime();
      const held = current.value !== null && now < current.value.expiresAt;
      if (held && current.value!.owner !== owner) {
        return {
          ok: false,
          code: "lease_held",
          owner: current.value!.owner,
          expiresAt: new Date(current.value!.expiresAt),
        };
      }
      const renewed = held;
      const record: LeaseRecord = {
        owner,
        takenAt: renewed ? current.value!.takenAt : now,
        expiresAt: now + ttlMs,
      };
      const committed = await this.#kv.atomic()
        .check(current)
        .set(key, record, { expireIn: ttlMs })
        .commit();
      if (committed.ok) {
        return { ok: true, lease: toLease(name, record), renewed };
      }
    }
    throw new Error(
      `Cannot take lease "${name}": still contended after ${MAX_ATTEMPTS} attempts`,
    );
  }

  /**
   * Releases lease `name` when `owner` holds it now. A lease that expired, or is held by
   * someone else, is left alone and answers `lease_not_held` with the current holder, if any.
   */
  async release(name: string, owner: string): Promise<ReleaseLeaseResult> {
    const key = [PREFIX, name];
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const current = await this.#kv.get<LeaseRecord>(key);
      const now = this.#clock.now().getTime();
      const holder = current.value !== null && now < current.value.expiresAt
        ? current.value.owner
        : null;
      if (holder !== owner) {
        return { ok: false, code: "lease_not_held", owner: holder };
      }
      const committed = await this.#kv.atomic().check(current).delete(key)
        .commit();
      if (committed.ok) return { ok: true };
    }
    throw new Error(
      `Cannot release lease "${name}": still contended after ${MAX_ATTEMPTS} attempts`,
    );
  }

  /** Answers the lease on `name` if one holds now, else `null`. */
  async get(name: string): Promise<Lease | null> {
    const { value } = await this.#kv.get<LeaseRecord>([PREFIX, name]);
    if (value === null || this.#clock.now().getTime() >= value.expiresAt) {
      return null;
    }
    return toLease(name, value);
  }
}

function toLease(name: string, record: LeaseRecord): Lease {
  return {
    name,
    owner: record.owner,
    takenAt: new Date(record.takenAt),
    expiresAt: new Date(record.expiresAt),
  };
}
