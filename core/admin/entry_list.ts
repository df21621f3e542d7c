// One model's entry list for the admin: filters, sort, full-text search through site search, keyset pages.
import { sql } from "kysely";
import { readableFields, readReach } from "../access/decide.ts";
import { listModels } from "../models/model_reads.ts";
import type { StoredModel } from "../models/store_rows.ts";
import { search } from "../search/search.ts";
import { searchPlan } from "../search/plan.ts";
import { searchWords } from "../search/words.ts";
import { getSettings } from "../sites/settings.ts";
import type { AdminContext } from "./context.ts";
import { entryTitle, listTitleHolds, titleFieldOf } from "./titles.ts";

/** Page sizes of the list: the last accepted and what larger values are clamped to. */
export const LIST_LIMITS = { default: 25, max: 100 } as const;

/** Status filter values. */
export const STATUSES = [
  "any",
  "draft",
  "published",
  "changed",
  "trashed",
] as const;
/** Review stage filter values. */
export const STAGES = [
  "draft",
  "in_review",
  "changes_requested",
  "approved",
] as const;
/** Sort keys; a leading `-` sorts descending. */
export const SORTS = ["updated", "created", "title"] as const;

/** A search that matches fewer instances than this lists only the groups they belong to. */
const SEARCH_NARROWS_BELOW = 1_000;

/** The list's query, parsed from the URL. */
export interface ListQuery {
  /** Empty: every language, each entry shown in its first language. */
  lang: string;
  status: typeof STATUSES[number];
  stage: string;
  q: string;
  field: string;
  value: string;
  sort: typeof SORTS[number];
  desc: boolean;
  columns: string[];
  limit: number;
  cursor: string;
}

/** Reads the list query from URL parameters; unknown values fall back to defaults. */
export function parseListQuery(
  params: URLSearchParams,
  model: StoredModel,
): ListQuery {
  const status = params.get("status") ?? "any";
  const sortParam = params.get("sort") ?? "-updated";
  const desc = sortParam.startsWith("-");
  const sort = sortParam.replace(/^-/, "");
  const limit = Number(params.get("limit") ?? LIST_LIMITS.default);
  const keys = new Set(model.fields.map((f) => f.key));
  const columns = params.getAll("col").filter((k) => keys.has(k));
  return {
    lang: params.get("lang") ?? "",
    status: (STATUSES as readonly string[]).includes(status)
      ? status as ListQuery["status"]
      : "any",
    stage: (STAGES as readonly string[]).includes(params.get("stage") ?? "")
      ? params.get("stage")!
      : "",
    q: (params.get("q") ?? "").slice(0, 200),
    field: keys.has(params.get("field") ?? "") ? params.get("field")! : "",
    value: (params.get("value") ?? "").slice(0, 200),
    sort: (SORTS as readonly string[]).includes(sort)
      ? sort as ListQuery["sort"]
      : "updated",
    desc,
    columns: columns.length > 0 ? columns : defaultColumns(model),
    limit: Number.isInteger(limit) && limit >= 1
      ? Math.min(limit, LIST_LIMITS.max)
      : LIST_LIMITS.default,
    cursor: params.get("cursor") ?? "",
  };
}

/** The first three short fields beside the title. */
export function defaultColumns(model: StoredModel): string[] {
  const title = titleFieldOf(model)?.key;
  const short = new Set(["select", "date", "datetime", "number", "boolean"]);
  return model.fields.filter((f) => f.key !== title && short.has(f.type))
    .slice(0, 3).map((f) => f.key);
}

/** One row of the list. */
export interface ListRow {
  groupId: string;
  /** The listed language's own entry id (what plugin columns answer cells for). */
  instanceId: string;
  revision: number;
  locale: string;
  slug: string;
  title: string;
  status: "draft" | "published" | "changed" | "trashed";
  stage: string;
  /** Column values as text. */
  cells: Record<string, string>;
  /** Each site language: `translated`, or absent when the entry lacks it. */
  languages: string[];
  updatedAt: string;
}

/** A page of the list. */
export interface ListPage {
  rows: ListRow[];
  nextCursor: string | null;
  /** Set when a search ran: it reads published text of searched models, drafts match by title. */
  searched: boolean;
}

interface CursorState {
  k: string;
  id: string;
  b: string;
}

function binding(query: ListQuery): string {
  return JSON.stringify([
    query.lang,
    query.status,
    query.stage,
    query.q,
    query.field,
    query.value,
    query.sort,
    query.desc,
  ]);
}

function encode(state: CursorState): string {
  return btoa(unescape(encodeURIComponent(JSON.stringify(state))))
    .replaceAll("+", "-").replaceAll("/", "_").replaceAll("=", "");
}

function decode(cursor: string, query: ListQuery): CursorState | null {
  try {
    const state = JSON.parse(
      decodeURIComponent(
        escape(atob(cursor.replaceAll("-", "+").replaceAll("_", "/"))),
      ),
    ) as CursorState;
    return state.b === binding(query) && typeof state.k === "string" &&
        typeof state.id === "string"
      ? state
      : null;
  } catch {
    return null;
  }
}

