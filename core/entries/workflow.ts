// The workflow block of an item: its revision and the transitions an actor may take now, whole and per language.
import { type Authority, loadAuthority } from "../access/authority.ts";
import { decide } from "../access/decide.ts";
import type { ModelAction } from "../access/permissions.ts";
import type { CommandId } from "../access/commands.ts";
import type { Actor } from "../access/actor.ts";
import type { Db } from "../db/database.ts";
import {
  groupPublishedVersionId,
  type GroupRow,
  hasUnpublishedChange,
  type InstanceRow,
  readGroup,
  readInstances,
} from "./store.ts";
import type { EntryState, LifecycleRefusal } from "./types.ts";
import { readReviewState, type ReviewState } from "./review_state.ts";
import {
  REVIEW_MOVES,
  type ReviewMove,
  type ReviewStage,
} from "./review_stage.ts";

/** A transition the actor may take now, and the state it leads to. */
export type WorkflowTransition =
  | { kind: "publish" | "unpublish" | "trash" | "restore"; to: EntryState }
  | { kind: ReviewMove; to: ReviewStage };

/** The transitions of one language, with its pins. */
export interface LocaleWorkflow {
  current_version_id: string | null;
  published_version_id: string | null;
  transitions: WorkflowTransition[];
}

/** The workflow block of an item (spec 1 part 2.8): pins plus only what the actor may do now. */
export interface WorkflowBlock {
  revision: number;
  current_version_id: string | null;
  published_version_id: string | null;
  transitions: WorkflowTransition[];
  locales: Record<string, LocaleWorkflow>;
}

/** What {@linkcode readWorkflow} needs. */
export interface WorkflowContext {
  db: Db;
  siteId: string;
  actor: Actor;
}

/** The answer of {@linkcode readWorkflow}. */
export type WorkflowOutcome =
  | { ok: true; workflow: WorkflowBlock }
  | LifecycleRefusal;

function allowed(
  authority: Authority,
  group: GroupRow,
  action: ModelAction | CommandId,
  on: readonly InstanceRow[],
): boolean {
  return decide(authority, {
    action,
    model: group.model_id,
    owner: group.created_by,
    languages: on.map((i) => i.locale),
  }).ok;
}

/**
 * Computes the block from stored rows, pure: a trashed group offers only `restore`; else
 * `publish` while some language has an unpublished change, `unpublish` while some language
 * is published, and `trash`; each only when `decide()` allows it for the languages it touches.
 * With review facts, the review moves of the current stage are offered too, and publishing
 * waits for approval where the site requires review.
 */
export function workflowBlock(
  authority: Authority,
  group: GroupRow,
  instances: readonly InstanceRow[],
  publishedVersionId: string | null,
  review: ReviewState = { stage: "draft", required: false },
): WorkflowBlock {
  const trashed = group.trashed_at !== null;
  const mayPublish = !(review.required && review.stage !== "approved");
  const live = instances.filter((i) => i.published_version_id !== null);
  const changing = instances.filter(hasUnpublishedChange);
  const transitions: WorkflowTransition[] = [];
  if (trashed) {
    if (allowed(authority, group, "restore", instances)) {
      transitions.push({
        kind: "restore",
        to: live.length ? "published" : "draft",
      });
    }
  } else {
    if (
      mayPublish && changing.length &&
      allowed(authority, group, "publish", changing)
    ) {
      transitions.push({ kind: "publish", to: "published" });
    }
    // Review speaks about a draft not yet published, so it is offered only while one exists.
    if (changing.length) {
      for (const [move, rule] of Object.entries(REVIEW_MOVES)) {
        if (
          rule.from.includes(review.stage) &&
          allowed(authority, group, rule.command, instances)
        ) {
          transitions.push({ kind: move as ReviewMove, to: rule.to });
        }
      }
    }
    if (live.length && allowed(authority, group, "unpublish", live)) {
      transitions.push({ kind: "unpublish", to: "draft" });
    }
    if (allowed(authority, group, "delete", instances)) {
      transitions.push({ kind: "trash", to: "trashed" });
    }
  }
  const locales: Record<string, LocaleWorkflow> = {};
  for (const instance of instances) {
    const own: WorkflowTransition[] = [];
    if (
      !trashed && mayPublish && hasUnpublishedChange(instance) &&
      allowed(authority, group, "publish", [instance])
    ) {
      own.push({ kind: "publish", to: "published" });
    }
    if (
      !trashed && instance.published_version_id !== null &&
      allowed(authority, group, "unpublish", [instance])
    ) {
      own.push({ kind: "unpublish", to: "draft" });
    }
    locales[instance.locale] = {
      current_version_id: instance.current_version_id,
      published_version_id: instance.published_version_id,
      transitions: own,
    };
  }
  return {
    revision: group.revision,
    current_version_id: group.current_version_id,
    published_version_id: publishedVersionId,
    transitions,
    locales,
  };
}

/**
 * Reads the workflow block of a group for the actor now. Refusals: the actor's authority
 * refusal (a plugin's unusable delegation is `requester_unauthorized`, never a shorter
 * list), `not_found`, and `missing_permission` when the actor may not read the item.
 */
export async function readWorkflow(
  ctx: WorkflowContext,
  options: { group_id: string },
): Promise<WorkflowOutcome> {
  const loaded = await loadAuthority(ctx.db, {
    siteId: ctx.siteId,
    actor: ctx.actor,
  });
  if (!loaded.ok) return { ok: false, code: loaded.code };
  const group = await readGroup(ctx.db, ctx.siteId, options.group_id);
  if (!group) return { ok: false, code: "not_found" };
  const read = decide(loaded.authority, {
    action: "read",
    model: group.model_id,
    owner: group.created_by,
  });
  if (!read.ok) return { ...read };
  const instances = await readInstances(ctx.db, ctx.siteId, group.id);
  const published = await groupPublishedVersionId(
    ctx.db,
    ctx.siteId,
    instances,
  );
  return {
    ok: true,
    workflow: workflowBlock(
      loaded.authority,
      group,
      instances,
      published,
      await readReviewState(ctx.db, ctx.siteId, group.id),
    ),
  };
}
