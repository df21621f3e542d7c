// The editorial order of a model's entries as the admin sets it (`order=manual` on /v1, shared
// across languages): the entries in their current order, and one move at a time, checked against
// the order's revision so two editors never overwrite each other's moves unseen.
import { decide, readReach } from "../access/decide.ts";
import { snapshotActor } from "../entries/actor_snapshot.ts";
import { writeManualOrder } from "../public/manual_order.ts";
import type { AdminContext } from "./context.ts";

/** Most entries the ordering screen lists and orders; the rest follow them in publication order. */
export const ORDER_SCREEN_MAX = 200;

/** One entry in the order. */
export interface OrderedEntry {
  groupId: string;
  title: string;
  /** Published in at least one language: only published entries are listed on /v1. */
  published: boolean;
}

/** The model's order as the screen shows it. */
export interface ManualOrder {
  revision: number;
  entries: OrderedEntry[];
  /** Entries beyond {@link ORDER_SCREEN_MAX}, not shown. */
  more: number;
}

/** Who may set a model's order: a person who reads all of its entries and may update them. */
export function mayOrder(ctx: AdminContext, modelId: string): boolean {
  return readReach(ctx.authority, modelId) === "all" &&
    decide(ctx.authority, { action: "update", model: modelId }).ok;
}

/**
 * The model's entries (not in the trash) in manual order: those placed first by their position,
 * then the others by id, as `order=manual` serves them.
 */
export async function readManualOrder(
  ctx: AdminContext,
  modelId: string,
): Promise<ManualOrder> {
  const db = ctx.services.db;
  const rows = await db.selectFrom("entry_groups as g")
    .innerJoin(
      "entries as e",
      (j) =>
        j.onRef("e.group_id", "=", "g.id").on("e.first_language", "=", true),
    )
    .leftJoin(
      "public_manual_order as m",
      (j) =>
        j.onRef("m.group_id", "=", "g.id").onRef("m.site_id", "=", "g.site_id")
          .onRef("m.model_id", "=", "g.model_id"),
    )
    .select(["g.id", "e.list_title", "m.position"])
    .select((eb) =>
      eb.exists(
        eb.selectFrom("entries as p").select("p.id")
          .whereRef("p.group_id", "=", "g.id")
          .where("p.published_version_id", "is not", null),
      ).as("published")
    )
    .where("g.site_id", "=", ctx.site.id)
    .where("g.model_id", "=", modelId)
    .where("g.trashed_at", "is", null)
    .orderBy((eb) => eb.fn.coalesce("m.position", eb.val(2_147_483_647)))
    .orderBy("g.id")
    .limit(ORDER_SCREEN_MAX + 1).execute();
  const revision = await db.selectFrom("public_manual_order_revisions")
    .select("revision").where("site_id", "=", ctx.site.id)
    .where("model_id", "=", modelId).executeTakeFirst();
  const total = rows.length > ORDER_SCREEN_MAX
    ? Number(
      (await db.selectFrom("entry_groups").select((eb) =>
        eb.fn.countAll<string>().as("n")
      ).where("site_id", "=", ctx.site.id).where("model_id", "=", modelId)
        .where("trashed_at", "is", null).executeTakeFirstOrThrow()).n,
    )
    : rows.length;
  return {
    revision: revision?.revision ?? 0,
    entries: rows.slice(0, ORDER_SCREEN_MAX).map((r) => ({
      groupId: r.id,
      title: r.list_title || "(untitled)",
      published: Boolean(r.published),
    })),
    more: Math.max(0, total - ORDER_SCREEN_MAX),
  };
}

/** A move of one entry. */
export type OrderMove = "up" | "down" | "top" | "bottom";

/** Why a move was refused. */
export type OrderRefusal =
  | { ok: false; code: "missing_permission"; message: string }
  | { ok: false; code: "order_changed"; message: string }
  | { ok: false; code: "not_found"; message: string };

/**
 * Moves `groupId` one place up or down, or to the top or bottom, when the order is still at
 * `expectedRevision`; writes the whole shown order (so it becomes explicit) and an audit entry
 * in one transaction, and bumps the revision so /v1 cursors of the old order are refused.
 */
export async function moveInOrder(
  ctx: AdminContext,
  modelId: string,
  move: { groupId: string; to: OrderMove; expectedRevision: number },
): Promise<{ ok: true; revision: number } | OrderRefusal> {
  if (!mayOrder(ctx, modelId)) {
    return {
      ok: false,
      code: "missing_permission",
      message: "Ordering entries needs read and update on every entry",
    };
  }
  const current = await readManualOrder(ctx, modelId);
  if (current.revision !== move.expectedRevision) {
    return {
      ok: false,
      code: "order_changed",
      message:
        "Someone changed the order meanwhile: here it is as it is now; move again",
    };
  }
  const ids = current.entries.map((e) => e.groupId);
  const from = ids.indexOf(move.groupId);
  if (from < 0) {
    return { ok: false, code: "not_found", message: "No such entry here" };
  }
  const to = move.to === "top"
    ? 0
    : move.to === "bottom"
    ? ids.length - 1
    : Math.min(ids.length - 1, Math.max(0, from + (move.to === "up" ? -1 : 1)));
  ids.splice(to, 0, ...ids.splice(from, 1));
  const db = ctx.services.db;
  const written = await db.transaction().execute(async (tx) => {
    const done = await writeManualOrder(tx, {
      siteId: ctx.site.id,
      modelId,
      groupIds: ids,
    });
    await tx.insertInto("audit_entries").values({
      id: crypto.randomUUID(),
      site_id: ctx.site.id,
      actor: JSON.stringify(await snapshotActor(tx, ctx.site.id, ctx.actor)),
      action: "model.order",
      target: JSON.stringify({ kind: "model", model_id: modelId }),
      details: JSON.stringify({
        group_id: move.groupId,
        from: from + 1,
        to: to + 1,
        revision: done.revision,
      }),
      created_at: ctx.services.clock.now(),
    }).execute();
    return done;
  });
  return { ok: true, revision: written.revision };
}
