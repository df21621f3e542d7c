// Single-entry models: the one logical entry (Trash counts) claims the model in `entry_single_claims`.
import type { StoredModel } from "../models/store_rows.ts";
import type { CommandScope } from "./command.ts";
import type { LifecycleRefusal } from "./types.ts";

/**
 * Claims a single-entry model for a group being created, inside the create's transaction,
 * right after the group row is written. Another group of the model (in Trash or not)
 * refuses `single_entry_exists` (409) naming it. The claim's primary key is
 * `(site_id, model_id)`: of two concurrent creates the second waits for the first and
 * then sees its claim, so exactly one wins. Collection models are not checked.
 */
export async function claimSingleEntry(
  scope: CommandScope,
  siteId: string,
  model: StoredModel | null,
  groupId: string,
): Promise<LifecycleRefusal | null> {
  if (model?.kind !== "single") return null;
  const { tx } = scope;
  // Groups written before the model became single hold no claim; they still count.
  const other = await tx.selectFrom("entry_groups").select("id")
    .where("site_id", "=", siteId).where("model_id", "=", model.id)
    .where("id", "!=", groupId).orderBy("created_at").orderBy("id")
    .executeTakeFirst();
  if (other) return exists(other.id);
  const inserted = await tx.insertInto("entry_single_claims").values({
    site_id: siteId,
    model_id: model.id,
    group_id: groupId,
    created_at: scope.now,
  }).onConflict((oc) => oc.doNothing()).returning("group_id")
    .executeTakeFirst();
  if (inserted) return null;
  const holder = await tx.selectFrom("entry_single_claims").select("group_id")
    .where("site_id", "=", siteId).where("model_id", "=", model.id)
    .executeTakeFirstOrThrow();
  return exists(holder.group_id);
}

function exists(groupId: string): LifecycleRefusal {
  return {
    ok: false,
    code: "single_entry_exists",
    existing: { group_id: groupId },
  };
}
