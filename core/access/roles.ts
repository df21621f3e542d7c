// The role service: create, read, update and delete a site's roles, and seed the default ones.
import { sql } from "kysely";
import type { Clock } from "../clock.ts";
import type { Db } from "../db/database.ts";
import { type RoleUses, usesOfRole } from "../backend/access.ts";
import type { Authority } from "./authority.ts";
import { decide } from "./decide.ts";
import {
  ADMINISTRATOR_ROLE,
  administratorPermissions,
  EDITOR_ROLE,
  editorPermissions,
} from "./default_roles.ts";
import { checkRoleEscalation } from "./grants.ts";
import { holdsSystem } from "./limits.ts";
import {
  parsePermissions,
  type PermissionReason,
  type Permissions,
} from "./permissions.ts";

/** What every role service call needs; `authority` is the caller's, on `siteId`. */
export interface RoleContext {
  db: Db;
  clock: Clock;
  siteId: string;
  authority: Authority;
  /**
   * For a keyed management command: written with the effect, in its transaction, as an
   * audit entry carrying the key's digest, so a retry after a lost answer can prove what
   * was done (spec 2 part 4.3, MAPI-014).
   */
  record?: { actor: unknown; keyDigest: string };
}

/** Audit actions that carry the key digest of the command that wrote them. */
export const ROLE_RECORD_ACTIONS = ["role.create", "role.delete"] as const;

async function writeRecord(
  trx: Db,
  ctx: RoleContext,
  action: typeof ROLE_RECORD_ACTIONS[number],
  role: Role,
): Promise<void> {
  if (!ctx.record) return;
  await trx.insertInto("audit_entries").values({
    id: crypto.randomUUID(),
    site_id: ctx.siteId,
    actor: JSON.stringify(ctx.record.actor),
    action,
    target: JSON.stringify({ kind: "role", id: role.id }),
    details: JSON.stringify({
      idempotency_key_digest: ctx.record.keyDigest,
      role: { ...role, createdAt: new Date(role.createdAt).toISOString() },
    }),
    created_at: ctx.clock.now(),
  }).execute();
}

/** The role a keyed create or delete wrote, found by its key digest; null when nothing was written. */
export async function findRoleRecord(
  db: Db,
  siteId: string,
  action: typeof ROLE_RECORD_ACTIONS[number],
  keyDigest: string,
): Promise<Role | null> {
  const row = await db.selectFrom("audit_entries").select("details")
    .where("site_id", "=", siteId).where("action", "=", action)
    .where(sql<string>`details->>'idempotency_key_digest'`, "=", keyDigest)
    .executeTakeFirst();
  const role = (row?.details as {
    role?: Omit<Role, "createdAt"> & { createdAt: string };
  })?.role;
  return role ? { ...role, createdAt: new Date(role.createdAt) } : null;
}

/** A role as services answer it. */
export interface Role {
  id: string;
  siteId: string;
  name: string;
  permissions: Permissions;
  /** Seeded roles can be changed but never deleted. */
  seeded: boolean;
  createdAt: Date;
}

/** A new role; `permissions` is the raw document, parsed here. */
export interface RoleInput {
  name: string;
  permissions: unknown;
}

/** A role change: only the named fields change; `permissions` replaces the whole set. */
export interface RolePatch {
  name?: string;
  permissions?: unknown;
}

/** Every refusal a role service call can answer. */
export type RoleRefusal =
  | { ok: false; code: "missing_permission"; missing: string[] }
  | { ok: false; code: "invalid_request"; reasons: PermissionReason[] }
  | { ok: false; code: "invalid_permissions"; reasons: PermissionReason[] }
  | { ok: false; code: "escalation_refused"; exceeds: string[] }
  | { ok: false; code: "role_name_taken" }
  | { ok: false; code: "not_found" }
  | { ok: false; code: "role_seeded" }
  | { ok: false; code: "role_in_use"; members: number }
  | { ok: false; code: "role_last_access_granter" }
  | ({ ok: false; code: "role_in_access_rule" } & RoleUses);

/** A role, or why not. */
export type RoleResult = { ok: true; role: Role } | RoleRefusal;

type RoleRow = {
  id: string;
  site_id: string;
  name: string;
  permissions: unknown;
  seeded: boolean;
  created_at: Date;
};

const ROLE_COLUMNS = [
  "id",
  "site_id",
  "name",
  "permissions",
  "seeded",
  "created_at",
] as const;

