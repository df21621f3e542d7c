// Keeps the read-side projections (public items, search documents, sync changes) current with
// every lifecycle command, inside the command's own transaction.
import type { Db } from "../db/database.ts";
import { refreshPublicItemsOfGroup } from "../public/projection.ts";
import { refreshSyncLog } from "../sync/change_log.ts";
import { refreshSearchDocuments } from "../search/index_documents.ts";
import { queueContentNotifications } from "../plugins/notifications.ts";
import {
  type ChangedGroup,
  type PublicationChange,
  type PublicationRefresher,
  readChangedGroup,
  runTrailing,
} from "./publication_change.ts";

export type { PublicationRefresher } from "./publication_change.ts";

/**
 * Every projection to refresh after a lifecycle command, in order. The group is read once for
 * all of them (it may be gone after a purge); each writes only what changed. Add one line per
 * projection; `published` marks one that holds only what a published language serves, which a
 * group that stays unpublished ({@linkcode ChangedGroup.unpublished}) cannot change.
 */
const REFRESHERS: { refresh: PublicationRefresher; published: boolean }[] = [
  { refresh: refreshPublicItemsOfGroup, published: true },
  // after public_items: it diffs what that projection now serves
  { refresh: refreshSyncLog, published: true },
  { refresh: refreshSearchDocuments, published: true },
  // outbound plugin notifications, committed with the effect (a draft's save notifies too)
  { refresh: queueContentNotifications, published: false },
];

/**
 * Runs every refresher for `groupId`; called by the lifecycle command runner before it commits.
 * `written` is the group as the command itself just wrote it, when it knows: then it is not
 * read again.
 */
export async function publicationChanged(
  tx: Db,
  siteId: string,
  groupId: string,
  written?: ChangedGroup,
): Promise<void> {
  const change: PublicationChange = {
    siteId,
    groupId,
    group: written ?? await readChangedGroup(tx, siteId, groupId),
    trailing: [],
  };
  const unpublished = change.group?.unpublished === true;
  for (const { refresh, published } of REFRESHERS) {
    if (published && unpublished) continue;
    await refresh(tx, change);
  }
  await runTrailing(tx, change.trailing!);
}
