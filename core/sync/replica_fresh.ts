// Whether a read replica has replayed what a sync cursor names: a checkpoint issued after the
// replica's last replayed change is answered from the primary, never from an older state.
import { type Db, primaryOf } from "../db/database.ts";
import { decodeSyncCursor } from "./checkpoint.ts";

/**
 * The handle a sync read with `cursor` must use: `db` when it is the primary or has every change
 * the cursor counts, else its primary. A cursor that does not decode stays on `db`, where the
 * read refuses it as usual.
 */
export async function syncReaderFor(
  db: Db,
  siteId: string,
  cursor: string | undefined,
): Promise<Db> {
  const primary = primaryOf(db);
  if (primary === db || !cursor) return db;
  const decoded = await decodeSyncCursor(db, cursor);
  if (!decoded) return db;
  const position = decoded.position;
  const seq = position.phase === "snapshot"
    ? position.highWater
    : position.afterSeq;
  const row = await db.selectFrom("sync_sites").select("last_seq")
    .where("site_id", "=", siteId).executeTakeFirst();
  return Number(row?.last_seq ?? 0) >= seq ? db : primary;
}
