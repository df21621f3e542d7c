// SYNC-003: a change to a public media item is a change of every served item showing it, in the sync log.
import { sql } from "kysely";
import type { Db } from "../db/database.ts";
import { advanceSyncSeq } from "../sync/change_log.ts";

/**
 * Appends one `upsert` to the sync log for each served language instance whose values name
 * `mediaId`, in the command's transaction: sync clients re-read those items and get the media's
 * new public fields (URL, alt text, focal point, dimensions). Media nothing published shows is
 * not public, so it writes nothing.
 */
export async function logPublicMediaChange(
  tx: Db,
  siteId: string,
  mediaId: string,
  at: Date,
): Promise<number> {
  const shown = await sql<
    { group_id: string; model_id: string; requested_locale: string }
  >`
    select group_id, model_id, requested_locale from public_items
    where site_id = ${siteId} and fields::text like ${`%${mediaId}%`}
    order by group_id, requested_locale
  `.execute(tx);
  const rows = shown.rows;
  if (rows.length === 0) return 0;
  // The same per-site counter as entry changes: sequence order is commit order.
  const first = await advanceSyncSeq(tx, siteId, rows.length);
  await tx.insertInto("sync_changes").values(rows.map((r, i) => ({
    site_id: siteId,
    seq: first + i,
    group_id: r.group_id,
    model_id: r.model_id,
    locale: r.requested_locale,
    kind: "upsert" as const,
    created_at: at,
  }))).execute();
  return rows.length;
}
