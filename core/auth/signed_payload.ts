// Opaque tokens the service hands out and must recognise again (cursors, checkpoints): a JSON
// payload in base64url, signed with HMAC-SHA256 under an installation key kept in `instance_keys`.
import { Buffer } from "node:buffer";
import { createHash, timingSafeEqual } from "node:crypto";
import { type Db, primaryOf } from "../db/database.ts";
import { randomToken } from "./secrets.ts";

// Keys never change once created, so each database handle reads each one once.
const keys = new WeakMap<Db, Map<string, Promise<Uint8Array>>>();

/** The installation's key named `name`, created on first use by whichever instance comes first. */
export function instanceKey(db: Db, name: string): Promise<Uint8Array> {
  let byName = keys.get(db);
  if (!byName) keys.set(db, byName = new Map());
  let key = byName.get(name);
  if (!key) {
    key = loadKey(db, name);
    key.catch(() => byName.delete(name));
    byName.set(name, key);
  }
  return key;
}

async function loadKey(db: Db, name: string): Promise<Uint8Array> {
  const kept = await db.selectFrom("instance_keys").select("secret")
    .where("name", "=", name).executeTakeFirst();
  if (kept) return new TextEncoder().encode(kept.secret);
  // A read replica cannot write: the key is made on the primary and read back from it.
  const primary = primaryOf(db);
  await primary.insertInto("instance_keys").values({
    name,
    secret: randomToken(),
    created_at: new Date(),
  })
    .onConflict((oc) => oc.column("name").doNothing()).execute();
  const row = await primary.selectFrom("instance_keys").select("secret")
    .where("name", "=", name).executeTakeFirstOrThrow();
  return new TextEncoder().encode(row.secret);
}

const BLOCK = 64;
const pads = new WeakMap<Uint8Array, { inner: Buffer; outer: Buffer }>();

/**
 * HMAC-SHA256 (RFC 2104) over two plain hashes with the key's pads computed once per key: the
 * same bytes as `createHmac`, at half its cost in Deno (about 7 against 15 us; every cursor a list
 * answers is signed, and every cursor sent back is checked).
 */
export function mac(key: Uint8Array, body: string): Buffer {
  let pad = pads.get(key);
  if (!pad) {
    const block = Buffer.alloc(BLOCK);
    block.set(
      key.length > BLOCK ? createHash("sha256").update(key).digest() : key,
    );
    pad = {
      inner: Buffer.from(block.map((b) => b ^ 0x36)),
      outer: Buffer.from(block.map((b) => b ^ 0x5c)),
    };
    pads.set(key, pad);
  }
  const inner = createHash("sha256").update(pad.inner).update(body).digest();
  return createHash("sha256").update(pad.outer).update(inner).digest();
}

/** `<base64url JSON>.<base64url HMAC>` of `payload`. */
export function signPayload(key: Uint8Array, payload: unknown): string {
  const body = Buffer.from(JSON.stringify(payload)).toString("base64url");
  return `${body}.${mac(key, body).toString("base64url")}`;
}

/** The payload of a text {@link signPayload} made with `key`; null when malformed or forged. */
export function verifyPayload(key: Uint8Array, text: string): unknown {
  const match = /^([A-Za-z0-9_-]{1,4000})\.([A-Za-z0-9_-]{43})$/.exec(text);
  if (!match) return null;
  const sent = Buffer.from(match[2], "base64url");
  const expected = mac(key, match[1]);
  if (sent.length !== expected.length || !timingSafeEqual(sent, expected)) {
    return null;
  }
  try {
    return JSON.parse(Buffer.from(match[1], "base64url").toString("utf8"));
  } catch {
    return null;
  }
}
