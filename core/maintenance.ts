// Daily housekeeping every instance may run: the work is idempotent, so overlapping runs are harmless.
import { deleteExpiredSessions } from "./auth/session_store.ts";
import { pruneSyncChanges } from "./sync/change_log.ts";
import type { Services } from "./services.ts";

/** Prunes what has outlived its retention: sync changes older than 30 days and expired sessions. */
export async function runDailyMaintenance(
  services: Services,
): Promise<{ syncChanges: number; sessions: number }> {
  const now = services.clock.now();
  const sites = await services.db.selectFrom("sites").select("id").execute();
  let syncChanges = 0;
  for (const site of sites) {
    syncChanges += await pruneSyncChanges(services.db, site.id, now);
  }
  const sessions = await deleteExpiredSessions(services);
  return { syncChanges, sessions };
}
