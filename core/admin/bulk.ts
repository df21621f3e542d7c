// Bulk actions of an entry list: each selected entry goes through the one lifecycle service, with its own result.
import {
  groupPublishedVersionId,
  readGroup,
  readInstances,
} from "../entries/store.ts";
import { moveReview } from "../entries/review.ts";
import {
  publishEntry,
  restoreEntry,
  trashEntry,
  unpublishEntry,
} from "../entries/mod.ts";
import type { LifecycleOutcome } from "../entries/types.ts";
import { isReviewMove } from "../entries/review_stage.ts";
import type { AdminContext } from "./context.ts";
import { refusalMessage } from "./messages.ts";
import type { PolicyKind } from "../plugins/policies.ts";
import {
  policyLines,
  policyRefusalText,
  underPolicies,
} from "./policy_checks.ts";

/** Bulk actions a list offers; `stage:<move>` moves the draft between review stages. */
export const BULK_ACTIONS = [
  "publish",
  "unpublish",
  "trash",
  "restore",
  "stage:submit",
  "stage:approve",
  "stage:request_changes",
  "stage:withdraw",
] as const;

/** How many entries one bulk action takes: the list's largest page. */
export const BULK_LIMIT = 100;

/** The result of one entry. */
export interface BulkResult {
  groupId: string;
  ok: boolean;
  message: string;
}

/** A selected entry: its id and the workflow revision the list showed (`id:revision`). */
export function parseSelection(
  values: string[],
): { groupId: string; revision: number }[] {
  return values.flatMap((v) => {
    const [groupId, revision] = v.split(":");
    const n = Number(revision);
    return groupId && Number.isInteger(n) ? [{ groupId, revision: n }] : [];
  });
}

/** The policy kind a bulk action is checked as (spec 2: the editor's checks). */
function checkOf(action: string): { kind: PolicyKind; transition: string } {
  if (action === "trash" || action === "restore") {
    return { kind: "trash", transition: action };
  }
  return { kind: "transition", transition: action.replace(/^stage:/, "") };
}

async function runOne(
  ctx: AdminContext,
  action: string,
  item: { groupId: string; revision: number },
  locale: string | undefined,
): Promise<{ ok: boolean; message: string }> {
  const { db } = ctx.services;
  const siteId = ctx.site.id;
  const group = await readGroup(db, siteId, item.groupId);
  if (!group) return { ok: false, message: refusalMessage("not_found") };
  const instances = await readInstances(db, siteId, group.id);
  const instance = locale
    ? instances.find((i) => i.locale === locale)
    : undefined;
  if (locale && !instance) {
    return { ok: false, message: refusalMessage("transition_unavailable") };
  }
  const check = checkOf(action);
  const checked = await underPolicies(ctx, {
    ...check,
    groupId: group.id,
    modelId: group.model_id,
    locale: check.kind === "transition" && !isReviewMove(check.transition)
      ? locale ?? null
      : null,
  }, (lifecycle) =>
    command(
      { ...ctx, lifecycle },
      action,
      group,
      instances,
      instance,
      item.revision,
      locale,
    ));
  if (!checked.ok) return { ok: false, message: policyRefusalText(checked) };
  const outcome = checked.outcome;
  if (!outcome.ok) return { ok: false, message: refusalMessage(outcome.code) };
  const notes = policyLines(checked.results);
  return {
    ok: true,
    message: notes.length > 0 ? `Done. ${notes.join(". ")}` : "Done",
  };
}

async function command(
  ctx: AdminContext,
  action: string,
  group: { id: string; current_version_id: string | null },
  instances: Awaited<ReturnType<typeof readInstances>>,
  instance: Awaited<ReturnType<typeof readInstances>>[number] | undefined,
  pin: number,
  locale: string | undefined,
): Promise<LifecycleOutcome> {
  const { db } = ctx.services;
  const siteId = ctx.site.id;
  switch (action) {
    case "publish":
      return await publishEntry(ctx.lifecycle, {
        group_id: group.id,
        locale,
        expected_current_version_id: instance
          ? instance.current_version_id
          : group.current_version_id,
        expected_workflow_revision: pin,
      });
    case "unpublish":
      return await unpublishEntry(ctx.lifecycle, {
        group_id: group.id,
        locale,
        expected_published_version_id: instance
          ? instance.published_version_id
          : await groupPublishedVersionId(db, siteId, instances),
        expected_workflow_revision: pin,
      });
    case "trash":
      return await trashEntry(ctx.lifecycle, {
        group_id: group.id,
        expected_workflow_revision: pin,
      });
    case "restore":
      return await restoreEntry(ctx.lifecycle, {
        group_id: group.id,
        expected_workflow_revision: pin,
      });
    default: {
      const move = action.replace(/^stage:/, "");
      if (!isReviewMove(move)) {
        return { ok: false, code: "transition_unavailable" };
      }
      return await moveReview(ctx.lifecycle, {
        group_id: group.id,
        move,
        expected_workflow_revision: pin,
      });
    }
  }
}

/** Runs the action on each selected entry in turn; one refusal never stops the others. */
export async function runBulk(
  ctx: AdminContext,
  options: {
    action: string;
    selection: { groupId: string; revision: number }[];
    locale?: string;
  },
): Promise<BulkResult[]> {
  const results: BulkResult[] = [];
  for (const item of options.selection.slice(0, BULK_LIMIT)) {
    const outcome = await runOne(ctx, options.action, item, options.locale);
    results.push({ groupId: item.groupId, ...outcome });
  }
  return results;
}
