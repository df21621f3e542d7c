// The review facts publication depends on: a group's review stage and the site's editorial rule,
// read on their own or from a row a caller's statement read with other things.
import { sql } from "kysely";
import type { Db } from "../db/database.ts";
import {
  getSettings,
  settingsFromRow,
  settingsHeld,
} from "../sites/settings.ts";
import type { ReviewStage } from "./review_stage.ts";

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
