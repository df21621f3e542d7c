// Daily housekeeping every instance may run: the work is idempotent, so overlapping runs are harmless.
import { deleteExpiredSessions } from "./auth/session_store.ts";
import { pruneSyncChanges } from "./sync/change_log.ts";
import { pruneOldVersions } from "./entries/version_retention.ts";
import type { Services } from "./services.ts";

/**
 * Prunes what has outlived its retention: sync changes older than 30 days, versions past
 * each site's `editorial.version_retention_days` that nothing names, and expired sessions.
 */
export async function runDailyMaintenance(
  services: Services,
): Promise<{ syncChanges: number; versions: number; sessions: number }> {
  const now = services.clock.now();
  const sites = await services.db.selectFrom("sites").select("id").execute();
  let syncChanges = 0;
  let versions = 0;
  for (const site of sites) {
    syncChanges += await pruneSyncChanges(services.db, site.id, now);
    versions += await pruneOldVersions(services.db, site.id, now);
  }
  const sessions = await deleteExpiredSessions(services);
  return { syncChanges, versions, sessions };
}
