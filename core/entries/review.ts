// Non-publishing workflow moves (submit, approve, request changes, withdraw) and who acts next.
import { loadAuthority } from "../access/authority.ts";
import { decide } from "../access/decide.ts";
import { refusalOf, runCommand } from "./command.ts";
import {
  REVIEW_MOVES,
  type ReviewMove,
  type ReviewStage,
} from "./review_stage.ts";
import { hasUnpublishedChange, readResult } from "./store.ts";
import { auditTarget, bumpRevision, loadTargets } from "./targets.ts";
import type { LifecycleContext, LifecycleOutcome } from "./types.ts";
import type { Db } from "../db/database.ts";
import {
  getSettings,
  settingsFromRow,
  settingsHeld,
} from "../sites/settings.ts";
import { sql } from "kysely";

/** The review facts publication depends on: the stage now, and whether the site requires approval. */
export interface ReviewState {
  stage: ReviewStage;
  /** Settings → editorial `review_required`: publishing needs an approved draft. */
  required: boolean;
}

/** Reads the group's review stage and the site's editorial rule. */
export async function readReviewState(
  db: Db,
  siteId: string,
  groupId: string,
): Promise<ReviewState> {
  if (settingsHeld({ db, siteId }, "editorial")) {
    const editorial = await getSettings({ db, siteId }, "editorial");
    return {
      stage: await readReviewStage(db, siteId, groupId),
      required: editorial.document.review_required,
    };
  }
  // The site's editorial document and the group's review row, in one statement.
  const { rows: [row] } = await sql<ReviewStateRow>`
    select st.key as settings_key, st.document, st.revision, st.updated_at, r.stage, r.version_id,
      g.id as group_id, g.current_version_id
    from (select 1) as one
    left join site_settings st on st.site_id = ${siteId} and st.key = 'editorial'
    left join entry_reviews r on r.site_id = ${siteId} and r.group_id = ${groupId}
    left join entry_groups g on g.id = r.group_id and g.site_id = r.site_id
  `.execute(db);
  return reviewStateOf({ db, siteId }, row);
}

/** The columns {@linkcode reviewStateOf} reads, from left joins of the settings and review rows. */
export interface ReviewStateRow {
  /** Null when the site stores no editorial document (its defaults apply). */
  settings_key: string | null;
  document: unknown;
  revision: number | null;
  updated_at: Date | null;
  stage: ReviewStage | null;
  version_id: string | null;
  /** Null when the group has no review row. */
  group_id: string | null;
  current_version_id: string | null;
}

/**
 * The review state from a row a caller read in a statement of its own (see
 * {@linkcode ReviewStateRow}); inside a transaction the editorial document is kept for later steps.
 */
export function reviewStateOf(
  ctx: { db: Db; siteId: string },
  row: ReviewStateRow,
): ReviewState {
  const editorial = settingsFromRow(
    ctx,
    "editorial",
    row.settings_key === null ? undefined : {
      document: row.document,
      revision: row.revision!,
      updated_at: row.updated_at!,
    },
  );
  return {
    stage: reviewStageOf(row),
    required: editorial.document.review_required,
  };
}

/** The stage of a review row read with the group's current version (null columns: no row). */
export function reviewStageOf(
  row: Pick<
    ReviewStateRow,
    "stage" | "version_id" | "group_id" | "current_version_id"
  >,
): ReviewStage {
  // As readReviewStage: a stage about an older version reads as `draft`.
  return row.group_id === null || row.version_id !== row.current_version_id
    ? "draft"
    : row.stage!;
}

/** True when the site requires review and the group's current draft is not approved. */
export function reviewBlocksPublish(review: ReviewState): boolean {
  return review.required && review.stage !== "approved";
}

/** A review move, pinned to the workflow revision the caller read. */
export interface ReviewMoveOptions {
  group_id: string;
  move: ReviewMove;
  expected_workflow_revision: number;
}

/** The review stage of a group now; a stage about an older version reads as `draft`. */
export async function readReviewStage(
  db: Db,
  siteId: string,
  groupId: string,
): Promise<ReviewStage> {
  const row = await db.selectFrom("entry_reviews as r")
    .innerJoin(
      "entry_groups as g",
      (join) =>
        join.onRef("g.id", "=", "r.group_id").onRef(
          "g.site_id",
          "=",
          "r.site_id",
        ),
    )
    .select(["r.stage", "r.version_id", "g.current_version_id"])
    .where("r.site_id", "=", siteId).where("r.group_id", "=", groupId)
    .executeTakeFirst();
  if (!row || row.version_id !== row.current_version_id) return "draft";
  return row.stage;
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
