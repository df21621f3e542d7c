// Runs a keyed write under its Idempotency-Key: claim first, answer or free, replay, and settle a lost answer (spec 2, 4.1 and 4.3).
import { sha256Hex } from "../kv/digest.ts";
import {
  type IdempotencyClaim,
  type IdempotencyStore,
} from "../kv/idempotency_store.ts";
import { isValidIdempotencyKey } from "../kv/idempotency_key.ts";
import type { IdempotentAnswer } from "../kv/idempotent_answer.ts";
import type { LogEntry } from "../services.ts";
import { refuse } from "../web/errors.ts";
import { isConnectionError } from "../../plugins/sdk/pg_faults.ts";
import { type KeyRule, retentionMs } from "./contract/operation.ts";

/** An answer ready to send: status, headers and the JSON body text. */
export interface SentAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** What {@link runKeyed} needs. */
export interface RunKeyedOptions {
  store: IdempotencyStore;
  rule: KeyRule;
  /** Where keys of this caller live: `["manage", siteId, credentialId]`. */
  scope: string[];
  /** The validated key. */
  key: string;
  method: string;
  /** Path and query string: a retry must name the same resource. */
  target: string;
  rawBody: Uint8Array;
  /** Runs the command; throws on a refusal or failure (the key is then freed). */
  run(): Promise<SentAnswer>;
  /** Throws a refusal when a stored answer may no longer be replayed to this caller. */
  beforeReplay?(): Promise<void>;
  /** For `settle: "prove"`: the first answer, proved from what was written, or null. */
  prove?(): Promise<SentAnswer | null>;
  log(entry: LogEntry): void;
}

/** Reads the `Idempotency-Key` header of a keyed write: required, 1 to 128 visible ASCII characters. */
export function requireIdempotencyKey(headers: Headers): string {
  const key = headers.get("idempotency-key");
  if (key === null) {
    refuse(
      400,
      "invalid_request",
      "This route needs an Idempotency-Key header",
      { issues: [{ path: "header.idempotency-key", message: "required" }] },
    );
  }
  if (!isValidIdempotencyKey(key)) {
    refuse(
      400,
      "invalid_request",
      "Idempotency-Key must be 1 to 128 visible ASCII characters (0x21 to 0x7E, no spaces)",
      {
        issues: [{
          path: "header.idempotency-key",
          message: "expected 1 to 128 visible ASCII characters",
        }],
      },
    );
  }
  return key;
}

/** The digest a command stores with its effect to name the key it ran under. */
export function keyDigestOf(scope: string[], key: string): Promise<string> {
  return sha256Hex(JSON.stringify([...scope, key]));
}

/**
 * Marks a stored first answer as a replay: its JSON object gets `replayed: true` and loses
 * the keys only a first answer carries.
 */
export function asReplay(
  answer: IdempotentAnswer,
  omit: readonly string[] = [],
  replayAs: Readonly<Record<string, unknown>> = {},
): SentAnswer {
  let body = answer.body;
  try {
    const value = JSON.parse(body);
    if (value !== null && typeof value === "object" && !Array.isArray(value)) {
      for (const key of omit) delete value[key];
      body = JSON.stringify({ ...value, ...replayAs, replayed: true });
    }
  } catch {
    // Not JSON: replayed as stored; the header still says so.
  }
  return {
    status: answer.status,
    headers: { ...answer.headers, "idempotent-replayed": "true" },
    body,
  };
}

const MAX_ROUNDS = 3;

/**
 * Runs a keyed write. Claims the key (a different request under it: `409
 * idempotency_key_reused`; a running first request: `409 idempotency_in_progress` with
 * `Retry-After`; an answered one: its exact first answer, `replayed: true`). A claim
 * whose answer was lost is settled by the rule: `prove` answers from what was written,
 * else runs again; `rerun` runs again; `hold` answers 409 without `Retry-After`.
 */