function cellText(value: unknown): string {
  if (value === null || value === undefined) return "";
  if (typeof value === "boolean") return value ? "Yes" : "No";
  if (Array.isArray(value)) return value.map(cellText).join(", ");
  if (typeof value === "object") return JSON.stringify(value).slice(0, 80);
  const text = String(value);
  return text.length > 80 ? `${text.slice(0, 79)}…` : text;
}

/** Slugs of the model's entries that site search finds for `q` (published text), at most 200. */
async function searchedSlugs(
  ctx: AdminContext,
  model: StoredModel,
  q: string,
  locale: string,
): Promise<string[]> {
  const words = searchWords(q);
  if (words.length === 0) return [];
  const { db, clock } = ctx.services;
  const settings = await getSettings({ db, siteId: ctx.site.id }, "search");
  const plan = searchPlan(
    settings.document,
    await listModels({ db, clock, siteId: ctx.site.id }),
  );
  const only = {
    ...plan,
    types: plan.types.filter((t) => t.model.id === model.id),
  };
  if (only.types.length === 0) return [];
  const found = await search({ db, clock }, only, {
    siteId: ctx.site.id,
    locale,
    words,
    limit: 200,
  });
  return found.ok ? found.answer.data.map((r) => r.slug) : [];
}

/** Reads one page of the model's list as the person may see it. */
export async function listEntries(
  ctx: AdminContext,
  model: StoredModel,
  query: ListQuery,
): Promise<ListPage> {
  const { db } = ctx.services;
  const siteId = ctx.site.id;
  const reach = readReach(ctx.authority, model.id);
  if (reach === "none") return { rows: [], nextCursor: null, searched: false };
  const titleKey = titleFieldOf(model)?.key ?? null;
  const readableKeys = new Set(
    readableFields(ctx.authority, model.id, model.fields.map((f) => f.key)),
  );
  // Without a language the row is the group's first language, joined by `primary_entry_id`
  // alone: joining on the group id as well makes PostgreSQL think almost no row matches and
  // sort the whole model instead of walking the groups' time index a page at a time.
  let q = db.selectFrom("entries as e")
    .innerJoin(
      "entry_groups as g",
      (j) =>
        query.lang !== ""
          ? j.onRef("g.id", "=", "e.group_id").onRef(
            "g.site_id",
            "=",
            "e.site_id",
          )
          : j.onRef("g.primary_entry_id", "=", "e.id").onRef(
            "g.site_id",
            "=",
            "e.site_id",
          ),
    )
    .leftJoin(
      "entry_versions as v",
      (j) =>
        j.onRef("v.id", "=", "e.current_version_id").onRef(
          "v.site_id",
          "=",
          "e.site_id",
        ),
    )
    .leftJoin(
      "entry_reviews as r",
      (j) =>
        j.onRef("r.group_id", "=", "g.id").onRef("r.site_id", "=", "g.site_id")
          .onRef("r.version_id", "=", "g.current_version_id"),
    )
    .select([
      "e.id",
      "e.group_id",
      "e.locale",
      "e.slug",
      "e.current_version_id",
      "e.published_version_id",
      "g.revision",
      "g.trashed_at",
      "g.updated_at",
      "g.created_at",
      "v.fields",
      "r.stage",
    ])
    .where("e.site_id", "=", siteId).where("e.model_id", "=", model.id)
    .where("g.site_id", "=", siteId).where("g.model_id", "=", model.id);
  if (reach === "own") q = q.where("g.created_by", "=", ctx.user.id);
  // `first_language` is implied by the join on `primary_entry_id`; saying it lets a title sort
  // walk the partial index of first languages.
  q = query.lang !== ""
    ? q.where("e.locale", "=", query.lang)
    : q.where("e.first_language", "=", true);
  switch (query.status) {
    case "trashed":
      q = q.where("g.trashed_at", "is not", null);
      break;
    case "draft":
      q = q.where("g.trashed_at", "is", null)
        .where("e.published_version_id", "is", null);
      break;
    case "published":
      q = q.where("g.trashed_at", "is", null)
        .where("e.published_version_id", "is not", null);
      break;
    case "changed":
      q = q.where("g.trashed_at", "is", null)
        .where("e.published_version_id", "is not", null)
        .whereRef("e.published_version_id", "!=", "e.current_version_id");
      break;
    default:
      q = q.where("g.trashed_at", "is", null);
  }
  if (query.stage === "draft") {
    q = q.where((eb) =>
      eb.or([eb("r.stage", "is", null), eb("r.stage", "=", "draft")])
    );
  } else if (query.stage !== "") {
    q = q.where("r.stage", "=", query.stage as "in_review");
  }
  if (query.field !== "" && readableKeys.has(query.field)) {
    const field = model.fields.find((f) => f.key === query.field)!;
    const text = sql<string>`v.fields->>${query.field}`;
    if (query.value === "") {
      q = q.where(sql<boolean>`(${text} is null or ${text} = '')`);
    } else if (field.type === "text" || field.type === "rich_text") {
      q = q.where(
        sql<boolean>`strpos(lower(${text}), lower(${query.value})) > 0`,
      );
    } else if (
      field.type === "select" || field.type === "relation" ||
      field.type === "media"
    ) {
      // A list value holds the chosen value among its items; a single value equals it.
      q = q.where(
        sql<
          boolean
        >`(${text} = ${query.value} or (jsonb_typeof(v.fields->${query.field}) = 'array' and v.fields->${query.field} @> ${
          JSON.stringify([query.value])
        }::jsonb))`,
      );
    } else {
      q = q.where(text, "=", query.value);
    }
  }
  let searched = false;
  if (query.q.trim() !== "") {
    searched = true;
    const slugs = await searchedSlugs(
      ctx,
      model,
      query.q,
      query.lang || ctx.site.defaultLanguage,
    );
    const words = query.q.trim();
    // Slugs are lower-case, so the typed text is compared lowered. Naming the site's languages
    // lets the (site, model, locale, slug) index find slugs, beside the titles' trigram index.
    const bySlug = [...new Set([...slugs, words.toLowerCase()])];
    const locales = query.lang !== "" ? [query.lang] : ctx.site.languages;
    const matches = sql<boolean>`(${
      titleKey ? listTitleHolds(words) : sql`false`
    } or (e.locale in (${sql.join(locales)}) and e.slug in (${
      sql.join(bySlug)
    })))`;
    // The trigram index finds the entries a piece of a title names at once, but asked for the
    // newest 25 the planner walks every group in time order looking for them. So the matching
    // groups are read first; when they are few, the list reads only those.
    let hits = db.selectFrom("entries as e").select("e.group_id")
      .where("e.site_id", "=", siteId).where("e.model_id", "=", model.id)
      .where(matches);
    if (query.lang !== "") hits = hits.where("e.locale", "=", query.lang);
    const found = await hits.limit(SEARCH_NARROWS_BELOW).execute();
    if (found.length === 0) return { rows: [], nextCursor: null, searched };
    if (found.length < SEARCH_NARROWS_BELOW) {
      q = q.where("g.id", "in", [...new Set(found.map((r) => r.group_id))]);
    }
    q = q.where(matches);
  }
  const key = query.sort === "title" && titleKey
    ? sql<string>`e.list_title`
    : query.sort === "created"
    ? sql<string>`g.created_at`
    : sql<string>`g.updated_at`;
  const keyText = query.sort === "title" && titleKey ? key : sql<
    string
  >`to_char(${key} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US')`;
  const after = query.cursor ? decode(query.cursor, query) : null;
  const dir = query.desc ? sql`desc` : sql`asc`;
  const op = query.desc ? sql`<` : sql`>`;
  // Time sorts walk the (site, model, time, id) index of entry_groups in order and stop after a
  // page; the cursor's text key is read back as the UTC time it was written from.
  const byTime = !(query.sort === "title" && titleKey);
  if (after) {
    q = q.where(
      byTime
        ? sql<
          boolean
        >`(${key}, g.id) ${op} ((${after.k}::timestamp at time zone 'UTC'), ${after.id}::uuid)`
        : sql<
          boolean
        >`(e.list_title, e.group_id) ${op} (${after.k}, ${after.id}::uuid)`,
    );
  }
  const rows = await q.select(keyText.as("sort_key"))
    .orderBy(sql`${key} ${dir}`)
    .orderBy(byTime ? sql`g.id ${dir}` : sql`e.group_id ${dir}`)
    .limit(query.limit + 1).execute();
  const pageRows = rows.slice(0, query.limit);
  const groupIds = pageRows.map((r) => r.group_id);
  const languages = groupIds.length === 0 ? [] : await db.selectFrom("entries")
    .select(["group_id", "locale"]).where("site_id", "=", siteId)
    .where("group_id", "in", groupIds).execute();
  const last = pageRows.at(-1);
  return {
    searched,
    nextCursor: rows.length > query.limit && last
      ? encode({
        k: String(last.sort_key),
        id: last.group_id,
        b: binding(query),
      })
      : null,
    rows: pageRows.map((row) => {
      const all = (row.fields ?? {}) as Record<string, unknown>;
      const values = Object.fromEntries(
        Object.entries(all).filter(([k]) => readableKeys.has(k)),
      );
      return {
        groupId: row.group_id,
        instanceId: row.id,
        revision: row.revision,
        locale: row.locale,
        slug: row.slug,
        title: entryTitle(model, values, row.slug),
        status: row.trashed_at !== null
          ? "trashed"
          : row.published_version_id === null
          ? "draft"
          : row.published_version_id !== row.current_version_id
          ? "changed"
          : "published",
        stage: row.stage ?? "draft",
        cells: Object.fromEntries(
          query.columns.filter((k) => readableKeys.has(k)).map((
            k,
          ) => [k, cellText(values[k])]),
        ),
        languages: languages.filter((l) => l.group_id === row.group_id).map((
          l,
        ) => l.locale),
        updatedAt: new Date(row.updated_at).toISOString(),
      };
    }),
  };
}
