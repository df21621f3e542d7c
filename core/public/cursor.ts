// Opaque public cursors: a JSON payload signed with HMAC-SHA256 under a key kept in `instance_keys`.
// Hashing uses `node:crypto`: synchronous and about 4-7x cheaper per call than `crypto.subtle` for
// these small inputs, with the same bytes out (see docs/benchmarks.md).
import { Buffer } from "node:buffer";
import { createHash, createHmac, timingSafeEqual } from "node:crypto";
import type { Db } from "../db/database.ts";
import { randomToken } from "../auth/secrets.ts";

/** The instance key's name; created on first use and never rotated by the code. */
export const CURSOR_KEY_NAME = "public_cursor_hmac";
/** Cursors older than this are refused as old (`public_filter_invalid`). */
export const CURSOR_MAX_AGE_MS = 24 * 60 * 60 * 1000;
const FORMAT = 1;

const keys = new WeakMap<Db, Promise<Uint8Array>>();

/** The HMAC key of this installation; read once per database handle (it never changes). */
export function cursorKey(db: Db): Promise<Uint8Array> {
  let key = keys.get(db);
  if (!key) {
    key = loadKey(db);
    key.catch(() => keys.delete(db));
    keys.set(db, key);
  }
  return key;
}

async function loadKey(db: Db): Promise<Uint8Array> {
  await db.insertInto("instance_keys").values({
    name: CURSOR_KEY_NAME,
    secret: randomToken(),
    created_at: new Date(),
  }).onConflict((oc) => oc.column("name").doNothing()).execute();
  const row = await db.selectFrom("instance_keys").select("secret")
    .where("name", "=", CURSOR_KEY_NAME).executeTakeFirstOrThrow();
  return new TextEncoder().encode(row.secret);
}

function mac(key: Uint8Array, body: string): Buffer {
  return createHmac("sha256", key).update(body).digest();
}

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

/** Signs a payload into the opaque text clients send back. */
export async function encodeCursor(
  db: Db,
  payload: CursorPayload,
): Promise<string> {
  const body = Buffer.from(JSON.stringify({ v: FORMAT, ...payload }))
    .toString("base64url");
  return `${body}.${mac(await cursorKey(db), body).toString("base64url")}`;
}

/** Verifies and decodes a cursor; null when undecodable, forged, of another format or old. */
export async function decodeCursor(
  db: Db,
  text: string,
  now: Date,
): Promise<CursorPayload | null> {
  const match = /^([A-Za-z0-9_-]{1,4000})\.([A-Za-z0-9_-]{43})$/.exec(text);
  if (!match) return null;
  const sent = Buffer.from(match[2], "base64url");
  const expected = mac(await cursorKey(db), match[1]);
  if (sent.length !== expected.length || !timingSafeEqual(sent, expected)) {
    return null;
  }
  try {
    const payload = JSON.parse(
      new TextDecoder().decode(fromBase64url(match[1])),
    );
    if (
      payload?.v !== FORMAT || typeof payload.q !== "string" ||
      !Array.isArray(payload.k) || typeof payload.t !== "number"
    ) return null;
    const age = now.getTime() - payload.t;
    if (age < -60_000 || age > CURSOR_MAX_AGE_MS) return null;
    return payload as CursorPayload;
  } catch {
    return null;
  }
}

function fromBase64url(text: string): Uint8Array<ArrayBuffer> {
  const b64 = text.replaceAll("-", "+").replaceAll("_", "/");
  const binary = atob(b64 + "=".repeat((4 - b64.length % 4) % 4));
  return Uint8Array.from(binary, (c) => c.charCodeAt(0));
}

/** Digest binding a cursor to one exact query. */
export function queryDigest(parts: unknown): Promise<string> {
  return Promise.resolve(
    createHash("sha256").update(JSON.stringify(parts)).digest("base64url")
      .slice(0, 32),
  );
}
