// Handlers of the role routes: the role service with the credential's narrowed authority as the ceiling.
import {
  createRole as insertRole,
  deleteRole as removeRole,
  findRoleRecord,
  getRole as readRole,
  listRoles as readRoles,
  type Role,
  type RoleContext,
  type RoleRefusal,
  updateRole as changeRole,
} from "../../access/roles.ts";
import { refuse } from "../../web/errors.ts";
import * as contract from "../contract/roles.ts";
import { defineHandler, type ManageContext } from "../handler.ts";
import { requireAllowed } from "./require.ts";

/** The credential's authority is the escalation ceiling (spec 2 part 4.3): a model wildcard never fits it. */
function roleContext(ctx: ManageContext): RoleContext {
  const { db, clock } = ctx.services;
  return {
    db,
    clock,
    siteId: ctx.site.id,
    authority: ctx.authority,
    record: ctx.keyDigest
      ? { actor: ctx.actor, keyDigest: ctx.keyDigest }
      : undefined,
  };
}

function wireRole(role: Role) {
  return {
    id: role.id,
    name: role.name,
    permissions: role.permissions,
    seeded: role.seeded,
    created_at: new Date(role.createdAt).toISOString(),
  };
}

/** Maps a role service refusal to its answer. */
function refuseRole(refusal: RoleRefusal, id?: string): never {
  switch (refusal.code) {
    case "missing_permission":
      return refuse(
        403,
        "missing_permission",
        `Missing permission: ${refusal.missing.join(", ")}`,
        { missing: refusal.missing },
      );
    case "invalid_request": {
      const issues = refusal.reasons.map((r) => ({
        path: `body.${r.path}`,
        message: r.message,
      }));
      return refuse(
        400,
        "invalid_request",
        `Invalid ${issues[0].path}: ${issues[0].message}`,
        { issues },
      );
    }
    case "invalid_permissions":
      return refuse(
        400,
        "invalid_permissions",
        `Invalid permissions (${refusal.reasons.length}): ${
          refusal.reasons.map((r) => `${r.path}: ${r.message}`).join("; ")
        }`,
        { reasons: refusal.reasons },
      );
    case "escalation_refused":
      return refuse(
        403,
        "escalation_refused",
        `Cannot grant what the credential does not hold: ${
          refusal.exceeds.join(", ")
        }`,
        { exceeds: refusal.exceeds },
      );
    case "role_name_taken":
      return refuse(
        409,
        "role_name_taken",
        "Another role of the site has this name",
      );
    case "not_found":
      return refuse(404, "not_found", `No role "${id}" on this site`);
    case "role_seeded":
      return refuse(
        409,
        "role_seeded",
        "A seeded role can be changed but never deleted",
      );
    case "role_in_use":
      return refuse(
        409,
        "role_in_use",
        `${refusal.members} people hold this role: give them another role first`,
        { members: refusal.members },
      );
    case "role_last_access_granter":
      return refuse(
        409,
        "role_last_access_granter",
        "This is the last role that can grant access (role:manage): keep it",
      );
    case "role_in_access_rule":
      return refuse(
        409,
        "role_in_access_rule",
        "A backend access rule or saved-query route names this role: remove it there first",
        {
          access_rules: refusal.access_rules,
          saved_queries: refusal.saved_queries,
        },
      );
  }
}

/** `list-roles`. */
export const listRoles = defineHandler(contract.listRoles, {
  async run(ctx) {
    requireAllowed(ctx, { action: "roles.write" });
    const result = await readRoles(roleContext(ctx));
    if (!result.ok) refuseRole(result);
    return { body: { data: result.roles.map(wireRole) } };
  },
});

/** `get-role`. */
export const getRole = defineHandler(contract.getRole, {
  async run(ctx, { params }) {
    requireAllowed(ctx, { action: "roles.write" });
    const result = await readRole(roleContext(ctx), params.id.toLowerCase());
    if (!result.ok) refuseRole(result, params.id);
    return { body: wireRole(result.role) };
  },
});

/** `create-role`: every invalid permission is listed; escalation beyond the credential is refused. */
export const createRole = defineHandler(contract.createRole, {
  async run(ctx, { body }) {
    requireAllowed(ctx, { action: "roles.write" });
    const result = await insertRole(roleContext(ctx), body);
    if (!result.ok) refuseRole(result);
    return { body: wireRole(result.role) };
  },
  // MAPI-014: created with its record in one transaction; a lost answer is proved from it.
  async prove(ctx) {
    if (!ctx.keyDigest) return null;
    const role = await findRoleRecord(
      ctx.services.db,
      ctx.site.id,
      "role.create",
      ctx.keyDigest,
    );
    return role ? { body: wireRole(role) } : null;
  },
});

/** `update-role`: only the named fields change; `permissions` replaces the whole set. */
export const updateRole = defineHandler(contract.updateRole, {
  async run(ctx, { params, body }) {
    requireAllowed(ctx, { action: "roles.write" });
    const result = await changeRole(
      roleContext(ctx),
      params.id.toLowerCase(),
      body,
    );
    if (!result.ok) refuseRole(result, params.id);
    return { body: wireRole(result.role) };
  },
});

/** `delete-role`: refused for a seeded role, a held role, the last access granter and a role access rules name. */
export const deleteRole = defineHandler(contract.deleteRole, {
  async run(ctx, { params }) {
    requireAllowed(ctx, { action: "roles.write" });
    const result = await removeRole(roleContext(ctx), params.id.toLowerCase());
    if (!result.ok) refuseRole(result, params.id);
    return { body: { id: result.id, deleted: true as const } };
  },
  async prove(ctx) {
    if (!ctx.keyDigest) return null;
    const role = await findRoleRecord(
      ctx.services.db,
      ctx.site.id,
      "role.delete",
      ctx.keyDigest,
    );
    return role ? { body: { id: role.id, deleted: true as const } } : null;
  },
});
