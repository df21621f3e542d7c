// Keeps the read-side projections (public items, search documents, sync changes) current with
// every lifecycle command, inside the command's own transaction.
import type { Db } from "../db/database.ts";
import { refreshPublicItemsOfGroup } from "../public/projection.ts";
import { refreshSyncLog } from "../sync/change_log.ts";
import { refreshSearchDocuments } from "../search/index_documents.ts";
import { queueContentNotifications } from "../plugins/notifications.ts";

/** Refreshes what the public side derives from one translation group, in the caller's transaction. */
export type PublicationRefresher = (
  tx: Db,
  siteId: string,
  groupId: string,
) => Promise<void>;

/**
 * Every projection to refresh after a lifecycle command, in order. Each refresher re-reads the
 * group (it may be gone after a purge) and writes only what changed. Add one line per projection.
 */
const REFRESHERS: PublicationRefresher[] = [
  refreshPublicItemsOfGroup,
  refreshSyncLog, // after public_items: it diffs what that projection now serves
  refreshSearchDocuments,
  queueContentNotifications, // outbound plugin notifications, committed with the effect
];

/** Runs every refresher for `groupId`; called by the lifecycle command runner before it commits. */
export async function publicationChanged(
  tx: Db,
  siteId: string,
  groupId: string,
): Promise<void> {
  for (const refresh of REFRESHERS) await refresh(tx, siteId, groupId);
}
