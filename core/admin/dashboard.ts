// The admin home: drafts waiting for review, the person's recent edits, recently published items.
import { sql } from "kysely";
import { readableFields } from "../access/decide.ts";
import { listModels } from "../models/model_reads.ts";
import type { StoredModel } from "../models/store_rows.ts";
import type { AdminContext } from "./context.ts";
import { entryTitle, readableModelIds } from "./titles.ts";

/** One line of a dashboard list. */
export interface DashboardItem {
  groupId: string;
  modelSlug: string;
  modelName: string;
  locale: string;
  title: string;
  /** ISO time of the event the list is about. */
  at: string;
}

/** The three lists of the dashboard. */
export interface Dashboard {
  inReview: DashboardItem[];
  myEdits: DashboardItem[];
  published: DashboardItem[];
}

const LIMIT = 8;

interface Row {
  group_id: string;
  model_id: string;
  locale: string;
  slug: string;
  fields: unknown;
  at: Date | string;
}

function toItems(
  ctx: AdminContext,
  models: Map<string, StoredModel>,
  rows: Row[],
): DashboardItem[] {
  return rows.flatMap((row) => {
    const model = models.get(row.model_id);
    if (!model) return [];
    const values = (row.fields ?? {}) as Record<string, unknown>;
    const readable = Object.fromEntries(
      readableFields(ctx.authority, model.id, Object.keys(values)).map((
        k,
      ) => [k, values[k]]),
    );
    return [{
      groupId: row.group_id,
      modelSlug: model.slug,
      modelName: model.name,
      locale: row.locale,
      title: entryTitle(model, readable, row.slug),
      at: new Date(row.at).toISOString(),
    }];
  });
}

/** Reads the dashboard for the person: only entries of models they may read (their own where `read:own`). */
export async function loadDashboard(ctx: AdminContext): Promise<Dashboard> {
  const { db, clock } = ctx.services;
  const siteId = ctx.site.id;
  const models = await listModels({ db, clock, siteId });
  const byId = new Map(models.map((m) => [m.id, m]));
  const { all, own } = readableModelIds(ctx, models);
  if (all.length === 0 && own.length === 0) {
    return { inReview: [], myEdits: [], published: [] };
  }
  // deno-lint-ignore no-explicit-any
  const visible = (eb: any) =>
    eb.or([
      ...(all.length ? [eb("g.model_id", "in", all)] : []),
      ...(own.length
        ? [eb.and([
          eb("g.model_id", "in", own),
          eb("g.created_by", "=", ctx.user.id),
        ])]
        : []),
    ]);
  const inReview = await db.selectFrom("entry_reviews as r")
    .innerJoin(
      "entry_groups as g",
      (j) =>
        j.onRef("g.id", "=", "r.group_id").onRef("g.site_id", "=", "r.site_id"),
    )
    .innerJoin(
      "entry_versions as v",
      (j) =>
        j.onRef("v.id", "=", "g.current_version_id").onRef(
          "v.site_id",
          "=",
          "g.site_id",
        ),
    )
    .innerJoin("entries as e", "e.id", "v.entry_id")
    .select([
      "g.id as group_id",
      "g.model_id",
      "v.locale",
      "e.slug",
      "v.fields",
      "r.updated_at as at",
    ])
    .where("r.site_id", "=", siteId).where("r.stage", "=", "in_review")
    .whereRef("r.version_id", "=", "g.current_version_id")
    .where("g.trashed_at", "is", null).where(visible)
    .orderBy("r.updated_at", "desc").limit(LIMIT).execute();
  const myEdits = await db.selectFrom("entry_versions as v")
    .innerJoin(
      "entry_groups as g",
      (j) =>
        j.onRef("g.id", "=", "v.group_id").onRef("g.site_id", "=", "v.site_id"),
    )
    .innerJoin("entries as e", "e.id", "v.entry_id")
    .select([
      "g.id as group_id",
      "g.model_id",
      "v.locale",
      "e.slug",
      "v.fields",
      "v.created_at as at",
    ])
    .where("v.site_id", "=", siteId)
    .where(sql<string>`v.created_by->>'person_id'`, "=", ctx.user.id)
    .whereRef("v.id", "=", "e.current_version_id")
    .where("g.trashed_at", "is", null).where(visible)
    .orderBy("v.created_at", "desc").limit(LIMIT).execute();
  const published = await db.selectFrom("entries as e")
    .innerJoin(
      "entry_groups as g",
      (j) =>
        j.onRef("g.id", "=", "e.group_id").onRef("g.site_id", "=", "e.site_id"),
    )
    .innerJoin(
      "entry_versions as v",
      (j) =>
        j.onRef("v.id", "=", "e.published_version_id").onRef(
          "v.site_id",
          "=",
          "e.site_id",
        ),
    )
    .select([
      "g.id as group_id",
      "g.model_id",
      "e.locale",
      "e.slug",
      "v.fields",
      "e.published_at as at",
    ])
    .where("e.site_id", "=", siteId).where("e.published_at", "is not", null)
    .where("g.trashed_at", "is", null).where(visible)
    .orderBy("e.published_at", "desc").limit(LIMIT).execute();
  return {
    inReview: toItems(ctx, byId, inReview as Row[]),
    myEdits: toItems(ctx, byId, myEdits as Row[]),
    published: toItems(ctx, byId, published as Row[]),
  };
}
