// Management credentials: `svm_` secrets shown once, stored as SHA-256 digests (spec 2 part 2.1).
import type { Clock } from "../clock.ts";
import type { Db } from "../db/database.ts";
import { randomToken, sha256Hex } from "../auth/secrets.ts";

/** Prefix of every management credential secret. */
export const CREDENTIAL_PREFIX = "svm_";
/** The exact shape of a management credential secret. */
export const CREDENTIAL_PATTERN = /^svm_[A-Za-z0-9_-]{43}$/;

/** Input of {@link insertCredential}; permission checks happen before it is called. */
export interface NewCredential {
  siteId: string;
  creatorId: string;
  name: string;
  scopes: string[];
  models: string[] | null;
}

/** A stored credential, never with its secret. */
export interface CredentialRecord {
  id: string;
  siteId: string;
  creatorId: string;
  name: string;
  scopes: string[];
  models: string[] | null;
  createdAt: Date;
  revokedAt: Date | null;
}

/** Stores a new credential and answers its secret, which exists nowhere else afterwards. */
export async function insertCredential(
  db: Db,
  clock: Clock,
  input: NewCredential,
): Promise<{ credential: CredentialRecord; secret: string }> {
  const secret = randomToken(CREDENTIAL_PREFIX);
  const row = {
    id: crypto.randomUUID(),
    site_id: input.siteId,
    creator_id: input.creatorId,
    name: input.name,
    scopes: JSON.stringify(input.scopes),
    models: input.models === null ? null : JSON.stringify(input.models),
    secret_digest: await sha256Hex(secret),
    created_at: clock.now(),
    revoked_at: null,
  };
  await db.insertInto("management_credentials").values(row).execute();
  return {
    secret,
    credential: {
      id: row.id,
      siteId: input.siteId,
      creatorId: input.creatorId,
      name: input.name,
      scopes: input.scopes,
      models: input.models,
      createdAt: row.created_at,
      revokedAt: null,
    },
  };
}

/** Finds the live credential a presented secret names, by digest; revoked ones are not found. */
export async function findCredentialBySecret(
  db: Db,
  secret: string,
): Promise<CredentialRecord | null> {
  if (!CREDENTIAL_PATTERN.test(secret)) return null;
  const row = await db.selectFrom("management_credentials").selectAll()
    .where("secret_digest", "=", await sha256Hex(secret))
    .where("revoked_at", "is", null)
    .executeTakeFirst();
  if (!row) return null;
  return {
    id: row.id,
    siteId: row.site_id,
    creatorId: row.creator_id,
    name: row.name,
    scopes: row.scopes as string[],
    models: row.models as string[] | null,
    createdAt: row.created_at,
    revokedAt: row.revoked_at,
  };
}

/** A live credential by id: how an interactive sign-in's access token finds the credential it stands for. */
export async function findLiveCredentialById(
  db: Db,
  id: string,
): Promise<CredentialRecord | null> {
  const row = await db.selectFrom("management_credentials").selectAll()
    .where("id", "=", id)
    .where("revoked_at", "is", null)
    .executeTakeFirst();
  if (!row) return null;
  return {
    id: row.id,
    siteId: row.site_id,
    creatorId: row.creator_id,
    name: row.name,
    scopes: row.scopes as string[],
    models: row.models as string[] | null,
    createdAt: row.created_at,
    revokedAt: row.revoked_at,
  };
}
