// Opaque public cursors: a JSON payload signed with HMAC-SHA256 under a key kept in `instance_keys`.
import type { Db } from "../db/database.ts";
import { base64url, randomToken } from "../auth/secrets.ts";

/** The instance key's name; created on first use and never rotated by the code. */
export const CURSOR_KEY_NAME = "public_cursor_hmac";
/** Cursors older than this are refused as old (`public_filter_invalid`). */
export const CURSOR_MAX_AGE_MS = 24 * 60 * 60 * 1000;
const FORMAT = 1;

const keys = new WeakMap<Db, Promise<CryptoKey>>();

/** The HMAC key of this installation; read once per database handle (it never changes). */
export function cursorKey(db: Db): Promise<CryptoKey> {
  let key = keys.get(db);
  if (!key) {
    key = loadKey(db);
    key.catch(() => keys.delete(db));
    keys.set(db, key);
  }
  return key;
}

async function loadKey(db: Db): Promise<CryptoKey> {
  await db.insertInto("instance_keys").values({
    name: CURSOR_KEY_NAME,
    secret: randomToken(),
    created_at: new Date(),
  }).onConflict((oc) => oc.column("name").doNothing()).execute();
  const row = await db.selectFrom("instance_keys").select("secret")
    .where("name", "=", CURSOR_KEY_NAME).executeTakeFirstOrThrow();
  return await crypto.subtle.importKey(
    "raw",
    new TextEncoder().encode(row.secret),
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign", "verify"],
  );
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
  const body = base64url(
    new TextEncoder().encode(JSON.stringify({ v: FORMAT, ...payload })),
  );
  const mac = await crypto.subtle.sign(
    "HMAC",
    await cursorKey(db),
    new TextEncoder().encode(body),
  );
  return `${body}.${base64url(new Uint8Array(mac))}`;
}

/** Verifies and decodes a cursor; null when undecodable, forged, of another format or old. */
export async function decodeCursor(
  db: Db,
  text: string,
  now: Date,
): Promise<CursorPayload | null> {
  const match = /^([A-Za-z0-9_-]{1,4000})\.([A-Za-z0-9_-]{43})$/.exec(text);
  if (!match) return null;
  const ok = await crypto.subtle.verify(
    "HMAC",
    await cursorKey(db),
    fromBase64url(match[2]),
    new TextEncoder().encode(match[1]),
  );
  if (!ok) return null;
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
export async function queryDigest(parts: unknown): Promise<string> {
  const digest = await crypto.subtle.digest(
    "SHA-256",
    new TextEncoder().encode(JSON.stringify(parts)),
  );
  return base64url(new Uint8Array(digest)).slice(0, 32);
}
