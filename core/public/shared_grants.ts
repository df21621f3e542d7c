// Shared-content grants: a source site projects the published public items of one content type
// to another site of this installation, read there at /v1/_shared/{source}/{model}. Made and
// revoked by people holding site:infra on the source who also belong to the grantee site; the
// grantee can never query other source types, filter arbitrarily, read drafts or edit the source.
import { loadAuthority } from "../access/authority.ts";
import { personHolding } from "../access/person_authority.ts";
import type { Clock } from "../clock.ts";
import type { Db } from "../db/database.ts";
import { snapshotActor } from "../entries/actor_snapshot.ts";
import { SHARED_SECTION_MODEL } from "../pages/shared.ts";
import { isId } from "../entries/store.ts";

/** A person acting on the source site. */
export interface SharedGrantContext {
  db: Db;
  clock: Clock;
  /** The source site: the one whose content is shared. */
  siteId: string;
  personId: string;
}

/** A grant as listed on the source site. */
export interface SharedGrant {
  id: string;
  grantee: { id: string; slug: string; name: string };
  model: { id: string; slug: string; name: string };
  created_at: string;
  revoked_at: string | null;
}

/** Refusals; nothing changes on any of them. */
export type SharedGrantRefusal =
  | { ok: false; code: "missing_permission" }
  | { ok: false; code: "input_invalid"; message: string }
  | { ok: false; code: "already_shared" }
  | { ok: false; code: "not_found" };

async function mayManage(
  ctx: SharedGrantContext,
): Promise<SharedGrantRefusal | null> {
  const held = await personHolding(ctx.db, {
    siteId: ctx.siteId,
    personId: ctx.personId,
    permission: "site:infra",
  });
  return held.ok ? null : { ok: false, code: "missing_permission" };
}

/** Every grant of the source site, live ones first, newest first. */
export async function listSharedGrants(
  ctx: SharedGrantContext,
): Promise<{ ok: true; grants: SharedGrant[] } | SharedGrantRefusal> {
  const refused = await mayManage(ctx);
  if (refused) return refused;
  const rows = await ctx.db.selectFrom("shared_content_grants as g")
    .innerJoin("sites as s", "s.id", "g.grantee_site_id")
    .innerJoin("models as m", "m.id", "g.model_id")
    .select([
      "g.id",
      "g.created_at",
      "g.revoked_at",
      "s.id as site_id",
      "s.slug as site_slug",
      "s.name as site_name",
      "m.id as model_id",
      "m.slug as model_slug",
      "m.name as model_name",
    ])
    .where("g.source_site_id", "=", ctx.siteId)
    .orderBy("g.revoked_at", (o) => o.desc().nullsFirst())
    .orderBy("g.created_at", "desc").orderBy("g.id").execute();
  return {
    ok: true,
    grants: rows.map((r) => ({
      id: r.id,
      grantee: { id: r.site_id, slug: r.site_slug, name: r.site_name },
      model: { id: r.model_id, slug: r.model_slug, name: r.model_name },
      created_at: r.created_at.toISOString(),
      revoked_at: r.revoked_at?.toISOString() ?? null,
    })),
  };
}

/** The other sites the person belongs to (active, with a role): the sites they may share with. */
export async function grantableSites(
  db: Db,
  personId: string,
  sourceSiteId: string,
): Promise<{ id: string; slug: string; name: string }[]> {
  return await db.selectFrom("site_members as sm")
    .innerJoin("sites as s", "s.id", "sm.site_id")
    .innerJoin("users as u", "u.id", "sm.user_id")
    .select(["s.id", "s.slug", "s.name"])
    .where("sm.user_id", "=", personId).where("u.status", "=", "active")
    .where("s.id", "<>", sourceSiteId).orderBy("s.name").orderBy("s.id")
    .execute();
}

/**
 * Shares one public content type of the source site with a grantee site. The person needs
 * site:infra on the source and must belong to the grantee; a private type, shared sections, the
 * source itself and a type already shared with that site are refused.
 */
