// Idempotency-Key for plugin commands: claim first, replay the whole first result as `idempotent_replay`.
import { sha256Hex, sha256HexSync } from "../kv/digest.ts";
import {
  IDEMPOTENCY_RETENTION_LONG_MS,
  isValidIdempotencyKey,
} from "../kv/idempotency_key.ts";
import type {
  IdempotencyClaim,
  IdempotencyStore,
} from "../kv/idempotency_store.ts";
import type { Installation } from "./installation_store.ts";
import { outcomeResponse } from "./protocol.ts";

/** The key of a command, or a refusal answer when it is missing or malformed. */
export function commandKey(headers: Headers): string | Response {
  const key = headers.get("idempotency-key");
  if (key === null || !isValidIdempotencyKey(key)) {
    return outcomeResponse(
      "invalid_request",
      "Every command needs an Idempotency-Key header of 1 to 128 visible ASCII characters",
    );
  }
  return key;
}

/** The digest kept with the effect (workflow event, audit): never the key itself. */
export function keyDigest(installation: Installation, key: string): string {
  return sha256HexSync(JSON.stringify(["plugin", installation.id, key]));
}

/** Options of {@linkcode runPluginCommand}. */
export interface PluginCommandOptions {
  store: IdempotencyStore;
  installation: Installation;
  key: string;
  method: string;
  path: string;
  /** The body as sent (or, for a multipart upload, what its form says): its digest binds the key. */
  rawBody: string;
  /** Runs the command: an answer with `applied: true` is kept for replays; a refusal frees the key. */
  run(): Promise<{ applied: boolean; response: Response }>;
}

/**
 * Runs a plugin command under its key. The same key with another request is
 * `idempotency_key_reused`; a running first request is `temporary_failure` with
 * `Retry-After`; an applied key answers the whole first result with the code
 * `idempotent_replay`, even when the person has since lost authority (spec 1 part 5.8).
 */
export async function runPluginCommand(
  options: PluginCommandOptions,
): Promise<Response> {
  const ref = {
    scope: ["plugin", options.installation.siteId, options.installation.id],
    key: options.key,
  };
  const claimOptions = {
    method: options.method,
    path: options.path,
    bodyDigest: await sha256Hex(options.rawBody),
    retentionMs: IDEMPOTENCY_RETENTION_LONG_MS,
  };
  for (let round = 0; round < 3; round++) {
    const claimed = await options.store.claim(ref, claimOptions);
    if (claimed.ok && claimed.replayed) return replay(claimed.answer);
    if (!claimed.ok && claimed.code === "idempotency_key_reused") {
      return outcomeResponse(
        "idempotency_key_reused",
        "This Idempotency-Key was used for a different request",
      );
    }
    if (!claimed.ok && !claimed.pending) {
      return outcomeResponse(
        "temporary_failure",
        "A request with this Idempotency-Key is still running",
        { retryAfterSeconds: claimed.retryAfterSeconds },
      );
    }
    // A first request that never answered: its pins make a second run safe (a moved
    // revision answers workflow_conflict rather than applying twice).
    let handle: IdempotencyClaim;
    if (claimed.ok) {
      handle = claimed.claim;
    } else {
      const reclaimed = await options.store.reclaim(claimed.claim);
      if (!reclaimed.ok) continue;
      handle = reclaimed.claim;
    }
    let ran: { applied: boolean; response: Response };
    try {
      ran = await options.run();
    } catch (error) {
      await options.store.free(handle);
      throw error;
    }
    if (!ran.applied) {
      await options.store.free(handle);
      return ran.response;
    }
    const body = await ran.response.text();
    await options.store.answer(handle, {
      status: ran.response.status,
      headers: { "content-type": "application/json" },
      body,
    });
    return new Response(body, {
      status: ran.response.status,
      headers: ran.response.headers,
    });
  }
  return outcomeResponse(
    "temporary_failure",
    "The Idempotency-Key kept changing: retry later",
  );
}

function replay(answer: { status: number; body: string }): Response {
  let body = answer.body;
  try {
    const value = JSON.parse(body);
    if (value?.outcome && typeof value.outcome === "object") {
      value.outcome = {
        code: "idempotent_replay",
        message: "This Idempotency-Key was already applied: the first result",
        retry: false,
      };
      body = JSON.stringify(value);
    }
  } catch {
    // Stored answers are JSON; anything else is replayed as stored.
  }
  return new Response(body, {
    status: answer.status,
    headers: {
      "content-type": "application/json",
      "idempotent-replayed": "true",
    },
  });
}
