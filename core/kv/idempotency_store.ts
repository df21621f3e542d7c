// Idempotency claims and their exact first answers in Deno KV, for the management API (spec 2, 4.1 and 4.3).

import { type Clock, systemClock } from "../clock.ts";
import { sha256Hex } from "./digest.ts";
import { isValidIdempotencyKey } from "./idempotency_key.ts";
import {
  answerPartKey,
  type IdempotentAnswer,
  planAnswer,
  type PlannedAnswer,
  readAnswer,
  type StoredAnswer,
} from "./idempotent_answer.ts";

/** Where a key lives: `scope` is e.g. `[credentialId, siteId]`, so equal keys of two scopes never meet. */
export interface IdempotencyRef {
  scope: readonly string[];
  key: string;
}

/** The request a key is claimed for, and how long the key is kept. */
export interface ClaimOptions {
  method: string;
  path: string;
  /** `sha256Hex()` of the raw body bytes: a retry must send the same bytes. */
  bodyDigest: string;
  /** `IDEMPOTENCY_RETENTION_LONG_MS` for publish, unpublish and move, else `IDEMPOTENCY_RETENTION_MS`. */
  retentionMs: number;
}

/** A handle on one claim of a key; `token` tells it apart from later claims of the same key. */
export interface IdempotencyClaim extends IdempotencyRef {
  token: string;
  claimedAt: Date;
  /** When the key is forgotten, whatever its state. */
  expiresAt: Date;
}

/** The answer of {@linkcode IdempotencyStore.claim}. */
export type ClaimResult =
  | { ok: true; replayed: false; claim: IdempotencyClaim }
  | { ok: true; replayed: true; answer: IdempotentAnswer; answeredAt: Date }
  | { ok: false; code: "idempotency_key_reused" }
  | {
    ok: false;
    code: "idempotency_in_progress";
    pending: false;
    retryAfterSeconds: number;
  }
  | {
    ok: false;
    code: "idempotency_in_progress";
    pending: true;
    retryAfterSeconds: null;
    claim: IdempotencyClaim;
  };

/** The refusal of a step on a claim that was answered, freed, reclaimed or forgotten meanwhile. */
export type ClaimChanged = { ok: false; code: "claim_changed" };

/** Options of {@linkcode IdempotencyStore}. */
export interface IdempotencyStoreOptions {
  /** Source of time for leases and retention; defaults to the wall clock. */
  clock?: Clock;
  /** How long a claim without an answer counts as running before it is pending; defaults to 60 s. */
  claimLeaseMs?: number;
}

interface ClaimRecord {
  token: string;
  fingerprint: string;
  claimedAt: number;
  expiresAt: number;
  answer: StoredAnswer | null;
}

type Change = { record: Partial<ClaimRecord>; parts: Uint8Array[] } | "delete";
type StepResult = {
  ok: true;
  record: ClaimRecord | null;
  answer?: IdempotentAnswer;
} | ClaimChanged;

const PREFIX = "idem";
const MAX_RETRY_AFTER_SECONDS = 5;
const MAX_ATTEMPTS = 20;

/**
 * Idempotency claims: claimed -> answered (the first answer is kept until the key expires) or
 * freed (deleted: the command was refused or failed, so a retry runs it). A claim without an answer
 * past the lease is pending: the caller `settle`s it from what Postgres proves, `reclaim`s it to run
 * the command again, or answers `409 idempotency_in_progress` without `Retry-After`.
 */
export class IdempotencyStore {
  #kv: Deno.Kv;
  #clock: Clock;
  #leaseMs: number;
  /**
   * The record each claim of this store last wrote, with its versionstamp: the claim's next step
   * checks that versionstamp instead of reading the record first, and reads it only when the
   * check fails (another step or process changed it), so answers never depend on it.
   */
  #written = new WeakMap<IdempotencyClaim, Deno.KvEntry<ClaimRecord>>();

  constructor(kv: Deno.Kv, options: IdempotencyStoreOptions = {}) {
    this.#kv = kv;
    this.#clock = options.clock ?? systemClock;
    this.#leaseMs = options.claimLeaseMs ?? 60_000;
  }

