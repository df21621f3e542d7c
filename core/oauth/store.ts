// Interactive login's records: loopback clients and refresh tokens in PostgreSQL, codes and access tokens in KV, all by digest.
import { randomToken, sha256Hex } from "../auth/secrets.ts";
import type { Clock } from "../clock.ts";
import {
  type CredentialRecord,
  insertCredential,
} from "../credentials/credential_store.ts";
import type { Db } from "../db/database.ts";

/** How long an authorization code works. */
export const CODE_LIFETIME_MS = 60_000;
/** How long an access token works; the CLI and agents renew with the refresh token. */
export const ACCESS_TOKEN_LIFETIME_MS = 60 * 60 * 1000;
/** A refresh token unused this long stops working (spec 2 part 8); every use rotates it. */
export const REFRESH_TOKEN_LIFETIME_MS = 30 * 24 * 60 * 60 * 1000;
/** Prefixes that say what a token is, so a leaked one is recognisable. */
export const ACCESS_TOKEN_PREFIX = "sva_";
export const REFRESH_TOKEN_PREFIX = "svr_";
export const CODE_PREFIX = "svc_";

/** A registered client. */
export interface OAuthClient {
  id: string;
  name: string;
  redirectUris: string[];
}

/** What an authorization code is bound to. */
export interface CodeRecord {
  clientId: string;
  redirectUri: string;
  siteId: string;
  userId: string;
  scopes: string[];
  codeChallenge: string;
  codeChallengeMethod: string;
  expiresAt: number;
}

/** The stores of interactive login. */
export interface OAuthStores {
  db: Db;
  kv: Deno.Kv;
  clock: Clock;
}

/** True for `http://127.0.0.1:<port>/…`, `http://localhost:<port>/…` and `http://[::1]:<port>/…` without query or fragment. */
export function isLoopbackRedirect(uri: string): boolean {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return false;
  }
  return url.protocol === "http:" &&
    ["127.0.0.1", "localhost", "[::1]"].includes(url.hostname) &&
    url.username === "" && url.password === "" && url.search === "" &&
    url.hash === "" && url.href === uri.replace(/^HTTP:/i, "http:");
}

/** Registers a client with its loopback redirect URIs. */
export async function registerClient(
  stores: OAuthStores,
  input: { name: string; redirectUris: string[] },
): Promise<OAuthClient> {
  const client = {
    id: `svcl_${randomToken()}`,
    name: input.name,
    redirectUris: input.redirectUris,
  };
  await stores.db.insertInto("oauth_clients").values({
    id: client.id,
    name: client.name,
    redirect_uris: JSON.stringify(client.redirectUris),
    created_at: stores.clock.now(),
  }).execute();
  return client;
}

/** A registered client by id. */
export async function findClient(
  db: Db,
  id: string,
): Promise<OAuthClient | null> {
  if (id.length > 200) return null;
  const row = await db.selectFrom("oauth_clients").selectAll().where(
    "id",
    "=",
    id,
  ).executeTakeFirst();
  if (!row) return null;
  return {
    id: row.id,
    name: row.name,
    redirectUris:
      (typeof row.redirect_uris === "string"
        ? JSON.parse(row.redirect_uris)
        : row.redirect_uris) as string[],
  };
}

function codeKey(digest: string): Deno.KvKey {
  return ["oauth", "code", digest];
}

function accessKey(digest: string): Deno.KvKey {
  return ["oauth", "access", digest];
}

/** Keeps a code's binding under its digest until it expires. */
export async function saveCode(
  stores: OAuthStores,
  code: string,
  record: Omit<CodeRecord, "expiresAt">,
): Promise<CodeRecord> {
  const full = {
    ...record,
    expiresAt: stores.clock.now().getTime() + CODE_LIFETIME_MS,
  };
  await stores.kv.set(codeKey(await sha256Hex(code)), full, {
    expireIn: CODE_LIFETIME_MS,
  });
  return full;
}

