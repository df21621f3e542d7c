// People of a site: adding someone with a role, changing their role, removing access, deactivating.
import type { Authority } from "../access/authority.ts";
import { decide } from "../access/decide.ts";
import { checkRoleEscalation } from "../access/grants.ts";
import type { Permissions } from "../access/permissions.ts";
import { generatePassword, hashPassword } from "../auth/password.ts";
import type { Clock } from "../clock.ts";
import type { Db } from "../db/database.ts";

/** Who acts: an authority loaded for the acting person or credential on this site. */
export interface PeopleContext {
  db: Db;
  clock: Clock;
  siteId: string;
  authority: Authority;
}

/** Refusals of people commands; nothing changes on any of them. */
export type PeopleRefusal =
  | { ok: false; code: "missing_permission"; missing?: string[] }
  | { ok: false; code: "escalation_refused"; exceeds: string[] }
  | { ok: false; code: "not_found" }
  | { ok: false; code: "member_exists" }
  | { ok: false; code: "invalid_request"; message: string }
  | { ok: false; code: "last_manager" };

function mayManage(ctx: PeopleContext): PeopleRefusal | null {
  const decision = decide(ctx.authority, { action: "role:manage" });
  if (decision.ok) return null;
  const missing = decision.code === "missing_permission"
    ? decision.missing
    : [];
  return { ok: false, code: "missing_permission", missing };
}

async function roleWithin(
  ctx: PeopleContext,
  roleId: string,
): Promise<PeopleRefusal | null> {
  const role = await ctx.db.selectFrom("roles").select("permissions")
    .where("site_id", "=", ctx.siteId).where("id", "=", roleId)
    .executeTakeFirst();
  if (!role) return { ok: false, code: "not_found" };
  // Giving someone a role is granting its permissions: the giver's own authority is the ceiling.
  const check = checkRoleEscalation(
    ctx.authority,
    role.permissions as Permissions,
  );
  return check.ok
    ? null
    : { ok: false, code: "escalation_refused", exceeds: check.exceeds };
}

/**
 * Gives a person access to the site with a role, creating the person when the email is new
 * (their generated password is answered once). Needs `role:manage` and a role within the
 * actor's own authority.
 */
export async function addMember(
  ctx: PeopleContext,
  input: { email: string; displayName?: string; roleId: string },
): Promise<
  { ok: true; userId: string; createdPassword: string | null } | PeopleRefusal
> {
  const refused = mayManage(ctx) ?? await roleWithin(ctx, input.roleId);
  if (refused) return refused;
  const email = input.email.trim().toLowerCase();
  if (!/^[^\s@]+@[^\s@]+$/.test(email) || email.length > 254) {
    return {
      ok: false,
      code: "invalid_request",
      message: "Expected an email address",
    };
  }
  const password = generatePassword();
  const hash = await hashPassword(password);
  const now = ctx.clock.now();
  return await ctx.db.transaction().execute(async (tx) => {
    let user = await tx.selectFrom("users").select("id").where(
      "email",
      "=",
      email,
    ).executeTakeFirst();
    let createdPassword: string | null = null;
    if (!user) {
      user = { id: crypto.randomUUID() };
      await tx.insertInto("users").values({
        id: user.id,
        email,
        display_name: input.displayName?.trim() || email.split("@")[0],
        password_hash: hash,
        status: "active",
        created_at: now,
      }).execute();
      createdPassword = password;
    }
    const inserted = await tx.insertInto("site_members").values({
      site_id: ctx.siteId,
      user_id: user.id,
      role_id: input.roleId,
      created_at: now,
    }).onConflict((oc) => oc.columns(["site_id", "user_id"]).doNothing())
      .executeTakeFirst();
    if (inserted.numInsertedOrUpdatedRows !== 1n) {
      return { ok: false as const, code: "member_exists" as const };
    }
    return { ok: true as const, userId: user.id, createdPassword };
  });
}