export async function grantSharedContent(
  ctx: SharedGrantContext,
  input: { granteeSiteId: string; modelId: string },
): Promise<{ ok: true; id: string } | SharedGrantRefusal> {
  const refused = await mayManage(ctx);
  if (refused) return refused;
  if (!isId(input.granteeSiteId) || !isId(input.modelId)) {
    return {
      ok: false,
      code: "input_invalid",
      message: "Choose a site and a content type",
    };
  }
  if (input.granteeSiteId === ctx.siteId) {
    return {
      ok: false,
      code: "input_invalid",
      message: "A site cannot share with itself",
    };
  }
  const member = await loadAuthority(ctx.db, {
    siteId: input.granteeSiteId,
    actor: { kind: "person", userId: ctx.personId },
  });
  if (!member.ok) {
    return {
      ok: false,
      code: "input_invalid",
      message: "You can share only with a site you belong to",
    };
  }
  const model = await ctx.db.selectFrom("models")
    .select(["id", "slug", "is_public"])
    .where("site_id", "=", ctx.siteId).where("id", "=", input.modelId)
    .where("deleted_at", "is", null).executeTakeFirst();
  if (!model || model.slug === SHARED_SECTION_MODEL) {
    return {
      ok: false,
      code: "input_invalid",
      message: "No such content type on this site",
    };
  }
  if (!model.is_public) {
    return {
      ok: false,
      code: "input_invalid",
      message:
        `"${model.slug}" is private: only public content types can be shared`,
    };
  }
  const actor = await snapshotActor(ctx.db, ctx.siteId, {
    kind: "person",
    userId: ctx.personId,
  });
  const now = ctx.clock.now();
  const id = crypto.randomUUID();
  return await ctx.db.transaction().execute(async (tx) => {
    const inserted = await tx.insertInto("shared_content_grants").values({
      id,
      source_site_id: ctx.siteId,
      grantee_site_id: input.granteeSiteId,
      model_id: model.id,
      created_by: ctx.personId,
      created_at: now,
      revoked_at: null,
      revoked_by: null,
    }).onConflict((oc) =>
      oc.columns(["grantee_site_id", "source_site_id", "model_id"])
        .where("revoked_at", "is", null).doNothing()
    ).returning("id").executeTakeFirst();
    if (!inserted) {
      return { ok: false as const, code: "already_shared" as const };
    }
    await tx.insertInto("audit_entries").values({
      id: crypto.randomUUID(),
      site_id: ctx.siteId,
      actor: JSON.stringify(actor),
      action: "shared_content.grant",
      target: JSON.stringify({ kind: "shared_content_grant", id }),
      details: JSON.stringify({
        grantee_site_id: input.granteeSiteId,
        model_id: model.id,
        model_slug: model.slug,
      }),
      created_at: now,
    }).execute();
    return { ok: true as const, id };
  });
}

/** Revokes a live grant of the source site: the grantee's next read answers 404. */
export async function revokeSharedContent(
  ctx: SharedGrantContext,
  id: string,
): Promise<{ ok: true } | SharedGrantRefusal> {
  const refused = await mayManage(ctx);
  if (refused) return refused;
  if (!isId(id)) return { ok: false, code: "not_found" };
  const actor = await snapshotActor(ctx.db, ctx.siteId, {
    kind: "person",
    userId: ctx.personId,
  });
  const now = ctx.clock.now();
  return await ctx.db.transaction().execute(async (tx) => {
    const revoked = await tx.updateTable("shared_content_grants")
      .set({ revoked_at: now, revoked_by: ctx.personId })
      .where("id", "=", id).where("source_site_id", "=", ctx.siteId)
      .where("revoked_at", "is", null).returning("id").executeTakeFirst();
    if (!revoked) return { ok: false as const, code: "not_found" as const };
    await tx.insertInto("audit_entries").values({
      id: crypto.randomUUID(),
      site_id: ctx.siteId,
      actor: JSON.stringify(actor),
      action: "shared_content.revoke",
      target: JSON.stringify({ kind: "shared_content_grant", id }),
      details: JSON.stringify({}),
      created_at: now,
    }).execute();
    return { ok: true as const };
  });
}
