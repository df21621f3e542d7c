// Deleting stored objects: right after a command when storage answers, else later by maintenance.
import type { Clock } from "../clock.ts";
import type { Db } from "../db/database.ts";
import type { MediaStorage } from "./storage.ts";
import { variantObjectId } from "./variants.ts";

/** What cleanup needs. */
export interface CleanupContext {
  db: Db;
  storage: MediaStorage;
  clock: Clock;
}

/**
 * Deletes objects already listed in `media_cleanup` (by the command's transaction) and drops
 * their rows; answers `pending` when storage could not delete one (maintenance retries it).
 */
export async function releaseObjects(
  ctx: CleanupContext,
  keys: string[],
): Promise<"complete" | "pending"> {
  let state: "complete" | "pending" = "complete";
  for (const key of keys) {
    try {
      await deleteVariantsOf(ctx.storage, key);
      await ctx.storage.delete(key);
      await ctx.db.deleteFrom("media_cleanup").where("storage_key", "=", key)
        .execute();
    } catch {
      state = "pending";
      await ctx.db.updateTable("media_cleanup")
        .set((eb) => ({ attempts: eb("attempts", "+", 1) }))
        .where("storage_key", "=", key).execute();
    }
  }
  return state;
}

/** Deletes the stored variants of the original at `key` (they live under its object id). */
async function deleteVariantsOf(storage: MediaStorage, key: string) {
  const m = /^(sites\/[0-9a-f-]{36}\/)([0-9a-f-]{36})\.[a-z0-9-]+$/.exec(key);
  if (!m) return;
  for await (const variant of storage.list(`${m[1]}variants/${m[2]}/`)) {
    await storage.delete(variant.key);
  }
}

/** Finishes every pending deletion storage accepts now; answers how many finished and how many remain. */
export async function finishPendingCleanup(
  ctx: CleanupContext,
): Promise<{ deleted: number; pending: number }> {
  const rows = await ctx.db.selectFrom("media_cleanup").select("storage_key")
    .orderBy("since").limit(10_000).execute();
  let deleted = 0;
  for (const { storage_key } of rows) {
    if (await releaseObjects(ctx, [storage_key]) === "complete") deleted++;
  }
  return { deleted, pending: rows.length - deleted };
}

/** Objects younger than this may belong to an upload whose row is being written right now. */
export const ORPHAN_GRACE_MS = 60 * 60 * 1000;

/**
 * Deletes stored objects no row names (a crash between writing the bytes and the row, or a
 * partial file), once they are older than {@link ORPHAN_GRACE_MS}. Never deletes a named object.
 */
export async function sweepOrphanObjects(
  ctx: CleanupContext,
): Promise<{ deleted: string[] }> {
  const cutoff = ctx.clock.now().getTime() - ORPHAN_GRACE_MS;
  const deleted: string[] = [];
  // Only the folders of this database's sites: storage shared with another installation (or a
  // developer's demo data) is never swept by a database that does not know its sites.
  const sites = await ctx.db.selectFrom("sites").select("id").execute();
  for (const site of sites) {
    await sweepSite(ctx, `sites/${site.id}/`, cutoff, deleted);
  }
  return { deleted };
}

async function sweepSite(
  ctx: CleanupContext,
  prefix: string,
  cutoff: number,
  deleted: string[],
) {
  for await (const object of ctx.storage.list(prefix)) {
    if (object.lastModified.getTime() > cutoff) continue;
    // A variant belongs to its original's object id: it stays while a row names that object.
    const variantOf = variantObjectId(object.key);
    const named = variantOf
      ? await ctx.db.selectFrom("media_files").select("id")
        .where("object_id", "=", variantOf)
        .union(
          ctx.db.selectFrom("media_originals").select("media_id as id")
            .where("object_id", "=", variantOf),
        ).executeTakeFirst()
      : await ctx.db.selectFrom("media_files").select("id")
        .where("storage_key", "=", object.key)
        .union(
          ctx.db.selectFrom("media_originals").select("media_id as id")
            .where("storage_key", "=", object.key),
        ).executeTakeFirst();
    if (named) continue;
    await ctx.storage.delete(object.key);
    await ctx.db.deleteFrom("media_cleanup").where(
      "storage_key",
      "=",
      object.key,
    ).execute();
    deleted.push(object.key);
  }
}
