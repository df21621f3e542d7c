// Trash and restore: move a whole group out of and back into service, keeping its publication as it was.
import { runCommand } from "./command.ts";
import { auditTarget, bumpRevision, loadTargets, permit } from "./targets.ts";
import { readResult } from "./store.ts";
import type { LifecycleContext, LifecycleOutcome } from "./types.ts";

/** Moving a whole group to Trash or back. */
export interface TrashOptions {
  group_id: string;
  /** When given, a different revision is refused `workflow_conflict`. */
  expected_workflow_revision?: number;
}

function moveTrash(
  ctx: LifecycleContext,
  options: TrashOptions,
  into: boolean,
): Promise<LifecycleOutcome> {
  return runCommand(ctx, async (scope) => {
    const loaded = await loadTargets(
      scope,
      ctx.siteId,
      options.group_id,
      undefined,
    );
    if ("ok" in loaded) return loaded;
    const { group, instances } = loaded;
    const denied = permit(scope, group, into ? "delete" : "restore", instances);
    if (denied) return denied;
    const pin = options.expected_workflow_revision;
    if (pin !== undefined && pin !== group.revision) {
      return { ok: false, code: "workflow_conflict" };
    }
    if ((group.trashed_at !== null) === into) {
      return { ok: false, code: "transition_unavailable" };
    }
    await bumpRevision(scope, group, into ? scope.now : null);
    const live = instances.some((i) => i.published_version_id !== null);
    const restored = live ? "published" : "draft";
    await scope.record([{
      groupId: group.id,
      entryId: null,
      locale: null,
      kind: into ? "trash" : "restore",
      from: into ? restored : "trashed",
      to: into ? "trashed" : restored,
      versionId: null,
      previousVersionId: null,
    }], {
      action: into ? "entry.trash" : "entry.restore",
      target: auditTarget(group, undefined),
      details: { revision: group.revision + 1 },
    });
    return await readResult(scope.tx, ctx.siteId, group.id);
  });
}

/** Moves the whole group to Trash (`delete` in every language); publication pointers are kept. */
export function trashEntry(
  ctx: LifecycleContext,
  options: TrashOptions,
): Promise<LifecycleOutcome> {
  return moveTrash(ctx, options, true);
}

/** Brings a trashed group back exactly as it was (`restore` in every language). */
export function restoreEntry(
  ctx: LifecycleContext,
  options: TrashOptions,
): Promise<LifecycleOutcome> {
  return moveTrash(ctx, options, false);
}