/** A code's binding while it is unused and unexpired (KV expiry is lazy, so expiry is checked here). */
export async function findCode(
  stores: OAuthStores,
  code: string,
): Promise<CodeRecord | null> {
  const entry = await stores.kv.get<CodeRecord>(codeKey(await sha256Hex(code)));
  if (!entry.value) return null;
  if (entry.value.expiresAt <= stores.clock.now().getTime()) return null;
  return entry.value;
}

/**
 * How long a used code is remembered, so that a replay of it revokes the sign-in its first
 * exchange created (RFC 6749 section 4.1.2): as long as that exchange's refresh token lives unused.
 */
export const USED_CODE_MEMORY_MS = REFRESH_TOKEN_LIFETIME_MS;

/** What is kept of a code once exchanged: the sign-in it became, and whether it was replayed. */
interface UsedCode {
  credentialId: string | null;
  replayed: boolean;
  expiresAt: number;
}

function usedCodeKey(digest: string): Deno.KvKey {
  return ["oauth", "used_code", digest];
}

/** Uses a code up; true for exactly one caller. The code is remembered as used. */
export async function consumeCode(
  stores: OAuthStores,
  code: string,
): Promise<boolean> {
  const digest = await sha256Hex(code);
  const key = codeKey(digest);
  const entry = await stores.kv.get<CodeRecord>(key);
  if (!entry.value) return false;
  const used: UsedCode = {
    credentialId: null,
    replayed: false,
    expiresAt: stores.clock.now().getTime() + USED_CODE_MEMORY_MS,
  };
  const done = await stores.kv.atomic().check(entry).delete(key)
    .set(usedCodeKey(digest), used, { expireIn: USED_CODE_MEMORY_MS })
    .commit();
  return done.ok;
}

/** Changes a used code's record under a versionstamp check; answers the record as written, or null when none is kept. */
async function updateUsedCode(
  stores: OAuthStores,
  code: string,
  change: (used: UsedCode) => UsedCode,
): Promise<UsedCode | null> {
  const key = usedCodeKey(await sha256Hex(code));
  for (;;) {
    const entry = await stores.kv.get<UsedCode>(key);
    if (!entry.value) return null;
    if (entry.value.expiresAt <= stores.clock.now().getTime()) return null;
    const next = change(entry.value);
    const done = await stores.kv.atomic().check(entry).set(key, next, {
      expireIn: Math.max(1, next.expiresAt - stores.clock.now().getTime()),
    }).commit();
    if (done.ok) return next;
  }
}

/**
 * Binds a used code to the sign-in its exchange created. When a replay was seen in
 * between, the sign-in is revoked at once, so no token of that code outlives the replay.
 */
export async function linkCodeToSignIn(
  stores: OAuthStores,
  code: string,
  credentialId: string,
): Promise<void> {
  const used = await updateUsedCode(
    stores,
    code,
    (u) => ({ ...u, credentialId }),
  );
  if (used?.replayed) await revokeSignIn(stores, credentialId);
}

/**
 * A second exchange of a code (RFC 6749 section 4.1.2): every access and refresh token
 * issued from its first exchange is revoked. True when the code was a used one.
 */
export async function revokeReplayedCode(
  stores: OAuthStores,
  code: string,
): Promise<boolean> {
  if (code.length > 200) return false;
  const used = await updateUsedCode(
    stores,
    code,
    (u) => ({ ...u, replayed: true }),
  );
  if (!used) return false;
  if (used.credentialId !== null) {
    await revokeSignIn(stores, used.credentialId);
  }
  return true;
}

/** A new sign-in: a management credential acting as the person, named after the client. */
export async function createSignInCredential(
  stores: OAuthStores,
  input: {
    siteId: string;
    userId: string;
    scopes: string[];
    client: OAuthClient;
  },
): Promise<CredentialRecord> {
  const { credential } = await insertCredential(stores.db, stores.clock, {
    siteId: input.siteId,
    creatorId: input.userId,
    name: `Sign-in: ${input.client.name}`.slice(0, 200),
    scopes: input.scopes,
    models: null,
  });
  return credential;
}

