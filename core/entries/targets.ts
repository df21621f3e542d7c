// Shared steps of the transition commands: lock and read the targets, ask decide(), bump the revision.
import { decide } from "../access/decide.ts";
import type { ModelAction } from "../access/permissions.ts";
import { type CommandScope, refusalOf } from "./command.ts";
import {
  entriesWithLanguages,
  type GroupRow,
  type InstanceRow,
  readGroup,
  readInstances,
} from "./store.ts";
import type { LifecycleRefusal } from "./types.ts";
import type { Db } from "../db/database.ts";
import { getSettings, settingsHeld } from "../sites/settings.ts";
import {
  reviewStageOf,
  type ReviewState,
  reviewStateOf,
} from "./review_state.ts";
import { ENTRIES_COLUMNS } from "../db/row_columns.ts";
import { prebuilt } from "../db/prebuilt.ts";

/** The refusal for a group or language that is not on the site. */
export const NOT_FOUND: LifecycleRefusal = { ok: false, code: "not_found" };

/** A locked group, its languages, and the ones a command acts on. */
export interface Loaded {
  group: GroupRow;
  instances: InstanceRow[];
  targets: InstanceRow[];
  /** The group's review state, when asked for (`review: true`) and its languages carried it. */
  review?: ReviewState;
}

/**
 * Locks the group and reads its languages; `locale` narrows the targets to one. With `review`,
 * the group's review state is read in the statement that reads the languages.
 */
export async function loadTargets(
  scope: CommandScope,
  siteId: string,
  groupId: string,
  locale: string | undefined,
  options: { review?: boolean } = {},
): Promise<Loaded | LifecycleRefusal> {
  const group = await readGroup(scope.tx, siteId, groupId, { lock: true });
  if (!group) return NOT_FOUND;
  const { instances, review } = options.review
    ? await readInstancesAndReview(scope.tx, group)
    : { instances: await readInstances(scope.tx, siteId, groupId) };
  const loaded = review ? { review } : {};
  if (locale === undefined) {
    return { group, instances, targets: instances, ...loaded };
  }
  const one = instances.find((i) => i.locale === locale);
  return one ? { group, instances, targets: [one], ...loaded } : NOT_FOUND;
}

/**
 * The group's languages as {@linkcode readInstances} reads them, each row carrying the group's
 * review row and (unless this transaction read it already) the site's editorial document.
 * No review state when the group has no language to carry it.
 */
async function readInstancesAndReview(
  tx: Db,
  group: GroupRow,
): Promise<{ instances: InstanceRow[]; review?: ReviewState }> {
  const ctx = { db: tx, siteId: group.site_id };
  const held = settingsHeld(ctx, "editorial");
  const rows = await INSTANCES_AND_REVIEW[held ? 1 : 0].rows(tx, {
    siteId: group.site_id,
    groupId: group.id,
  });
  const instances = rows.map((
    {
      r_stage: _stage,
      r_version_id: _version,
      r_group_id: _group,
      st_key: _key,
      st_document: _document,
      st_revision: _revision,
      st_updated_at: _updated,
      ...instance
    },
  ) => instance);
  const first = rows[0];
  if (!first) return { instances };
  const row = {
    stage: first.r_stage,
    version_id: first.r_version_id,
    group_id: first.r_group_id,
    current_version_id: group.current_version_id,
  };
  if (held) {
    const editorial = await getSettings(ctx, "editorial");
    return {
      instances,
      review: {
        stage: reviewStageOf(row),
        required: editorial.document.review_required,
      },
    };
  }
  return {
    instances,
    review: reviewStateOf(ctx, {
      ...row,
      settings_key: first.st_key ?? null,
      document: first.st_document,
      revision: first.st_revision ?? null,
      updated_at: first.st_updated_at ?? null,
    }),
  };
}

/**
 * {@linkcode readInstancesAndReview}'s statement: with the site's editorial document, then
 * without it (the transaction read it already).
 */
const INSTANCES_AND_REVIEW = [false, true].map((held) =>
  prebuilt((db, v: { siteId: string; groupId: string }) =>
    entriesWithLanguages(db)
      .leftJoin(
        "entry_reviews as r",
        (join) =>
          join.onRef("r.site_id", "=", "entries.site_id")
            .onRef("r.group_id", "=", "entries.group_id"),
      )
      .select([
        "r.stage as r_stage",
        "r.version_id as r_version_id",
        "r.group_id as r_group_id",
      ])
      .$if(!held, (query) =>
        query.leftJoin(
          "site_settings as st",
          (join) =>
            join.onRef("st.site_id", "=", "entries.site_id")
              .on("st.key", "=", "editorial"),
        ).select([
          "st.key as st_key",
          "st.document as st_document",
          "st.revision as st_revision",
          "st.updated_at as st_updated_at",
        ]))
      .select(ENTRIES_COLUMNS)
      .where("entries.site_id", "=", v.siteId)
      .where("entries.group_id", "=", v.groupId)
      .orderBy("site_languages.position")
  )
);

/** Asks `decide()` for the action on the group in the given languages; null when allowed. */
export function permit(
  scope: CommandScope,
  group: GroupRow,
  action: ModelAction,
  languages: readonly InstanceRow[],
): LifecycleRefusal | null {
  const decision = decide(scope.authority, {
    action,
    model: group.model_id,
    owner: group.created_by,
    languages: languages.map((i) => i.locale),
  });
  return decision.ok ? null : refusalOf(decision);
}

/** Bumps the workflow revision (and moves Trash when `trashedAt` is given), conditional on the read revision. */
export async function bumpRevision(
  scope: CommandScope,
  group: GroupRow,
  trashedAt?: Date | null,
) {
  const result = await scope.tx.updateTable("entry_groups")
    .set({
      revision: group.revision + 1,
      updated_at: scope.now,
      ...(trashedAt === undefined ? {} : { trashed_at: trashedAt }),
    })
    .where("site_id", "=", group.site_id).where("id", "=", group.id)
    .where("revision", "=", group.revision)
    .executeTakeFirst();
  // The row lock makes this unreachable; the condition keeps the rule if the lock is ever lost.
  if (result.numUpdatedRows !== 1n) {
    throw new Error(`Group "${group.id}" moved under a lock`);
  }
}

/** The audit target of a command on the group, or on one language. */
export function auditTarget(group: GroupRow, locale: string | undefined) {
  return {
    kind: "entry" as const,
    group_id: group.id,
    model_id: group.model_id,
    locale: locale ?? null,
  };
}
