// Signed, scope-bound sync cursors and checkpoints: a JSON payload under HMAC-SHA256 (spec 3 part 4.5).
import type { Db } from "../db/database.ts";
import { base64url, randomToken } from "../auth/secrets.ts";

/** The instance key's name; created on first use, kept apart from list cursors' key. */
export const SYNC_KEY_NAME = "sync_checkpoint_hmac";
const FORMAT = 1;

/** Where a sync client is: reading the snapshot after a group id, or the change log after a sequence. */
export type SyncPosition =
  | { phase: "snapshot"; after: string | null; highWater: number }
  | { phase: "changes"; afterSeq: number };

/** What a cursor or checkpoint binds to: site, model filter, language, token scope, schema. */
export interface SyncBinding {
  site: string;
  model: string | null;
  locale: string;
  /** `public`, or the site API token id whose scope the answer used. */
  scope: string;
  /** Digest of what shapes the answer (languages, policy, models and fields in scope). */
  schema: string;
}

/** A decoded cursor: binding, position and when it was issued (ms since the epoch). */
export interface SyncCursor {
  binding: SyncBinding;
  position: SyncPosition;
  issuedAt: number;
}

const keys = new WeakMap<Db, Promise<CryptoKey>>();

function syncKey(db: Db): Promise<CryptoKey> {
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
    name: SYNC_KEY_NAME,
    secret: randomToken(),
    created_at: new Date(),
  }).onConflict((oc) => oc.column("name").doNothing()).execute();
  const row = await db.selectFrom("instance_keys").select("secret")
    .where("name", "=", SYNC_KEY_NAME).executeTakeFirstOrThrow();
  return await crypto.subtle.importKey(
    "raw",
    new TextEncoder().encode(row.secret),
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign", "verify"],
  );
}

/** Signs a cursor into the opaque text a client sends back unmodified. */
export async function encodeSyncCursor(
  db: Db,
  cursor: SyncCursor,
): Promise<string> {
  const body = base64url(
    new TextEncoder().encode(JSON.stringify({ v: FORMAT, ...cursor })),
  );
  const mac = await crypto.subtle.sign(
    "HMAC",
    await syncKey(db),
    new TextEncoder().encode(body),
  );
  return `${body}.${base64url(new Uint8Array(mac))}`;
}

/** Verifies and decodes a cursor; null when malformed, forged or of another format. */
export async function decodeSyncCursor(
  db: Db,
  text: string,
): Promise<SyncCursor | null> {
  const match = /^([A-Za-z0-9_-]{1,4000})\.([A-Za-z0-9_-]{43})$/.exec(text);
  if (!match) return null;
  const ok = await crypto.subtle.verify(
    "HMAC",
    await syncKey(db),
    fromBase64url(match[2]),
    new TextEncoder().encode(match[1]),
  );
  if (!ok) return null;
  try {
    const raw = JSON.parse(
      new TextDecoder().decode(fromBase64url(match[1])),
    );
    if (raw?.v !== FORMAT || typeof raw.issuedAt !== "number") return null;
    if (!raw.binding || !raw.position) return null;
    return {
      binding: raw.binding,
      position: raw.position,
      issuedAt: raw.issuedAt,
    };
  } catch {
    return null;
  }
}

function fromBase64url(text: string): Uint8Array<ArrayBuffer> {
  const b64 = text.replaceAll("-", "+").replaceAll("_", "/");
  const binary = atob(b64 + "=".repeat((4 - b64.length % 4) % 4));
  return Uint8Array.from(binary, (c) => c.charCodeAt(0));
}
