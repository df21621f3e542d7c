// Test helpers for the access tests: hand-built authorities and small database fixtures.
import type { Clock } from "../clock.ts";
import type { Db } from "../db/database.ts";
import type { Actor } from "./actor.ts";
import type { Authority } from "./authority.ts";
import type { Permissions } from "./permissions.ts";
import type { Scope } from "./scopes.ts";

/** The person every hand-built authority acts as. */
export const ME = "00000000-0000-4000-8000-000000000001";
/** Someone else. */
export const OTHER = "00000000-0000-4000-8000-000000000002";

/** A person's authority holding exactly `permissions`. */
export function personAuthority(permissions: Permissions): Authority {
  return {
    siteId: "site",
    actor: { kind: "person", userId: ME },
    personId: ME,
    roleId: "role",
    permissions,
    scopes: null,
    models: null,
  };
}

/** A credential's authority: its creator (ME) holds `permissions`. */
export function credentialAuthority(
  permissions: Permissions,
  scopes: Scope[],
  models: string[] | null = null,
): Authority {
  const all: Scope[] = ["content:read", ...scopes];
  return {
    ...personAuthority(permissions),
    actor: {
      kind: "credential",
      credentialId: "cred",
      creatorId: ME,
      scopes: all,
      models,
    },
    scopes: all,
    models,
  };
}

/** Inserts a site and answers its id. */
export async function insertSite(db: Db, clock: Clock): Promise<string> {
  const id = crypto.randomUUID();
  const slug = `s${id.slice(0, 8)}`;
  await db.insertInto("sites").values({
    id,
    slug,
    name: slug,
    domain: `${slug}.test`,
    created_at: clock.now(),
  }).execute();
  return id;
}

/** Inserts a role holding `permissions` and answers its id. */
export async function insertRole(
  db: Db,
  siteId: string,
  permissions: Permissions,
  clock: Clock,
): Promise<string> {
  const id = crypto.randomUUID();
  await db.insertInto("roles").values({
    id,
    site_id: siteId,
    name: `role ${id.slice(0, 8)}`,
    permissions: JSON.stringify(permissions),
    created_at: clock.now(),
  }).execute();
  return id;
}

/** Inserts an active user holding `roleId` on the site, and answers the user id. */
export async function insertMember(
  db: Db,
  siteId: string,
  options: { roleId: string; clock: Clock },
): Promise<string> {
  const id = crypto.randomUUID();
  await db.insertInto("users").values({
    id,
    email: `${id}@example.test`,
    display_name: "Someone",
    password_hash: "x",
    status: "active",
    created_at: options.clock.now(),
  }).execute();
  await db.insertInto("site_members").values({
    site_id: siteId,
    user_id: id,
    role_id: options.roleId,
    created_at: options.clock.now(),
  }).execute();
  return id;
}

/** Inserts a management credential and answers its actor. */
export async function insertCredential(
  db: Db,
  siteId: string,
  options: {
    creatorId: string;
    scopes: Scope[];
    models?: string[] | null;
    clock: Clock;
  },
): Promise<Actor> {
  const id = crypto.randomUUID();
  const models = options.models ?? null;
  await db.insertInto("management_credentials").values({
    id,
    site_id: siteId,
    creator_id: options.creatorId,
    name: "script",
    scopes: JSON.stringify(options.scopes),
    models: models === null ? null : JSON.stringify(models),
    secret_digest: crypto.randomUUID(),
    created_at: options.clock.now(),
  }).execute();
  return {
    kind: "credential",
    credentialId: id,
    creatorId: options.creatorId,
    scopes: options.scopes,
    models,
  };
}
