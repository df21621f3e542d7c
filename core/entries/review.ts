// Non-publishing workflow moves (submit, approve, request changes, withdraw) and who acts next.
import { loadAuthority } from "../access/authority.ts";
import { decide } from "../access/decide.ts";
import { refusalOf, runCommand } from "./command.ts";
import { REVIEW_MOVES, type ReviewMove } from "./review_stage.ts";
import { hasUnpublishedChange, readResult } from "./store.ts";
import { auditTarget, bumpRevision, loadTargets } from "./targets.ts";
import type { LifecycleContext, LifecycleOutcome } from "./types.ts";
import { readReviewStage } from "./review_state.ts";
import type { Db } from "../db/database.ts";

/** A review move, pinned to the workflow revision the caller read. */
export interface ReviewMoveOptions {
  group_id: string;
  move: ReviewMove;
  expected_workflow_revision: number;
}

/** Moves the group's draft between review stages, with a workflow event and an audit entry. */
export function moveReview(
  ctx: LifecycleContext,
  options: ReviewMoveOptions,
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
    if (group.revision !== options.expected_workflow_revision) {
      return { ok: false, code: "workflow_conflict" };
    }
    const rule = REVIEW_MOVES[options.move];
    const decision = decide(scope.authority, {
      action: rule.command,
      model: group.model_id,
      owner: group.created_by,
      languages: instances.map((i) => i.locale),
    });
    if (!decision.ok) return refusalOf(decision);
    if (
      group.trashed_at !== null || !loaded.instances.some(hasUnpublishedChange)
    ) {
      return { ok: false, code: "transition_unavailable" };
    }
    const stage = await readReviewStage(scope.tx, ctx.siteId, group.id);
    if (!rule.from.includes(stage)) {
      return { ok: false, code: "transition_unavailable" };
    }
    await scope.tx.insertInto("entry_reviews").values({
      site_id: ctx.siteId,
      group_id: group.id,
      stage: rule.to,
      version_id: group.current_version_id,
      updated_at: scope.now,
    }).onConflict((oc) =>
      oc.columns(["site_id", "group_id"]).doUpdateSet({
        stage: rule.to,
        version_id: group.current_version_id,
        updated_at: scope.now,
      })
    ).execute();
    await bumpRevision(scope, group);
    await scope.record([{
      groupId: group.id,
      entryId: null,
      locale: null,
      kind: `review.${options.move}`,
      from: stage,
      to: rule.to,
      versionId: group.current_version_id,
      previousVersionId: null,
    }], {
      action: `entry.review.${options.move}`,
      target: auditTarget(group, undefined),
      details: {},
    });
    return await readResult(scope.tx, ctx.siteId, group.id);
  });
}

/** A person who may act next on an entry. */
export interface Assignee {
  user_id: string;
  email: string;
  display_name: string;
}

/** Active members of the site who may update or review the group's model (`GET /entries/{id}/assignees`). */
export async function listAssignees(
  ctx: Pick<LifecycleContext, "db" | "siteId">,
  groupId: string,
): Promise<Assignee[] | null> {
  const group = await ctx.db.selectFrom("entry_groups")
    .select(["model_id", "created_by"])
    .where("site_id", "=", ctx.siteId).where("id", "=", groupId)
    .executeTakeFirst();
  if (!group) return null;
  const members = await ctx.db.selectFrom("site_members as m")
    .innerJoin("users as u", "u.id", "m.user_id")
    .select(["u.id", "u.email", "u.display_name"])
    .where("m.site_id", "=", ctx.siteId).where("u.status", "=", "active")
    .orderBy("u.email").execute();
  const eligible: Assignee[] = [];
  for (const m of members) {
    // The same decision every door uses: may this person update or review the model now?
    const loaded = await loadAuthority(ctx.db, {
      siteId: ctx.siteId,
      actor: { kind: "person", userId: m.id },
    });
    if (!loaded.ok) continue;
    const may = (action: "update" | "review") =>
      decide(loaded.authority, {
        action,
        model: group.model_id,
        owner: group.created_by,
      })
        .ok;
    if (may("update") || may("review")) {
      eligible.push({
        user_id: m.id,
        email: m.email,
        display_name: m.display_name,
      });
    }
  }
  return eligible;
}

/** Names who acts next (`null` clears it); the person must be a candidate of {@link listAssignees}. */
export function assignEntry(
  ctx: LifecycleContext,
  options: { group_id: string; assignee_id: string | null },
): Promise<LifecycleOutcome> {
  return runCommand(ctx, async (scope) => {
    const loaded = await loadTargets(
      scope,
      ctx.siteId,
      options.group_id,
      undefined,
    );
    if ("ok" in loaded) return loaded;
    const { group } = loaded;
    const decision = decide(scope.authority, {
      action: "entries.assign",
      model: group.model_id,
      owner: group.created_by,
    });
    if (!decision.ok) return refusalOf(decision);
    if (options.assignee_id === null) {
      await scope.tx.deleteFrom("entry_assignments").where(
        "site_id",
        "=",
        ctx.siteId,
      )
        .where("group_id", "=", group.id).execute();
    } else {
      const candidates = await listAssignees({
        db: scope.tx,
        siteId: ctx.siteId,
      }, group.id);
      if (!candidates?.some((c) => c.user_id === options.assignee_id)) {
        return { ok: false, code: "assignee_not_eligible" };
      }
      const row = {
        site_id: ctx.siteId,
        group_id: group.id,
        assignee_id: options.assignee_id,
        assigned_by: scope.authority.personId,
        assigned_at: scope.now,
      };
      await scope.tx.insertInto("entry_assignments").values(row)
        .onConflict((oc) =>
          oc.columns(["site_id", "group_id"]).doUpdateSet(row)
        ).execute();
    }
    await scope.record([], {
      action: "entry.assign",
      target: auditTarget(group, undefined),
      details: { assignee_id: options.assignee_id },
    });
    return await readResult(scope.tx, ctx.siteId, group.id);
  });
}

/** Who acts next on the group, if anyone. */
export async function readAssignment(
  db: Db,
  siteId: string,
  groupId: string,
): Promise<string | null> {
  const row = await db.selectFrom("entry_assignments").select("assignee_id")
    .where("site_id", "=", siteId).where("group_id", "=", groupId)
    .executeTakeFirst();
  return row?.assignee_id ?? null;
}
