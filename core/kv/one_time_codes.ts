// One-time codes (launch codes, activation codes) in Deno KV, stored only as SHA-256 digests.

import { type Clock, systemClock } from "../clock.ts";
import { sha256Hex } from "./digest.ts";

/** Options of {@linkcode OneTimeCodes}. */
export interface OneTimeCodesOptions {
  /** Source of time for expiry; defaults to the wall clock. */
  clock?: Clock;
  /** Fills a buffer with random bytes; defaults to `crypto.getRandomValues`. */
  random?: (bytes: Uint8Array) => void;
  /**
   * How long a record is kept after its expiry so that a late use answers `code_expired`
   * or `code_used` rather than `code_unknown`; defaults to 24 hours.
   */
  keepAfterExpiryMs?: number;
}

/** Options of {@linkcode OneTimeCodes.issue}. */
export interface IssueCodeOptions<P> {
  /** Put before the random part, e.g. `"svl_"` for launch codes. */
  prefix: string;
  /** How long the code works, e.g. 60 000 for a launch code. */
  ttlMs: number;
  /** What the code is bound to (installation, site, user, ...); handed back by `consume`. */
  payload: P;
}

/** An issued code. The plain `code` exists only here; the store keeps its digest. */
export interface IssuedCode {
  code: string;
  expiresAt: Date;
}

/** Why a code was refused. `code_wrong_purpose` leaves the code usable for its own purpose. */
export type CodeRefusal =
  | "code_unknown"
  | "code_wrong_purpose"
  | "code_used"
  | "code_expired";

/** The answer of {@linkcode OneTimeCodes.consume}. */
export type ConsumeCodeResult<P> =
  | { ok: true; payload: P; issuedAt: Date; expiresAt: Date }
  | { ok: false; code: CodeRefusal };

interface CodeRecord<P> {
  purpose: string;
  payload: P;
  issuedAt: number;
  expiresAt: number;
  usedAt: number | null;
}

const PREFIX = "code";
const RANDOM_BYTES = 32;
const DAY_MS = 24 * 60 * 60 * 1000;
const MAX_ATTEMPTS = 20;

/**
 * One-time codes. `issue` answers a fresh random code once; `consume` accepts it exactly
 * once for its purpose, strictly before its expiry. A purpose can carry a binding
 * (`"launch:<installation id>"`) so a code minted for one party is refused to another
 * without burning it.
 */
export class OneTimeCodes {
  #kv: Deno.Kv;
  #clock: Clock;
  #random: (bytes: Uint8Array) => void;
  #keepAfterExpiryMs: number;

  constructor(kv: Deno.Kv, options: OneTimeCodesOptions = {}) {
    this.#kv = kv;
    this.#clock = options.clock ?? systemClock;
    this.#random = options.random ?? ((bytes) => crypto.getRandomValues(bytes));
    this.#keepAfterExpiryMs = options.keepAfterExpiryMs ?? DAY_MS;
  }

  /**
   * Issues a code for `purpose`: `prefix` followed by 256 random bits in base64url (43
   * characters). Only the code's SHA-256 digest is stored, with purpose, payload and expiry.
   */
  async issue<P>(
    purpose: string,
    options: IssueCodeOptions<P>,
  ): Promise<IssuedCode> {
    const { prefix, ttlMs, payload } = options;
    if (!Number.isInteger(ttlMs) || ttlMs < 1) {
      throw new RangeError(
        `Cannot issue a "${purpose}" code for ${ttlMs} ms: expected a positive integer`,
      );
    }
    const bytes = new Uint8Array(RANDOM_BYTES);
    this.#random(bytes);
    const code = prefix + toBase64Url(bytes);
    const now = this.#clock.now().getTime();
    const record: CodeRecord<P> = {
      purpose,
      payload,
      issuedAt: now,
      expiresAt: now + ttlMs,
      usedAt: null,
    };
    const key = [PREFIX, await sha256Hex(code)];
    const committed = await this.#kv.atomic()
      .check({ key, versionstamp: null })
      .set(key, record, { expireIn: ttlMs + this.#keepAfterExpiryMs })
      .commit();
    // Only a broken random source can repeat 256 bits.
    if (!committed.ok) {
      throw new Error(
        `Cannot issue a "${purpose}" code: the random source repeated a code`,
      );
    }
    return { code, expiresAt: new Date(record.expiresAt) };
  }

  /**
   * Consumes `code` for `purpose`. Succeeds exactly once, before the expiry, answering the
   * payload; of concurrent consumers exactly one wins. Refusals, checked in this order:
   * `code_unknown` (never issued, or forgotten), `code_wrong_purpose` (the code stays usable),
   * `code_used`, `code_expired` (the clock is at or past the expiry).
   */
  async consume<P = unknown>(
    code: string,
    purpose: string,
  ): Promise<ConsumeCodeResult<P>> {
    const key = [PREFIX, await sha256Hex(code)];
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const current = await this.#kv.get<CodeRecord<P>>(key);
      const record = current.value;
      const now = this.#clock.now().getTime();
      if (record === null) return { ok: false, code: "code_unknown" };
      if (record.purpose !== purpose) {
        return { ok: false, code: "code_wrong_purpose" };
      }
      if (record.usedAt !== null) return { ok: false, code: "code_used" };
      if (now >= record.expiresAt) return { ok: false, code: "code_expired" };
      const committed = await this.#kv.atomic()
        .check(current)
        .set(key, { ...record, usedAt: now }, {
          expireIn: record.expiresAt - now + this.#keepAfterExpiryMs,
        })
        .commit();
      if (committed.ok) {
        return {
          ok: true,
          payload: record.payload,
          issuedAt: new Date(record.issuedAt),
          expiresAt: new Date(record.expiresAt),
        };
      }
    }
    throw new Error(
      `Cannot consume a "${purpose}" code: still contended after ${MAX_ATTEMPTS} attempts`,
    );
  }
}

function toBase64Url(bytes: Uint8Array): string {
  let binary = "";
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary).replaceAll("+", "-").replaceAll("/", "_").replace(
    /=+$/,
    "",
  );
}
