// The related-draft grant of a preview link: its expanded relations show the saved drafts the
// link's creator may read now (their current authority, item by item) instead of published values.
import { loadAuthority } from "../access/authority.ts";
import { readReach } from "../access/decide.ts";
import type { Db } from "../db/database.ts";
import type { FieldDefinition } from "../models/field_types.ts";
import type { StoredModel } from "../models/store_rows.ts";
import type { DraftReach, ReadScope } from "./read_scope.ts";
import { type PublicRow, relationIds } from "./items.ts";
import type { DraftGrant } from "./preview_tokens.ts";
import { isId } from "../entries/store.ts";

export type { DraftReach };

/**
 * The grant's reach now: the creator's read permission per type, re-read on every request. A
 * creator deactivated or without site access reaches nothing, so published values show.
 */
export async function draftReachOf(
  db: Db,
  siteId: string,
  grant: DraftGrant,
  models: Iterable<string>,
): Promise<DraftReach> {
  const loaded = await loadAuthority(db, {
    siteId,
    actor: { kind: "person", userId: grant.personId },
  });
  const all = new Set<string>();
  const own = new Set<string>();
  if (loaded.ok) {
    for (const id of models) {
      const reach = readReach(loaded.authority, id);
      if (reach === "all") all.add(id);
      else if (reach === "own") own.add(id);
    }
  }
  return { grantId: grant.id, personId: grant.personId, all, own };
}

type DraftRow = PublicRow & { model_id: string };

/** The saved drafts in `locale` of `ids` the grant reaches, by group id (Trash left out). */
async function reachableDrafts(
  scope: ReadScope,
  reach: DraftReach,
  ids: string[],
  modelIds: string[],
): Promise<Map<string, DraftRow>> {
  const wanted = [...new Set(ids.filter((id) => isId(id)))];
  const models = modelIds.filter((m) => reach.all.has(m) || reach.own.has(m));
  if (wanted.length === 0 || models.length === 0) return new Map();
  const rows = await scope.db.selectFrom("entries as e")
    .innerJoin(
      "entry_groups as g",
      (j) =>
        j.onRef("g.site_id", "=", "e.site_id").onRef("g.id", "=", "e.group_id"),
    )
    .innerJoin(
      "entry_versions as v",
      (j) =>
        j.onRef("v.site_id", "=", "e.site_id")
          .onRef("v.id", "=", "e.current_version_id"),
    )
    .select([
      "e.group_id",
      "e.slug",
      "e.locale as served_locale",
      "v.number as version_number",
      "e.published_at",
      "v.fields",
      "g.model_id",
      "g.created_by",
    ])
    .where("e.site_id", "=", scope.siteId)
    .where("e.locale", "=", scope.locale)
    .where("e.group_id", "in", wanted)
    .where("g.model_id", "in", models)
    .where("g.trashed_at", "is", null)
    .execute();
  const out = new Map<string, DraftRow>();
  for (const { created_by, ...row } of rows) {
    if (reach.all.has(row.model_id) || created_by === reach.personId) {
      out.set(row.group_id, row as DraftRow);
    }
  }
  return out;
}

/** Relation targets of `rows` a granted preview shows: published ones and reachable drafts. */
export async function draftVisibleTargets(
  scope: ReadScope,
  reach: DraftReach,
  model: StoredModel,
  rows: PublicRow[],
  published: Set<string>,
): Promise<Set<string>> {
  const ids: string[] = [];
  for (const field of model.fields) {
    if (field.type !== "relation" || field.private) continue;
    for (const row of rows) ids.push(...relationIds(row.fields[field.key]));
  }
  const drafts = await reachableDrafts(scope, reach, ids, [
    ...scope.models.heads.keys(),
  ]);
  return new Set([...published, ...drafts.keys()]);
}

/**
 * One page of targets of each source's relation field from list position `after` on, each the
 * reachable saved draft in the request's language or else the published item.
 */
export async function draftTargetPage(
  scope: ReadScope,
  reach: DraftReach,
  field: FieldDefinition & { type: "relation" },
  sources: { group_id: string; fields: Record<string, unknown> }[],
  options: { after: number; limit: number },
): Promise<
  Map<string, { rows: (PublicRow & { pos: number })[]; hasMore: boolean }>
> {
  const target = field.config.targets[0];
  const lists = sources.map((s) => ({
    src: s.group_id,
    ids: relationIds(s.fields[field.key]),
  }));
  const all = lists.flatMap((l) =>
    l.ids.filter((id, i) => i > options.after && isId(id))
  );
  const drafts = await reachableDrafts(scope, reach, all, [target]);
  const rest = all.filter((id) => !drafts.has(id));
  const published = rest.length === 0
    ? []
    : await scope.db.selectFrom("public_items")
      .select([
        "group_id",
        "slug",
        "served_locale",
        "version_number",
        "published_at",
        "fields",
      ])
      .where("site_id", "=", scope.siteId).where("model_id", "=", target)
      .where("requested_locale", "=", scope.locale)
      .where("group_id", "in", [...new Set(rest)]).execute();
  const live = new Map(published.map((r) => [r.group_id, r as PublicRow]));
  const out = new Map<
    string,
    { rows: (PublicRow & { pos: number })[]; hasMore: boolean }
  >();
  for (const { src, ids } of lists) {
    const page: (PublicRow & { pos: number })[] = [];
    let hasMore = false;
    for (let pos = options.after + 1; pos < ids.length; pos++) {
      const row = drafts.get(ids[pos]) ?? live.get(ids[pos]);
      if (!row) continue;
      if (page.length === options.limit) {
        hasMore = true;
        break;
      }
      page.push({ ...row, pos });
    }
    out.set(src, { rows: page, hasMore });
  }
  return out;
}
