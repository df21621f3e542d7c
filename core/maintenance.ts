// Daily housekeeping every instance may run: the work is idempotent, so overlapping runs are harmless.
import { deleteExpiredSessions } from "./auth/session_store.ts";
import { pruneSyncChanges } from "./sync/change_log.ts";
import type { Services } from "./services.ts";
import { formAttachmentStore, purgeExpiredSubmissions } from "./forms/mod.ts";

/**
 * Prunes what has outlived its retention: sync changes older than 30 days, expired sessions and
 * form submissions past their retention (with their attachments' bytes).
 */
export async function runDailyMaintenance(
  services: Services,
): Promise<{ syncChanges: number; sessions: number; submissions: number }> {
  const now = services.clock.now();
  const sites = await services.db.selectFrom("sites").select("id").execute();
  let syncChanges = 0;
  for (const site of sites) {
    syncChanges += await pruneSyncChanges(services.db, site.id, now);
  }
  const sessions = await deleteExpiredSessions(services);
  const submissions = await purgeExpiredSubmissions({
    db: services.db,
    clock: services.clock,
    store: formAttachmentStore(services),
  });
  return { syncChanges, sessions, submissions };
}
