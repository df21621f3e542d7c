// The collection-wide editorial order of a model (`order=manual`), shared across languages.
import type { Db } from "../db/database.ts";

/**
 * Replaces the manual order of a model with `groupIds` (first is first); items left out follow
 * them. Bumps the order's revision so cursors issued under the old order are refused.
 */
export async function setManualOrder(
  db: Db,
  options: { siteId: string; modelId: string; groupIds: string[] },
): Promise<{ revision: number }> {
  return await db.transaction().execute((tx) => writeManualOrder(tx, options));
}

/** {@link setManualOrder} inside the caller's transaction (an admin act writes its audit beside it). */
export async function writeManualOrder(
  tx: Db,
  options: { siteId: string; modelId: string; groupIds: string[] },
): Promise<{ revision: number }> {
  await tx.deleteFrom("public_manual_order").where(
    "site_id",
    "=",
    options.siteId,
  )
    .where("model_id", "=", options.modelId).execute();
  const ids = [...new Set(options.groupIds)];
  if (ids.length > 0) {
    await tx.insertInto("public_manual_order").values(
      ids.map((group_id, position) => ({
        site_id: options.siteId,
        model_id: options.modelId,
        group_id,
        position,
      })),
    ).execute();
  }
  const row = await tx.insertInto("public_manual_order_revisions")
    .values({
      site_id: options.siteId,
      model_id: options.modelId,
      revision: 1,
    })
    .onConflict((oc) =>
      oc.columns(["site_id", "model_id"]).doUpdateSet((eb) => ({
        revision: eb("public_manual_order_revisions.revision", "+", 1),
      }))
    ).returning("revision").executeTakeFirstOrThrow();
  return { revision: row.revision };
}
