// Opaque public cursors: a JSON payload signed with HMAC-SHA256 under a key kept in `instance_keys`.
// Hashing uses `node:crypto`: synchronous and about 4-7x cheaper per call than `crypto.subtle` for
// these small inputs, with the same bytes out (see docs/benchmarks.md).
import { createHash } from "node:crypto";
import type { Db } from "../db/database.ts";
import {
  instanceKey,
  signPayload,
  verifyPayload,
} from "../auth/signed_payload.ts";

/** The instance key's name; created on first use and never rotated by the code. */
export const CURSOR_KEY_NAME = "public_cursor_hmac";
/** Cursors older than this are refused as old (`public_filter_invalid`). */
export const CURSOR_MAX_AGE_MS = 24 * 60 * 60 * 1000;
const FORMAT = 1;

/** What a cursor carries: the digest of the query it belongs to and where the next page starts. */
export interface CursorPayload {
  /** Digest of the exact query (site, model, scope, parameters except `limit`). */
  q: string;
  /** Keyset values of the last item served. */
  k: unknown[];
  /** Extra binding checked separately (manual-order revision, source version). */
  x?: unknown;
  /** Issued at, ms since the epoch. */
  t: number;
}

/**
 * Cursors signed lately, by key and payload text. A cursor is stamped to the second, so the
 * same page asked for many times a second (a busy list) signs its next-page cursor once:
 * signing is two SHA-256 runs and two base64 passes, about 4% of a list read's CPU.
 */
let signed = new Map<string, string>();
let signedKey: Uint8Array | null = null;
const SIGNED_MAX = 1000;

/** Signs a payload into the opaque text clients send back; issued at is kept to the second. */
export async function encodeCursor(
  db: Db,
  payload: CursorPayload,
): Promise<string> {
  const key = await instanceKey(db, CURSOR_KEY_NAME);
  const stamped = {
    v: FORMAT,
    ...payload,
    t: Math.floor(payload.t / 1000) * 1000,
  };
  const text = JSON.stringify(stamped);
  if (key !== signedKey || signed.size >= SIGNED_MAX) {
    signed = new Map();
    signedKey = key;
  }
  let cursor = signed.get(text);
  if (cursor === undefined) {
    cursor = signPayload(key, stamped);
    signed.set(text, cursor);
  }
  return cursor;
}

/** Verifies and decodes a cursor; null when undecodable, forged, of another format or old. */
export async function decodeCursor(
  db: Db,
  text: string,
  now: Date,
): Promise<CursorPayload | null> {
  const payload = verifyPayload(await instanceKey(db, CURSOR_KEY_NAME), text) as
    | (CursorPayload & { v?: unknown })
    | null;
  if (
    payload?.v !== FORMAT || typeof payload.q !== "string" ||
    !Array.isArray(payload.k) || typeof payload.t !== "number"
  ) return null;
  const age = now.getTime() - payload.t;
  if (age < -60_000 || age > CURSOR_MAX_AGE_MS) return null;
  const { v: _v, ...cursor } = payload;
  return cursor;
}

/** Digests of recent queries by their JSON text: the same list URLs come back again and again. */
const digests = new Map<string, string>();
const DIGESTS_MAX = 1000;

/** Digest binding a cursor to one exact query. */
export function queryDigest(parts: unknown): string {
  const text = JSON.stringify(parts);
  let digest = digests.get(text);
  if (digest === undefined) {
    digest = createHash("sha256").update(text).digest("base64url").slice(0, 32);
    if (digests.size >= DIGESTS_MAX) digests.clear();
    digests.set(text, digest);
  }
  return digest;
}