/** The most characters a role name may have after trimming. */
export const ROLE_NAME_MAX = 80;

function toRole(row: RoleRow): Role {
  const parsed = parsePermissions(row.permissions);
  if (!parsed.ok) {
    throw new Error(
      `Role "${row.id}" holds invalid permissions: ${
        parsed.reasons[0].message
      }`,
    );
  }
  return {
    id: row.id,
    siteId: row.site_id,
    name: row.name,
    permissions: parsed.permissions,
    seeded: row.seeded,
    createdAt: row.created_at,
  };
}

function mayManage(ctx: RoleContext): RoleRefusal | null {
  if (ctx.authority.siteId !== ctx.siteId) {
    throw new Error(
      `Role service called for site "${ctx.siteId}" with authority on "${ctx.authority.siteId}"`,
    );
  }
  const decision = decide(ctx.authority, { action: "roles.write" });
  return decision.ok ? null : decision as RoleRefusal;
}

function checkName(name: string): RoleRefusal | string {
  const trimmed = name.trim();
  if (trimmed.length >= 1 && trimmed.length <= ROLE_NAME_MAX) return trimmed;
  const message =
    `Role name must be 1 to ${ROLE_NAME_MAX} characters after trimming`;
  return {
    ok: false,
    code: "invalid_request",
    reasons: [{ path: "name", message }],
  };
}

async function checkPermissions(
  ctx: RoleContext,
  input: unknown,
): Promise<RoleRefusal | Permissions> {
  const codes = await ctx.db.selectFrom("site_languages").select("code")
    .where("site_id", "=", ctx.siteId).execute();
  const languages = codes.length > 0 ? codes.map((r) => r.code) : undefined;
  const parsed = parsePermissions(input, { languages });
  if (!parsed.ok) return parsed;
  const escalation = checkRoleEscalation(ctx.authority, parsed.permissions);
  return escalation.ok ? parsed.permissions : escalation;
}

function isUniqueViolation(error: unknown): boolean {
  return (error as { code?: unknown })?.code === "23505";
}

/** Creates a role (SET-009); needs `role:manage` (credential: `roles:write`). */
export async function createRole(
  ctx: RoleContext,
  input: RoleInput,
): Promise<RoleResult> {
  const refused = mayManage(ctx);
  if (refused) return refused;
  const name = checkName(input.name);
  if (typeof name !== "string") return name;
  const permissions = await checkPermissions(ctx, input.permissions);
  if ("ok" in permissions) return permissions;
  return await ctx.db.transaction().execute(async (trx) => {
    const row = await trx.insertInto("roles").values({
      id: crypto.randomUUID(),
      site_id: ctx.siteId,
      name,
      permissions: JSON.stringify(permissions),
      created_at: ctx.clock.now(),
    }).onConflict((oc) => oc.columns(["site_id", "name"]).doNothing())
      .returning(ROLE_COLUMNS).executeTakeFirst();
    if (!row) return { ok: false, code: "role_name_taken" } as const;
    const role = toRole(row);
    await writeRecord(trx, ctx, "role.create", role);
    return { ok: true, role } as const;
  });
}

/** Every role of the site, oldest first. */
export async function listRoles(
  ctx: RoleContext,
): Promise<{ ok: true; roles: Role[] } | RoleRefusal> {
  const refused = mayManage(ctx);
  if (refused) return refused;
  const rows = await ctx.db.selectFrom("roles").select(ROLE_COLUMNS)
    .where("site_id", "=", ctx.siteId)
    .orderBy("created_at").orderBy("name").execute();
  return { ok: true, roles: rows.map(toRole) };
}

/** One role of the site, or `not_found`. */
export async function getRole(
  ctx: RoleContext,
  id: string,
): Promise<RoleResult> {
  const refused = mayManage(ctx);
  if (refused) return refused;
  const row = await ctx.db.selectFrom("roles").select(ROLE_COLUMNS)
    .where("site_id", "=", ctx.siteId).where("id", "=", id)
    .executeTakeFirst();
  return row
    ? { ok: true, role: toRole(row) }
    : { ok: false, code: "not_found" };
}

