// Release steps the release tests share: make a release from the manage view, add an entry to it
// from a content launch, read its rows, and post one of its page actions.
import { equal } from "node:assert/strict";
import type { PluginBrowser, SchedulingWorld } from "./world.ts";

/** Creates a release named `name` from the manage view; answers its id. */
export async function newRelease(
  manage: PluginBrowser,
  w: SchedulingWorld,
  name: string,
): Promise<string> {
  const made = await manage.post(
    `/installations/${w.installationId}/releases`,
    { name },
  );
  equal(made.status, 303);
  return /releases\/([0-9a-f-]{36})/.exec(made.headers.get("location")!)![1];
}

/** Posts an entry to a release from a content launch (a whole-group publish unless `fields` say otherwise). */
export async function postReleaseItem(
  w: SchedulingWorld,
  instanceId: string,
  releaseId: string,
  fields: Record<string, string> = {},
): Promise<Response> {
  const browser = await w.launch(instanceId);
  return await browser.post(
    `/installations/${w.installationId}/release-items`,
    {
      release: releaseId,
      transition: "publish:published",
      locale: "",
      version_mode: "ordinary",
      ...fields,
    },
  );
}

/** {@link postReleaseItem}, which must be accepted. */
export async function addToRelease(
  w: SchedulingWorld,
  instanceId: string,
  releaseId: string,
  fields: Record<string, string> = {},
): Promise<void> {
  const added = await postReleaseItem(w, instanceId, releaseId, fields);
  equal(added.status, 303, await added.clone().text());
  await added.body?.cancel();
}

/** The release's stored row. */
export async function releaseRow(w: SchedulingWorld, id: string) {
  return await w.scheduler.db.selectFrom("releases").selectAll()
    .where("id", "=", id).executeTakeFirstOrThrow();
}

/** The release's stored items. */
export async function releaseItemRows(w: SchedulingWorld, id: string) {
  return await w.scheduler.db.selectFrom("release_items").selectAll()
    .where("release_id", "=", id).execute();
}

/** Posts one of a release page's actions (`schedule`, `cancel`, `run`, `retry`, …). */
export function releaseAction(
  manage: PluginBrowser,
  w: SchedulingWorld,
  id: string,
  action: string,
  fields: Record<string, string> = {},
): Promise<Response> {
  return manage.post(
    `/installations/${w.installationId}/releases/${id}/${action}`,
    fields,
  );
}

/** Stave's answer to a release commit it refuses whole, as it would a stale pin. */
export function staleCommitAnswer(): Response {
  return Response.json({
    outcome: {
      code: "scheduled_target_stale",
      message: "Change 1: stale",
      retry: false,
    },
  }, { status: 409 });
}

/** Whether a call the plugin made is a release commit. */
export function isCommit(url: string): boolean {
  return url.endsWith("/releases/commit");
}

/** Stave refuses the first release commit (only the first) as stale. */
export function refuseFirstCommit(w: SchedulingWorld): void {
  w.wire.intercept = (url) =>
    isCommit(url) && w.wire.commits.length === 1
      ? staleCommitAnswer()
      : undefined;
}
