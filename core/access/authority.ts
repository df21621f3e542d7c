// Loads an actor's effective authority on a site from the database now (spec 2 part 5.1, spec 1 part 5 item 8).
import type { Db } from "../db/database.ts";
import { actingPersonId, type Actor } from "./actor.ts";
import { parsePermissions, type Permissions } from "./permissions.ts";
import { ALWAYS_INCLUDED_SCOPE, type Scope, SCOPES } from "./scopes.ts";

/**
 * What an actor may do on one site right now: the acting person's role permissions,
 * narrowed for a credential by its scopes and models. A plain value; `decide()` reads it.
 */
export interface Authority {
  siteId: string;
  actor: Actor;
  /** The person whose role applies (`:own` rules compare item owners with this id). */
  personId: string;
  roleId: string;
  /** The acting person's role permissions as stored now. */
  permissions: Permissions;
  /** A credential's scopes (always with `content:read`); null for people and plugins. */
  scopes: readonly Scope[] | null;
  /** A credential's models; null when not limited to some models. */
  models: readonly string[] | null;
}

/** Why no authority could be loaded; routes map these to 401 or 403. */
export type AuthorityRefusalCode =
  /** A person who is deactivated or holds no role on the site. */
  | "site_access_denied"
  /** A credential whose creator is deactivated or holds no role on the site. */
  | "creator_unauthorized"
  /** A revoked credential (401). */
  | "credential_revoked"
  /** No credential with that id on this site (401). */
  | "credential_not_found"
  /** A plugin's delegated person who is deactivated or holds no role on the site. */
  | "requester_unauthorized";

/** The answer of {@linkcode loadAuthority}. */
export type AuthorityResult =
  | { ok: true; authority: Authority }
  | { ok: false; code: AuthorityRefusalCode };

/** What {@linkcode loadAuthority} needs. */
export interface LoadAuthorityOptions {
  siteId: string;
  actor: Actor;
}

interface Membership {
  roleId: string;
  permissions: Permissions;
}

/** A person's status and role on a site, as read from `users`, `site_members` and `roles`. */
export interface MembershipRow {
  status: string;
  role_id: string;
  permissions: unknown;
}

/** The stored facts of a credential that its authority depends on. */
export interface CredentialAuthorityRow {
  creator_id: string;
  scopes: unknown;
  models: unknown;
  revoked_at: Date | null;
}

/** The active person's role on the site, or null (deactivated, or no site access). */
async function loadMembership(
  db: Db,
  siteId: string,
  userId: string,
): Promise<Membership | null> {
  const row = await db.selectFrom("users")
    .innerJoin("site_members", "site_members.user_id", "users.id")
    .innerJoin("roles", "roles.id", "site_members.role_id")
    .select(["users.status", "roles.id as role_id", "roles.permissions"])
    .where("users.id", "=", userId)
    .where("site_members.site_id", "=", siteId)
    .where("roles.site_id", "=", siteId)
    .executeTakeFirst();
  return membershipOf(row);
}

function membershipOf(
  row: MembershipRow | null | undefined,
): Membership | null {
  // No superadmin flag is consulted anywhere: a superadmin gets no bypass (MCR-008).
  if (!row || row.status !== "active") return null;
  const parsed = parsePermissions(row.permissions);
  if (!parsed.ok) {
    const first = parsed.reasons[0];
    throw new Error(
      `Role "${row.role_id}" holds invalid permissions: ${first.path}: ${first.message}`,
    );
  }
  return { roleId: row.role_id, permissions: parsed.permissions };
}

function storedScopes(value: unknown): Scope[] {
  const list = Array.isArray(value) ? value : [];
  const known = list.filter((s): s is Scope => SCOPES.includes(s as Scope));
  return [...new Set<Scope>([ALWAYS_INCLUDED_SCOPE, ...known])];
}

function storedModels(value: unknown): string[] | null {
  if (!Array.isArray(value)) return null;
  return value.filter((m): m is string => typeof m === "string");
}

/**
 * Loads what the actor may do on the site now. A person must be active with a role on
 * the site; a credential acts as its creator now (creator refused: `creator_unauthorized`,
 * revoked: `credential_revoked`), narrowed by the credential's stored scopes and models;
 * a plugin acts for its delegated person (`requester_unauthorized`). Nobody is bypassed.
 */
export async function loadAuthority(
  db: Db,
  options: LoadAuthorityOptions,
): Promise<AuthorityResult> {
  const { siteId, actor } = options;
  let credential: CredentialAuthorityRow | undefined;
  if (actor.kind === "credential") {
    credential = await db.selectFrom("management_credentials")
      .select(["creator_id", "scopes", "models", "revoked_at"])
      .where("id", "=", actor.credentialId)
      .where("site_id", "=", siteId)
      .executeTakeFirst();
    if (!credential) return { ok: false, code: "credential_not_found" };
  }
  if (credential?.revoked_at != null) {
    return { ok: false, code: "credential_revoked" };
  }
  const personId = credential?.creator_id ?? actingPersonId(actor);
  return authorityOf(
    siteId,
    actor,
    credential ?? null,
    await loadMembership(db, siteId, personId),
  );
}

/**
 * {@linkcode loadAuthority} from rows the caller read itself, in a statement of its own: the
 * credential (for a credential actor) and the acting person's membership row on the site.
 */
export function authorityFromRows(
  siteId: string,
  actor: Actor,
  credential: CredentialAuthorityRow | null,
  membership: MembershipRow | null,
): AuthorityResult {
  if (actor.kind === "credential") {
    if (!credential) return { ok: false, code: "credential_not_found" };
    if (credential.revoked_at !== null) {
      return { ok: false, code: "credential_revoked" };
    }
  }
  return authorityOf(siteId, actor, credential, membershipOf(membership));
}

function authorityOf(
  siteId: string,
  actor: Actor,
  credential: CredentialAuthorityRow | null,
  membership: Membership | null,
): AuthorityResult {
  let scopes: Scope[] | null = null;
  let models: string[] | null = null;
  if (credential) {
    scopes = storedScopes(credential.scopes);
    models = storedModels(credential.models);
  }
  const personId = credential?.creator_id ?? actingPersonId(actor);
  if (!membership) {
    const code = actor.kind === "credential"
      ? "creator_unauthorized"
      : actor.kind === "plugin"
      ? "requester_unauthorized"
      : "site_access_denied";
    return { ok: false, code };
  }
  return {
    ok: true,
    authority: {
      siteId,
      actor,
      personId,
      roleId: membership.roleId,
      permissions: membership.permissions,
      scopes,
      models,
    },
  };
}