/** Changes only the named fields (SET-011); new permissions must stay within the caller's authority. */
export async function updateRole(
  ctx: RoleContext,
  id: string,
  patch: RolePatch,
): Promise<RoleResult> {
  const refused = mayManage(ctx);
  if (refused) return refused;
  const changes: { name?: string; permissions?: string } = {};
  if (patch.name !== undefined) {
    const name = checkName(patch.name);
    if (typeof name !== "string") return name;
    changes.name = name;
  }
  if (patch.permissions !== undefined) {
    const permissions = await checkPermissions(ctx, patch.permissions);
    if ("ok" in permissions) return permissions;
    changes.permissions = JSON.stringify(permissions);
  }
  const query = Object.keys(changes).length === 0
    ? ctx.db.selectFrom("roles").select(ROLE_COLUMNS)
      .where("site_id", "=", ctx.siteId).where("id", "=", id)
    : ctx.db.updateTable("roles").set(changes)
      .where("site_id", "=", ctx.siteId).where("id", "=", id)
      .returning(ROLE_COLUMNS);
  try {
    const row = await query.executeTakeFirst();
    return row
      ? { ok: true, role: toRole(row) }
      : { ok: false, code: "not_found" };
  } catch (error) {
    if (isUniqueViolation(error)) return { ok: false, code: "role_name_taken" };
    throw error;
  }
}

/**
 * Deletes a role (spec 2 part 4.3, SET-014), refusing a seeded role (`role_seeded`), a
 * role someone holds (`role_in_use`), the last role holding `role:manage`
 * (`role_last_access_granter`) and a role a backend access rule or saved-query route names
 * (`role_in_access_rule`, core/backend/access.ts). The site's roles are locked while it decides.
 */
export async function deleteRole(
  ctx: RoleContext,
  id: string,
): Promise<{ ok: true; id: string } | RoleRefusal> {
  const refused = mayManage(ctx);
  if (refused) return refused;
  return await ctx.db.transaction().execute(async (trx) => {
    const rows = await trx.selectFrom("roles").select(ROLE_COLUMNS)
      .where("site_id", "=", ctx.siteId).orderBy("id").forUpdate().execute();
    const roles = rows.map(toRole);
    const role = roles.find((r) => r.id === id);
    if (!role) return { ok: false, code: "not_found" } as const;
    if (role.seeded) return { ok: false, code: "role_seeded" } as const;
    const { members } = await trx.selectFrom("site_members")
      .select((eb) => eb.fn.countAll<number>().as("members"))
      .where("site_id", "=", ctx.siteId).where("role_id", "=", id)
      .executeTakeFirstOrThrow();
    if (members > 0) {
      return { ok: false, code: "role_in_use", members } as const;
    }
    const grants = (r: Role) => holdsSystem(r.permissions, "role:manage");
    if (grants(role) && !roles.some((r) => r.id !== id && grants(r))) {
      return { ok: false, code: "role_last_access_granter" } as const;
    }
    const uses = await usesOfRole(trx, ctx.siteId, id);
    if (uses.access_rules.length > 0 || uses.saved_queries.length > 0) {
      return { ok: false, code: "role_in_access_rule", ...uses } as const;
    }
    await trx.deleteFrom("roles").where("site_id", "=", ctx.siteId)
      .where("id", "=", id).execute();
    await writeRecord(trx, ctx, "role.delete", role);
    return { ok: true, id } as const;
  });
}

/** The seeded roles of a site. */
export interface DefaultRoles {
  administrator: Role;
  editor: Role;
}

/**
 * Creates the seeded `Administrator` (everything) and `Editor` roles of a site; a role
 * of that name already there is kept as it is, so seeding twice changes nothing.
 */
export async function seedDefaultRoles(
  db: Db,
  siteId: string,
  clock: Clock,
): Promise<DefaultRoles> {
  const now = clock.now();
  const seeds = [
    [ADMINISTRATOR_ROLE, administratorPermissions()],
    [EDITOR_ROLE, editorPermissions()],
  ] as const;
  await db.insertInto("roles").values(seeds.map(([name, permissions]) => ({
    id: crypto.randomUUID(),
    site_id: siteId,
    name,
    permissions: JSON.stringify(permissions),
    created_at: now,
    seeded: true,
  }))).onConflict((oc) => oc.columns(["site_id", "name"]).doNothing())
    .execute();
  const rows = await db.selectFrom("roles").select(ROLE_COLUMNS)
    .where("site_id", "=", siteId)
    .where("name", "in", [ADMINISTRATOR_ROLE, EDITOR_ROLE]).execute();
  const byName = new Map(rows.map((row) => [row.name, toRole(row)]));
  return {
    administrator: byName.get(ADMINISTRATOR_ROLE)!,
    editor: byName.get(EDITOR_ROLE)!,
  };
}
