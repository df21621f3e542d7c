// A release and its items as stored, the refusal shape every release command answers, and the
// two reads every command starts from.
import type { ReleaseItemsTable, ReleasesTable, SchedulerDb } from "./db.ts";

export type Release =
  & Omit<ReleasesTable, "attempt" | "items_revision">
  & { attempt: number; items_revision: number };
export type ReleaseItem = Omit<ReleaseItemsTable, "attempt"> & {
  attempt: number;
};

/** A release refusal by name. */
export interface ReleaseRefusal {
  ok: false;
  code:
    | "invalid_request"
    | "not_found"
    | "already_in_release"
    | "release_full"
    | "release_changed"
    | "release_locked"
    | "release_blocked"
    | "release_empty"
    | "future_requires_publish"
    | "transition_unavailable"
    | "locale_unavailable"
    | "execution_in_progress"
    | "temporary_failure";
  message: string;
}

export function refusal(
  code: ReleaseRefusal["code"],
  message: string,
): ReleaseRefusal {
  return { ok: false, code, message };
}

/** One release of an installation. */
export async function readRelease(
  db: SchedulerDb,
  installationId: string,
  releaseId: string,
): Promise<Release | undefined> {
  if (!/^[0-9a-f-]{36}$/i.test(releaseId)) return undefined;
  return await db.selectFrom("releases").selectAll()
    .where("installation_id", "=", installationId)
    .where("id", "=", releaseId).executeTakeFirst();
}

/** A release's items in the order they were added. */
export async function releaseItems(
  db: SchedulerDb,
  releaseId: string,
): Promise<ReleaseItem[]> {
  return await db.selectFrom("release_items").selectAll()
    .where("release_id", "=", releaseId).orderBy("position").execute();
}
