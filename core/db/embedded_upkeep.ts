// The embedded engine runs no autovacuum, so the service does its work there every minute (main.ts):
// without statistics, cached plans walked a whole site's rows for one entry.
import {
  upkeepEmbedded,
  type UpkeepReport,
} from "../../plugins/sdk/pglite_upkeep.ts";
import { type Db, pgliteOf } from "./database.ts";

/**
 * Analyzes and vacuums the tables autovacuum would have by now, on the embedded engine; null on
 * PostgreSQL, whose autovacuum does it.
 */
export async function upkeepIfEmbedded(db: Db): Promise<UpkeepReport | null> {
  if (!pgliteOf(db)) return null;
  return await upkeepEmbedded(db);
}