export async function runKeyed(options: RunKeyedOptions): Promise<SentAnswer> {
  const { store, rule } = options;
  const ref = { scope: options.scope, key: options.key };
  const claimOptions = {
    method: options.method,
    path: options.target,
    bodyDigest: await sha256Hex(options.rawBody),
    retentionMs: retentionMs(rule.retention),
  };
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const result = await store.claim(ref, claimOptions);
    if (result.ok && !result.replayed) {
      return await runClaimed(options, result.claim);
    }
    if (result.ok) {
      await options.beforeReplay?.();
      return asReplay(result.answer, rule.omitOnReplay, rule.replayAs);
    }
    if (result.code === "idempotency_key_reused") {
      refuse(
        409,
        "idempotency_key_reused",
        "This Idempotency-Key was used for a different request: send a new key",
      );
    }
    if (!result.pending) {
      refuse(
        409,
        "idempotency_in_progress",
        `A request with this Idempotency-Key is still running: retry after ${result.retryAfterSeconds} s`,
        { retry_after_seconds: result.retryAfterSeconds },
        { "Retry-After": String(result.retryAfterSeconds) },
      );
    }
    // The first request claimed the key and never answered: settle it (spec 2, 4.3).
    if (rule.settle === "hold") {
      refuse(
        409,
        "idempotency_in_progress",
        "A request with this Idempotency-Key never finished and cannot be settled yet",
        { pending: true },
      );
    }
    if (rule.settle === "prove") {
      const proved = options.prove ? await options.prove() : null;
      if (proved) {
        const settled = await store.settle(result.claim, stored(proved));
        if (settled.ok) {
          await options.beforeReplay?.();
          return asReplay(settled.answer, rule.omitOnReplay, rule.replayAs);
        }
        continue;
      }
    }
    const reclaimed = await store.reclaim(result.claim);
    if (reclaimed.ok) return await runClaimed(options, reclaimed.claim);
  }
  throw new Error(
    `Cannot settle Idempotency-Key: the claim kept changing for ${MAX_ROUNDS} rounds`,
  );
}

async function runClaimed(
  options: RunKeyedOptions,
  claim: IdempotencyClaim,
): Promise<SentAnswer> {
  let answer: SentAnswer;
  try {
    answer = await options.run();
  } catch (error) {
    if (isConnectionError(error) && options.rule.settle === "prove") {
      const proved = await proveAfterLostConnection(options, claim, error);
      if (proved) return proved;
    }
    // A refused or failed command wrote nothing: free the key so a retry runs it again.
    await options.store.free(claim);
    throw error;
  }
  const kept = await options.store.answer(claim, stored(answer));
  if (!kept.ok) {
    options.log({
      level: "warn",
      msg: "idempotent answer not kept",
      reason: kept.code,
      method: options.method,
    });
  }
  return answer;
}

/**
 * A connection lost while a command ran leaves one doubt: a commit whose acknowledgement never
 * came back. A command that records its answer with its effect settles it at once, as a retry
 * would: the written answer (`replayed: true`), or null when nothing was written (the caller
 * frees the key). When even that read fails the claim is left as it is, pending, and the
 * original error is thrown: a retry within the lease is `idempotency_in_progress`, after it
 * the claim is settled the same way (spec 2, 4.3).
 */
async function proveAfterLostConnection(
  options: RunKeyedOptions,
  claim: IdempotencyClaim,
  lost: unknown,
): Promise<SentAnswer | null> {
  let proved: SentAnswer | null;
  try {
    proved = options.prove ? await options.prove() : null;
  } catch {
    throw lost;
  }
  if (!proved) return null;
  const settled = await options.store.settle(claim, stored(proved));
  if (!settled.ok) throw lost;
  return asReplay(
    settled.answer,
    options.rule.omitOnReplay,
    options.rule.replayAs,
  );
}

function stored(answer: SentAnswer): IdempotentAnswer {
  return {
    status: answer.status,
    headers: {
      "content-type": answer.headers["content-type"] ?? "application/json",
    },
    body: answer.body,
  };
}