/** Changes a member's role; the new role must be within the actor's authority. */
export async function setMemberRole(
  ctx: PeopleContext,
  input: { userId: string; roleId: string },
): Promise<{ ok: true } | PeopleRefusal> {
  const refused = mayManage(ctx) ?? await roleWithin(ctx, input.roleId);
  if (refused) return refused;
  return await ctx.db.transaction().execute(async (tx) => {
    const before = await managers(tx, ctx.siteId);
    const changed = await tx.updateTable("site_members").set({
      role_id: input.roleId,
    })
      .where("site_id", "=", ctx.siteId).where("user_id", "=", input.userId)
      .executeTakeFirst();
    if (changed.numUpdatedRows !== 1n) {
      return { ok: false as const, code: "not_found" as const };
    }
    if (before > 0 && await managers(tx, ctx.siteId) === 0) {
      throw new LastManager();
    }
    return { ok: true as const };
  }).catch((error) => {
    if (error instanceof LastManager) {
      return { ok: false as const, code: "last_manager" as const };
    }
    throw error;
  });
}

/** Removes a member's access to the site; the person keeps access to other sites. */
export async function removeMember(
  ctx: PeopleContext,
  userId: string,
): Promise<{ ok: true } | PeopleRefusal> {
  const refused = mayManage(ctx);
  if (refused) return refused;
  return await ctx.db.transaction().execute(async (tx) => {
    const before = await managers(tx, ctx.siteId);
    const removed = await tx.deleteFrom("site_members").where(
      "site_id",
      "=",
      ctx.siteId,
    )
      .where("user_id", "=", userId).executeTakeFirst();
    if (removed.numDeletedRows !== 1n) {
      return { ok: false as const, code: "not_found" as const };
    }
    if (before > 0 && await managers(tx, ctx.siteId) === 0) {
      throw new LastManager();
    }
    await tx.deleteFrom("sessions").where("user_id", "=", userId).execute();
    return { ok: true as const };
  }).catch((error) => {
    if (error instanceof LastManager) {
      return { ok: false as const, code: "last_manager" as const };
    }
    throw error;
  });
}

/**
 * Deactivates or reactivates a member of this site. A deactivated person's sessions end at
 * once and the credentials they created stop working on their next request.
 */
export async function setUserStatus(
  ctx: PeopleContext,
  input: { userId: string; status: "active" | "deactivated" },
): Promise<{ ok: true } | PeopleRefusal> {
  const refused = mayManage(ctx);
  if (refused) return refused;
  if (
    input.userId === ctx.authority.personId && input.status === "deactivated"
  ) {
    return {
      ok: false,
      code: "invalid_request",
      message: "You cannot deactivate yourself",
    };
  }
  const sites = (await ctx.db.selectFrom("site_members").select("site_id")
    .where("user_id", "=", input.userId).execute()).map((m) => m.site_id);
  if (!sites.includes(ctx.siteId)) return { ok: false, code: "not_found" };
  // Status is the person's, across sites: a manager of one site cannot switch off another's.
  if (sites.length > 1) {
    return {
      ok: false,
      code: "missing_permission",
      missing: ["role:manage on every site of the person"],
    };
  }
  return await ctx.db.transaction().execute(async (tx) => {
    const before = await managers(tx, ctx.siteId);
    await tx.updateTable("users").set({ status: input.status }).where(
      "id",
      "=",
      input.userId,
    ).execute();
    if (before > 0 && await managers(tx, ctx.siteId) === 0) {
      throw new LastManager();
    }
    if (input.status === "deactivated") {
      await tx.deleteFrom("sessions").where("user_id", "=", input.userId)
        .execute();
    }
    return { ok: true as const };
  }).catch((error) => {
    if (error instanceof LastManager) {
      return { ok: false as const, code: "last_manager" as const };
    }
    throw error;
  });
}

class LastManager extends Error {}

/** Active members whose role can manage roles: a site must keep at least one. */
async function managers(db: Db, siteId: string): Promise<number> {
  const rows = await db.selectFrom("site_members as m")
    .innerJoin("roles as r", "r.id", "m.role_id")
    .innerJoin("users as u", "u.id", "m.user_id")
    .select("r.permissions")
    .where("m.site_id", "=", siteId).where("u.status", "=", "active").execute();
  return rows.filter((r) =>
    ((r.permissions as Permissions).system ?? []).includes("role:manage")
  ).length;
}