/** Keeps an access token's digest for a sign-in's credential until it expires. */
export async function saveAccessToken(
  stores: OAuthStores,
  token: string,
  credentialId: string,
): Promise<{ token: string; expiresAt: Date }> {
  const expiresAt = stores.clock.now().getTime() + ACCESS_TOKEN_LIFETIME_MS;
  await stores.kv.set(
    accessKey(await sha256Hex(token)),
    { credentialId, expiresAt },
    { expireIn: ACCESS_TOKEN_LIFETIME_MS },
  );
  return { token, expiresAt: new Date(expiresAt) };
}

/** The credential an unexpired access token stands for. */
export async function credentialIdOfAccessToken(
  stores: Pick<OAuthStores, "kv" | "clock">,
  token: string,
): Promise<string | null> {
  if (!/^sva_[A-Za-z0-9_-]{43}$/.test(token)) return null;
  const entry = await stores.kv.get<
    { credentialId: string; expiresAt: number }
  >(
    accessKey(await sha256Hex(token)),
  );
  if (!entry.value) return null;
  if (entry.value.expiresAt <= stores.clock.now().getTime()) return null;
  return entry.value.credentialId;
}

/** Stores a refresh token's digest, valid 30 days from now. */
export async function saveRefreshToken(
  stores: OAuthStores,
  input: { token: string; credentialId: string; clientId: string },
): Promise<Date> {
  const expiresAt = new Date(
    stores.clock.now().getTime() + REFRESH_TOKEN_LIFETIME_MS,
  );
  await stores.db.insertInto("oauth_refresh_tokens").values({
    token_digest: await sha256Hex(input.token),
    credential_id: input.credentialId,
    client_id: input.clientId,
    created_at: stores.clock.now(),
    expires_at: expiresAt,
  }).execute();
  return expiresAt;
}

/** A live refresh token: unexpired, of a credential not revoked. */
export async function findRefreshToken(
  stores: OAuthStores,
  token: string,
): Promise<
  {
    credentialId: string;
    clientId: string;
    siteId: string;
    userId: string;
    scopes: string[];
  } | null
> {
  if (!/^svr_[A-Za-z0-9_-]{43}$/.test(token)) return null;
  const row = await stores.db.selectFrom("oauth_refresh_tokens as t")
    .innerJoin("management_credentials as c", "c.id", "t.credential_id")
    .select([
      "t.credential_id",
      "t.client_id",
      "t.expires_at",
      "c.site_id",
      "c.creator_id",
      "c.scopes",
    ])
    .where("t.token_digest", "=", await sha256Hex(token))
    .where("c.revoked_at", "is", null)
    .executeTakeFirst();
  if (!row || new Date(row.expires_at) <= stores.clock.now()) return null;
  return {
    credentialId: row.credential_id,
    clientId: row.client_id,
    siteId: row.site_id,
    userId: row.creator_id,
    scopes:
      (typeof row.scopes === "string"
        ? JSON.parse(row.scopes)
        : row.scopes) as string[],
  };
}

/** Deletes one refresh token (it was just used); true when it was still there. */
export async function deleteRefreshToken(
  db: Db,
  token: string,
): Promise<boolean> {
  const deleted = await db.deleteFrom("oauth_refresh_tokens")
    .where("token_digest", "=", await sha256Hex(token))
    .executeTakeFirst();
  return Number(deleted.numDeletedRows) === 1;
}

/** Ends a sign-in: its credential is revoked and its refresh tokens deleted, so access tokens stop at once too. */
export async function revokeSignIn(
  stores: OAuthStores,
  credentialId: string,
): Promise<void> {
  await stores.db.transaction().execute(async (tx) => {
    await tx.updateTable("management_credentials").set({
      revoked_at: stores.clock.now(),
    }).where("id", "=", credentialId).where("revoked_at", "is", null)
      .execute();
    await tx.deleteFrom("oauth_refresh_tokens").where(
      "credential_id",
      "=",
      credentialId,
    ).execute();
  });
}
