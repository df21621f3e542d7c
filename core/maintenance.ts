// Daily housekeeping every instance may run: the work is idempotent, so overlapping runs are harmless.
import { deleteExpiredSessions } from "./auth/session_store.ts";
import { pruneSyncChanges } from "./sync/change_log.ts";
import { pruneOldVersions } from "./entries/version_retention.ts";
import type { Services } from "./services.ts";
import { finishPendingCleanup, sweepOrphanObjects } from "./media/cleanup.ts";
import { mediaStorageOf } from "./media/storage_of.ts";
import { formAttachmentStore, purgeExpiredSubmissions } from "./forms/mod.ts";
import { pruneDataJobs } from "./data/jobs.ts";
import { pruneNotifications } from "./plugins/notifications.ts";

/**
 * Prunes what has outlived its retention (sync changes older than 30 days, versions past each
 * site's `editorial.version_retention_days` that nothing names, expired sessions,
 * form submissions past their retention with their attachments' bytes, import and export jobs
 * that have not moved for 30 days with their archives and exports, plugin notifications delivered
 * or failed more than a week ago)
 * and tidies media storage: deletions left pending, and objects no row names (a crash between
 * writing the bytes and the row).
 */
export async function runDailyMaintenance(
  services: Services,
): Promise<{
  syncChanges: number;
  versions: number;
  sessions: number;
  submissions: number;
  dataJobs: number;
  notifications: number;
  mediaCleanup: { deleted: number; pending: number } | null;
  mediaOrphans: number | null;
}> {
  const now = services.clock.now();
  const sites = await services.db.selectFrom("sites").select("id").execute();
  let syncChanges = 0;
  let versions = 0;
  for (const site of sites) {
    syncChanges += await pruneSyncChanges(services.db, site.id, now);
    versions += await pruneOldVersions(services.db, site.id, now);
  }
  const sessions = await deleteExpiredSessions(services);
  const ctx = { ...services, storage: mediaStorageOf(services) };
  let mediaCleanup = null;
  let mediaOrphans = null;
  try {
    mediaCleanup = await finishPendingCleanup(ctx);
    mediaOrphans = (await sweepOrphanObjects(ctx)).deleted.length;
  } catch (error) {
    // Storage being down must not stop the rest; the next run tries again.
    services.log({
      level: "warn",
      msg: "media maintenance failed",
      error: (error as Error).message,
    });
  }
  const submissions = await purgeExpiredSubmissions({
    db: services.db,
    clock: services.clock,
    store: formAttachmentStore(services),
  });
  const dataJobs = await pruneDataJobs(services.db, now);
  const notifications = await pruneNotifications(services.db, now);
  return {
    syncChanges,
    versions,
    sessions,
    submissions,
    dataJobs,
    notifications,
    mediaCleanup,
    mediaOrphans,
  };
}
