// Writes the sync change log inside the publication transaction: one ordered row per language
// whose served state changed (spec 3 part 4.5). Reads `public_items`, so it runs after that refresher.
import { sql } from "kysely";
import type { Db } from "../db/database.ts";

/** Changes older than this are pruned; a cursor that needs them is answered `409 reset_required`. */
export const SYNC_RETENTION_MS = 30 * 24 * 60 * 60 * 1000;

/**
 * Compares what each requested language of the group serves now (`public_items`, already
 * refreshed in this transaction) with what the log last recorded, and appends an `upsert` or
 * `delete` per language that changed. Sequence numbers come from a per-site counter row
 * updated under its row lock, so they follow commit order and a reader never sees a gap fill
 * in behind it.
 */
export async function refreshSyncLog(
  tx: Db,
  siteId: string,
  groupId: string,
): Promise<void> {
  const served = await tx.selectFrom("public_items")
    .select([
      "model_id",
      "requested_locale",
      "entry_id",
      "version_id",
      "slug",
      "published_at",
    ])
    .where("site_id", "=", siteId).where("group_id", "=", groupId).execute();
  const recorded = await tx.selectFrom("sync_entry_state")
    .select(["locale", "model_id", "fingerprint"])
    .where("site_id", "=", siteId).where("group_id", "=", groupId).execute();
  const now = new Map(
    served.map((r) => [r.requested_locale, {
      model_id: r.model_id,
      fingerprint: [
        r.entry_id,
        r.version_id,
        r.slug,
        new Date(r.published_at).toISOString(),
      ].join("|"),
    }]),
  );
  const before = new Map(recorded.map((r) => [r.locale, r]));
  const changes: {
    locale: string;
    model_id: string;
    kind: "upsert" | "delete";
    fingerprint: string | null;
  }[] = [];
  for (const [locale, cur] of now) {
    if (before.get(locale)?.fingerprint !== cur.fingerprint) {
      changes.push({ locale, ...cur, kind: "upsert" });
    }
  }
  for (const [locale, old] of before) {
    if (!now.has(locale)) {
      changes.push({
        locale,
        model_id: old.model_id,
        kind: "delete",
        fingerprint: null,
      });
    }
  }
  if (changes.length === 0) return;
  changes.sort((a, b) => a.locale < b.locale ? -1 : 1);
  const first = await advanceSyncSeq(tx, siteId, changes.length);
  const at = new Date();
  await tx.insertInto("sync_changes").values(changes.map((c, i) => ({
    site_id: siteId,
    seq: first + i,
    group_id: groupId,
    model_id: c.model_id,
    locale: c.locale,
    kind: c.kind,
    created_at: at,
  }))).execute();
  const gone = changes.filter((c) => c.fingerprint === null);
  if (gone.length > 0) {
    await tx.deleteFrom("sync_entry_state").where("site_id", "=", siteId)
      .where("group_id", "=", groupId)
      .where("locale", "in", gone.map((c) => c.locale)).execute();
  }
  const kept = changes.filter((c) => c.fingerprint !== null);
  if (kept.length > 0) {
    await tx.insertInto("sync_entry_state").values(kept.map((c) => ({
      site_id: siteId,
      group_id: groupId,
      locale: c.locale,
      model_id: c.model_id,
      fingerprint: c.fingerprint!,
    }))).onConflict((oc) =>
      oc.columns(["site_id", "group_id", "locale"]).doUpdateSet((eb) => ({
        model_id: eb.ref("excluded.model_id"),
        fingerprint: eb.ref("excluded.fingerprint"),
      }))
    ).execute();
  }
}

/**
 * Takes `count` sequence numbers from the site's counter row and answers the first. One
 * upsert, under the row's lock until the transaction ends, so sequence order is commit order
 * and a reader never sees a gap fill in behind it.
 */
export async function advanceSyncSeq(
  tx: Db,
  siteId: string,
  count: number,
): Promise<number> {
  const bumped = await tx.insertInto("sync_sites").values({
    site_id: siteId,
    last_seq: count,
    pruned_through: 0,
  }).onConflict((oc) =>
    oc.column("site_id").doUpdateSet({
      last_seq: sql`sync_sites.last_seq + excluded.last_seq`,
    })
  ).returning("last_seq").executeTakeFirstOrThrow();
  return Number(bumped.last_seq) - count + 1;
}

/**
 * Deletes changes recorded before `now - SYNC_RETENTION_MS` and remembers the highest pruned
 * sequence, so cursors that needed them are answered `409 reset_required`. Run it from a cron.
 */
export async function pruneSyncChanges(
  db: Db,
  siteId: string,
  now: Date,
): Promise<number> {
  const cutoff = new Date(now.getTime() - SYNC_RETENTION_MS);
  return await db.transaction().execute(async (tx) => {
    const last = await tx.selectFrom("sync_changes")
      .select((eb) => eb.fn.max("seq").as("seq"))
      .where("site_id", "=", siteId).where("created_at", "<", cutoff)
      .executeTakeFirst();
    const through = last?.seq == null ? null : Number(last.seq);
    if (through === null) return 0;
    const removed = await tx.deleteFrom("sync_changes")
      .where("site_id", "=", siteId).where("seq", "<=", through)
      .executeTakeFirst();
    await tx.updateTable("sync_sites")
      .set({ pruned_through: sql`greatest(pruned_through, ${through})` })
      .where("site_id", "=", siteId).execute();
    return Number(removed.numDeletedRows);
  });
}