  /**
   * Claims `ref` for one request before the command changes anything. Of concurrent claims of one
   * key exactly one answers `replayed: false`; the others find it in progress. A key throws unless
   * `isValidIdempotencyKey`: the route refuses it first.
   */
  async claim(
    ref: IdempotencyRef,
    options: ClaimOptions,
  ): Promise<ClaimResult> {
    const { method, path, bodyDigest, retentionMs } = options;
    if (!isValidIdempotencyKey(ref.key)) {
      throw new TypeError(
        `Cannot claim idempotency key "${ref.key}": expected 1 to 128 visible ASCII characters`,
      );
    }
    if (!Number.isInteger(retentionMs) || retentionMs < 1) {
      throw new RangeError(
        `Cannot keep an idempotency key for ${retentionMs} ms: expected a positive integer`,
      );
    }
    const fingerprint = await sha256Hex(
      JSON.stringify([method.toUpperCase(), path, bodyDigest]),
    );
    const key = [PREFIX, ...ref.scope, ref.key];
    // Most keys are new: claim one as absent first, and read what is there only when that fails.
    const first = await this.#claimFresh(ref, key, fingerprint, retentionMs, {
      key,
      value: null,
      versionstamp: null,
    });
    if (first) return first;
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const current = await this.#kv.get<ClaimRecord>(key);
      const now = this.#clock.now().getTime();
      const record = current.value !== null && now < current.value.expiresAt
        ? current.value
        : null;
      if (record === null) {
        const fresh = await this.#claimFresh(
          ref,
          key,
          fingerprint,
          retentionMs,
          current,
        );
        if (fresh) return fresh;
        continue;
      }
      if (record.fingerprint !== fingerprint) {
        return { ok: false, code: "idempotency_key_reused" };
      }
      if (record.answer !== null) {
        const answer = await readAnswer(this.#kv, record.token, record.answer);
        return {
          ok: true,
          replayed: true,
          answer,
          answeredAt: new Date(record.answer.answeredAt),
        };
      }
      const leftMs = record.claimedAt + this.#leaseMs - now;
      if (leftMs > 0) {
        const retryAfterSeconds = Math.min(
          Math.ceil(leftMs / 1000),
          MAX_RETRY_AFTER_SECONDS,
        );
        return {
          ok: false,
          code: "idempotency_in_progress",
          pending: false,
          retryAfterSeconds,
        };
      }
      const claim = toClaim(ref, record);
      return {
        ok: false,
        code: "idempotency_in_progress",
        pending: true,
        retryAfterSeconds: null,
        claim,
      };
    }
    throw new Error(
      `Cannot claim idempotency key "${ref.key}": still contended after ${MAX_ATTEMPTS} attempts`,
    );
  }

  /** Writes a fresh claim over `current` (absent or expired); null when `current` changed meanwhile. */
  async #claimFresh(
    ref: IdempotencyRef,
    key: Deno.KvKey,
    fingerprint: string,
    retentionMs: number,
    current: Deno.KvEntryMaybe<ClaimRecord>,
  ): Promise<ClaimResult | null> {
    const now = this.#clock.now().getTime();
    const fresh: ClaimRecord = {
      token: crypto.randomUUID(),
      fingerprint,
      claimedAt: now,
      expiresAt: now + retentionMs,
      answer: null,
    };
    const committed = await this.#kv.atomic().check(current).set(
      key,
      fresh,
      { expireIn: retentionMs },
    ).commit();
    if (!committed.ok) return null;
    const claim = toClaim(ref, fresh);
    this.#written.set(claim, {
      key,
      value: fresh,
      versionstamp: committed.versionstamp,
    });
    return { ok: true, replayed: false, claim };
  }

  /** Stores the first answer of the command holding `claim`; later claims of the key replay it. */
  async answer(
    claim: IdempotencyClaim,
    answer: IdempotentAnswer,
  ): Promise<{ ok: true } | ClaimChanged> {
    const result = await this.#step(
      claim,
      (now) => answered(planAnswer(answer, now)),
    );
    return result.ok ? { ok: true } : result;
  }

  /** Frees `claim` after a refused or failed command: nothing was written, so a retry runs it again. */
  async free(claim: IdempotencyClaim): Promise<{ ok: true } | ClaimChanged> {
    const result = await this.#step(claim, () => "delete");
    return result.ok ? { ok: true } : result;
  }

  /**
   * Records `answer`, proved from Postgres, for a pending claim whose answer was lost, and answers
   * what to replay: when the claim was answered meanwhile, its stored first answer wins.
   */
  async settle(
    claim: IdempotencyClaim,
    answer: IdempotentAnswer,
  ): Promise<{ ok: true; answer: IdempotentAnswer } | ClaimChanged> {
    const result = await this.#step(
      claim,
      (now) => answered(planAnswer(answer, now)),
      true,
    );
    return result.ok ? { ok: true, answer: result.answer ?? answer } : result;
  }

  /** Takes over a pending claim to run its command again: the lease restarts, the retention does not. */
  async reclaim(
    claim: IdempotencyClaim,
  ): Promise<{ ok: true; claim: IdempotencyClaim } | ClaimChanged> {
    const token = crypto.randomUUID();
    const result = await this.#step(
      claim,
      (now) => ({ record: { token, claimedAt: now }, parts: [] }),
    );
    return result.ok
      ? { ok: true, claim: toClaim(claim, result.record!) }
      : result;
  }

  /**
   * Applies `change` to the live, unanswered record of `claim` under a version check, retrying on
   * conflict. With `acceptAnswered`, an answered record of the same claim gives its stored answer.
   */
  async #step(
    claim: IdempotencyClaim,
    change: (now: number) => Change,
    acceptAnswered = false,
  ): Promise<StepResult> {
    const key = [PREFIX, ...claim.scope, claim.key];
    // The record this claim wrote, if it is still there unchanged: the commit's check tells.
    const written = this.#written.get(claim);
    this.#written.delete(claim);
    if (written) {
      const result = await this.#apply(claim, written, change, acceptAnswered);
      if (result) return result;
    }
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const current = await this.#kv.get<ClaimRecord>(key);
      const result = await this.#apply(claim, current, change, acceptAnswered);
      if (result) return result;
    }
    throw new Error(
      `Cannot update idempotency key "${claim.key}": still contended after ${MAX_ATTEMPTS} attempts`,
    );
  }

  /** One attempt of {@linkcode IdempotencyStore.#step} on `current`; null when its commit lost. */
  async #apply(
    claim: IdempotencyClaim,
    current: Deno.KvEntryMaybe<ClaimRecord>,
    change: (now: number) => Change,
    acceptAnswered: boolean,
  ): Promise<StepResult | null> {
    const now = this.#clock.now().getTime();
    const record = current.value;
    if (
      record === null || now >= record.expiresAt ||
      record.token !== claim.token
    ) {
      return { ok: false, code: "claim_changed" };
    }
    if (record.answer !== null) {
      if (!acceptAnswered) return { ok: false, code: "claim_changed" };
      return {
        ok: true,
        record,
        answer: await readAnswer(this.#kv, record.token, record.answer),
      };
    }
    const planned = change(now);
    const op = this.#kv.atomic().check(current);
    let next: ClaimRecord | null = null;
    if (planned === "delete") {
      op.delete(current.key);
    } else {
      next = { ...record, ...planned.record };
      const expireIn = record.expiresAt - now;
      op.set(current.key, next, { expireIn });
      // Parts are keyed by the claim's token, so parts of two claims of one key never mix.
      planned.parts.forEach((part, i) =>
        op.set(answerPartKey(next!.token, i), part, { expireIn })
      );
    }
    return (await op.commit()).ok ? { ok: true, record: next } : null;
  }
}

function answered(planned: PlannedAnswer): Change {
  return { record: { answer: planned.stored }, parts: planned.parts };
}

function toClaim(ref: IdempotencyRef, record: ClaimRecord): IdempotencyClaim {
  const { token, claimedAt, expiresAt } = record;
  return {
    scope: [...ref.scope],
    key: ref.key,
    token,
    claimedAt: new Date(claimedAt),
    expiresAt: new Date(expiresAt),
  };
}
