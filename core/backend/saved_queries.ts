// Saved queries (spec 2 part 2.3 item 3, MOD-031): a named selection, filter, order and page
// size of one model, which the generated backend may serve on a declarative route. A route open
// to anonymous callers is public, so it may not select, filter or sort by a private column
// (`422 private_field_on_public_route`); a model change making a bound column private is
// refused the same way. See docs/backend-access.md.
import { type Selectable, sql } from "kysely";
import { z } from "zod";
import type { Db } from "../db/database.ts";
import { jsonColumn } from "../db/json_column.ts";
import type { SavedQueriesTable } from "../db/schema.ts";
import { isDate, UUID } from "../models/field_types.ts";
import type { FieldDefinition } from "../models/field_types.ts";
import { loadModels } from "../models/store_rows.ts";
import {
  type Audience,
  audienceIssues,
  AUDIENCES,
  type BackendContext,
  type InputIssue,
  MAX_RULE_ROLES,
  siteRoleIds,
} from "./access.ts";
import { type QueryColumn, queryColumns } from "./columns.ts";

/** Limits of a saved query (ours, docs/backend-access.md; `take` follows the generated lists' 100). */
export const SAVED_QUERY_LIMITS = {
  perSite: 100,
  name: 80,
  slug: 64,
  select: 32,
  filter: 4,
  orderBy: 3,
  take: 100,
  defaultTake: 25,
  filterText: 255,
} as const;

/** Where the generated backend serves a saved query bound to a route. */
export const SAVED_QUERY_ROUTE_BASE = "/api/_queries/";

const L = SAVED_QUERY_LIMITS;
const COLUMN = z.string().regex(/^(id|[a-z][a-z0-9_]{0,63})$/, {
  message: "A column is id or a field key",
});
const unique = (values: string[]) => new Set(values).size === values.length;

const name = z.string().trim().min(1).max(L.name);
const slug = z.string().max(L.slug).regex(/^[a-z0-9]+(?:-[a-z0-9]+)*$/, {
  message: "Lower-case letters and digits, words joined by single hyphens",
});
const select = z.array(COLUMN).min(1).max(L.select).refine(unique, {
  message: "Each column once",
});
const filter = z.record(
  COLUMN,
  z.union([z.string().max(L.filterText), z.number(), z.boolean()]),
).refine((f) => Object.keys(f).length <= L.filter, {
  message: `At most ${L.filter} columns`,
});
const orderBy = z.array(z.strictObject({
  field: COLUMN,
  direction: z.enum(["asc", "desc"]),
})).max(L.orderBy).refine((o) => unique(o.map((s) => s.field)), {
  message: "Each column once",
});
const take = z.number().int().min(1).max(L.take);

/** A route binding: who may call the saved query's route. */
export const savedQueryRoute = z.strictObject({
  audience: z.enum(AUDIENCES),
  roles: z.array(z.uuid()).max(MAX_RULE_ROLES).optional(),
});

/** The body that creates a saved query. */
export const createSavedQueryInput = z.strictObject({
  model_id: z.uuid(),
  name: name.describe(`1 to ${L.name} characters after trimming`),
  slug: slug.describe(
    `The route segment: 1 to ${L.slug} lower-case letters, digits and single hyphens`,
  ),
  select: select.describe(
    `1 to ${L.select} columns: id or top-level field keys, each once`,
  ),
  filter: filter.optional().describe(
    `Equality per column, at most ${L.filter} columns, ANDed`,
  ),
  order_by: orderBy.optional().describe(
    `At most ${L.orderBy} columns; id breaks ties`,
  ),
  take: take.optional().describe(
    `Rows per page, 1 to ${L.take}, default ${L.defaultTake}`,
  ),
  route: savedQueryRoute.nullable().optional().describe(
    "Serve the query on a declarative route, or null (the default) to keep it unserved",
  ),
});

/** The body that changes a saved query: the fields named replace their values. */
export const updateSavedQueryInput = createSavedQueryInput.omit({
  model_id: true,
}).partial();

/** A saved query as sent to create it. */
export type CreateSavedQueryInput = z.infer<typeof createSavedQueryInput>;
/** A saved query's changes as sent. */
export type UpdateSavedQueryInput = z.infer<typeof updateSavedQueryInput>;

/** A saved query as answered. */
export interface SavedQuery {
  id: string;
  model_id: string;
  name: string;
  slug: string;
  select: string[];
  filter: Record<string, string | number | boolean>;
  order_by: { field: string; direction: "asc" | "desc" }[];
  take: number;
  route: { path: string; audience: Audience; roles: string[] } | null;
  revision: number;
  created_at: string;
  updated_at: string;
}

/** A saved query's refusals. */
export type SavedQueryRefusal =
  | { ok: false; code: "not_found" }
  | { ok: false; code: "invalid_request"; issues: InputIssue[] }
  | { ok: false; code: "saved_query_invalid"; issues: InputIssue[] }
  | { ok: false; code: "private_field_on_public_route"; fields: string[] }
  | { ok: false; code: "saved_query_slug_taken"; slug: string }
  | { ok: false; code: "saved_query_limit"; limit: number };

function toSavedQuery(row: Selectable<SavedQueriesTable>): SavedQuery {
  return {
    id: row.id,
    model_id: row.model_id,
    name: row.name,
    slug: row.slug,
    select: jsonColumn<string[]>(row.select_fields),
    filter: jsonColumn<SavedQuery["filter"]>(row.filter),
    order_by: jsonColumn<SavedQuery["order_by"]>(row.order_by),
    take: row.take,
    route: row.route_audience === null ? null : {
      path: `${SAVED_QUERY_ROUTE_BASE}${row.slug}`,
      audience: row.route_audience as Audience,
      roles: jsonColumn<string[]>(row.route_role_ids),
    },
    revision: row.revision,
    created_at: new Date(row.created_at).toISOString(),
    updated_at: new Date(row.updated_at).toISOString(),
  };
}

/** The columns a query names, each once, in the order select, filter, order. */
function namedColumns(query: Omit<SavedQuery, "route">): string[] {
  return [
    ...new Set([
      ...query.select,
      ...Object.keys(query.filter),
      ...query.order_by.map((o) => o.field),
    ]),
  ];
}

/** The named columns a reader select leaves out, which a public route cannot serve. */
export function privateColumns(
  query: Omit<SavedQuery, "route">,
  columns: Map<string, QueryColumn>,
): string[] {
  return namedColumns(query).filter((key) => columns.get(key)?.private);
}

function filterIssue(
  column: QueryColumn,
  value: string | number | boolean,
): string | null {
  switch (column.type) {
    case "number":
      return typeof value === "number" ? null : "Expected a number";
    case "boolean":
      return typeof value === "boolean" ? null : "Expected true or false";
    case "date":
      return isDate(value) ? null : "Expected a date YYYY-MM-DD";
    case "datetime":
      return typeof value === "string" && !Number.isNaN(Date.parse(value))
        ? null
        : "Expected an ISO 8601 time";
    case "id":
      return typeof value === "string" && UUID.test(value)
        ? null
        : "Expected an id";
    default:
      return typeof value === "string" ? null : "Expected text";
  }
}

/** Every column a query names must exist; filtered and ordered columns must be comparable. */
function columnIssues(
  query: Omit<SavedQuery, "route">,
  columns: Map<string, QueryColumn>,
): InputIssue[] {
  const issues: InputIssue[] = [];
  const unknown = (path: string, key: string) =>
    issues.push({ path, message: `No column "${key}" on this model` });
  query.select.forEach((key, i) => {
    if (!columns.has(key)) unknown(`select.${i}`, key);
  });
  for (const [key, value] of Object.entries(query.filter)) {
    const column = columns.get(key);
    if (!column) unknown(`filter.${key}`, key);
    else if (!column.comparable) {
      issues.push({
        path: `filter.${key}`,
        message: `A ${column.type} column cannot be compared`,
      });
    } else {
      const problem = filterIssue(column, value);
      if (problem) issues.push({ path: `filter.${key}`, message: problem });
    }
  }
  query.order_by.forEach(({ field }, i) => {
    const column = columns.get(field);
    if (!column) unknown(`order_by.${i}.field`, field);
    else if (!column.comparable) {
      issues.push({
        path: `order_by.${i}.field`,
        message: `A ${column.type} column cannot be ordered by`,
      });
    }
  });
  return issues;
}

/** Checks a whole saved query against its model's fields and the site's roles. */
async function checkQuery(
  db: Db,
  siteId: string,
  query: SavedQuery,
  fields: readonly FieldDefinition[],
): Promise<SavedQueryRefusal | null> {
  const columns = queryColumns(fields);
  const issues = columnIssues(query, columns);
  if (issues.length > 0) {
    return { ok: false, code: "saved_query_invalid", issues };
  }
  if (query.route) {
    const roleIssues = audienceIssues(
      query.route,
      await siteRoleIds(db, siteId),
      "route",
    );
    if (roleIssues.length > 0) {
      return { ok: false, code: "invalid_request", issues: roleIssues };
    }
    if (query.route.audience === "anonymous") {
      const refused = privateColumns(query, columns);
      if (refused.length > 0) {
        return {
          ok: false,
          code: "private_field_on_public_route",
          fields: refused,
        };
      }
    }
  }
  return null;
}

function rowValues(query: SavedQuery) {
  return {
    name: query.name,
    slug: query.slug,
    select_fields: JSON.stringify(query.select),
    filter: JSON.stringify(query.filter),
    order_by: JSON.stringify(query.order_by),
    take: query.take,
    route_audience: query.route?.audience ?? null,
    route_role_ids: JSON.stringify(query.route?.roles ?? []),
  };
}

async function slugHolder(
  db: Db,
  siteId: string,
  slug: string,
): Promise<string | null> {
  const row = await db.selectFrom("saved_queries").select("id")
    .where("site_id", "=", siteId).where("slug", "=", slug).executeTakeFirst();
  return row?.id ?? null;
}

/**
 * Who made a change, for its audit entry; a keyed command also gives its key's digest, so a
 * retry after a lost answer proves what was done.
 */
export interface SavedQueryRecord {
  actor: unknown;
  keyDigest?: string;
}

/** Audit actions of saved queries that carry a key digest. */
export type SavedQueryAction =
  | "saved_query.create"
  | "saved_query.update"
  | "saved_query.delete";

async function writeRecord(
  db: Db,
  ctx: BackendContext,
  record: SavedQueryRecord | undefined,
  action: SavedQueryAction,
  query: SavedQuery,
): Promise<void> {
  await db.insertInto("audit_entries").values({
    id: crypto.randomUUID(),
    site_id: ctx.siteId,
    actor: JSON.stringify(record?.actor ?? null),
    action,
    target: JSON.stringify({ kind: "saved_query", id: query.id }),
    details: JSON.stringify({
      ...(record?.keyDigest
        ? { idempotency_key_digest: record.keyDigest }
        : {}),
      saved_query: query,
    }),
    created_at: ctx.clock.now(),
  }).execute();
}

/** The saved query a keyed command wrote, found by its key digest; null when none was. */
export async function findSavedQueryRecord(
  db: Db,
  siteId: string,
  action: SavedQueryAction,
  keyDigest: string,
): Promise<SavedQuery | null> {
  const row = await db.selectFrom("audit_entries").select("details")
    .where("site_id", "=", siteId).where("action", "=", action)
    .where(sql<string>`details->>'idempotency_key_digest'`, "=", keyDigest)
    .executeTakeFirst();
  return row
    ? jsonColumn<{ saved_query: SavedQuery }>(row.details).saved_query
    : null;
}

/** Every saved query of the site, by name. */
export async function listSavedQueries(
  ctx: Pick<BackendContext, "db" | "siteId">,
): Promise<SavedQuery[]> {
  const rows = await ctx.db.selectFrom("saved_queries").selectAll()
    .where("site_id", "=", ctx.siteId).orderBy("name").orderBy("id").execute();
  return rows.map(toSavedQuery);
}

/** One saved query, or null. */
export async function getSavedQuery(
  ctx: Pick<BackendContext, "db" | "siteId">,
  id: string,
): Promise<SavedQuery | null> {
  if (!UUID.test(id)) return null;
  const row = await ctx.db.selectFrom("saved_queries").selectAll()
    .where("site_id", "=", ctx.siteId).where("id", "=", id.toLowerCase())
    .executeTakeFirst();
  return row ? toSavedQuery(row) : null;
}

function routeOf(
  route: CreateSavedQueryInput["route"],
  slug: string,
): SavedQuery["route"] {
  if (!route) return null;
  return {
    path: `${SAVED_QUERY_ROUTE_BASE}${slug}`,
    audience: route.audience,
    roles: (route.roles ?? []).map((r) => r.toLowerCase()),
  };
}

/**
 * Creates a saved query of a live model. The site's saved queries are counted under the
 * model's lock, so concurrent creates cannot pass the cap together.
 */
export async function createSavedQuery(
  ctx: BackendContext,
  input: CreateSavedQueryInput,
  record?: SavedQueryRecord,
): Promise<{ ok: true; query: SavedQuery } | SavedQueryRefusal> {
  return await ctx.db.transaction().execute(async (trx) => {
    const [model] = await loadModels(trx, ctx.siteId, [
      input.model_id.toLowerCase(),
    ], true);
    if (!model) {
      return {
        ok: false,
        code: "invalid_request",
        issues: [{
          path: "model_id",
          message: `No model "${input.model_id}" on this site`,
        }],
      } as const;
    }
    const now = ctx.clock.now().toISOString();
    const query: SavedQuery = {
      id: crypto.randomUUID(),
      model_id: model.id,
      name: input.name,
      slug: input.slug,
      select: input.select,
      filter: input.filter ?? {},
      order_by: input.order_by ?? [],
      take: input.take ?? L.defaultTake,
      route: routeOf(input.route, input.slug),
      revision: 1,
      created_at: now,
      updated_at: now,
    };
    const refused = await checkQuery(trx, ctx.siteId, query, model.fields);
    if (refused) return refused;
    // Every create of the site takes the same lock, so the count cannot race.
    await trx.selectFrom("sites").select("id").where("id", "=", ctx.siteId)
      .forUpdate().execute();
    const { count } = await trx.selectFrom("saved_queries")
      .select((eb) => eb.fn.countAll<number>().as("count"))
      .where("site_id", "=", ctx.siteId).executeTakeFirstOrThrow();
    if (Number(count) >= L.perSite) {
      return {
        ok: false,
        code: "saved_query_limit",
        limit: L.perSite,
      } as const;
    }
    if (await slugHolder(trx, ctx.siteId, query.slug)) {
      return {
        ok: false,
        code: "saved_query_slug_taken",
        slug: query.slug,
      } as const;
    }
    await trx.insertInto("saved_queries").values({
      id: query.id,
      site_id: ctx.siteId,
      model_id: query.model_id,
      ...rowValues(query),
      revision: 1,
      created_at: new Date(now),
      updated_at: new Date(now),
    }).execute();
    await writeRecord(trx, ctx, record, "saved_query.create", query);
    return { ok: true, query } as const;
  });
}

/** A saved query of the site, row-locked for the rest of the transaction; null when none. */
async function lockedQuery(
  trx: Db,
  siteId: string,
  id: string,
): Promise<SavedQuery | null> {
  if (!UUID.test(id)) return null;
  const row = await trx.selectFrom("saved_queries").selectAll()
    .where("site_id", "=", siteId).where("id", "=", id.toLowerCase())
    .forUpdate().executeTakeFirst();
  return row ? toSavedQuery(row) : null;
}

/** Changes the fields named; the whole result is checked again. */
export async function updateSavedQuery(
  ctx: BackendContext,
  id: string,
  input: UpdateSavedQueryInput,
  record?: SavedQueryRecord,
): Promise<{ ok: true; query: SavedQuery } | SavedQueryRefusal> {
  return await ctx.db.transaction().execute(async (trx) => {
    const current = await lockedQuery(trx, ctx.siteId, id);
    if (!current) return { ok: false, code: "not_found" } as const;
    const [model] = await loadModels(trx, ctx.siteId, [current.model_id]);
    if (!model) return { ok: false, code: "not_found" } as const;
    const slugNext = input.slug ?? current.slug;
    const route = input.route === undefined
      ? routeOf(current.route, slugNext)
      : routeOf(input.route, slugNext);
    const next: SavedQuery = {
      ...current,
      name: input.name ?? current.name,
      slug: slugNext,
      select: input.select ?? current.select,
      filter: input.filter ?? current.filter,
      order_by: input.order_by ?? current.order_by,
      take: input.take ?? current.take,
      route,
    };
    const refused = await checkQuery(trx, ctx.siteId, next, model.fields);
    if (refused) return refused;
    const { revision: _r, updated_at: _u, ...same } = current;
    const { revision: _r2, updated_at: _u2, ...after } = next;
    if (JSON.stringify(same) === JSON.stringify(after)) {
      return { ok: true, query: current } as const;
    }
    const holder = await slugHolder(trx, ctx.siteId, next.slug);
    if (holder && holder !== current.id) {
      return {
        ok: false,
        code: "saved_query_slug_taken",
        slug: next.slug,
      } as const;
    }
    const now = ctx.clock.now();
    const saved: SavedQuery = {
      ...next,
      revision: current.revision + 1,
      updated_at: now.toISOString(),
    };
    await trx.updateTable("saved_queries").set({
      ...rowValues(saved),
      revision: saved.revision,
      updated_at: now,
    }).where("site_id", "=", ctx.siteId).where("id", "=", current.id)
      .execute();
    await writeRecord(trx, ctx, record, "saved_query.update", saved);
    return { ok: true, query: saved } as const;
  });
}

/** Deletes a saved query; its route goes with it. */
export async function deleteSavedQuery(
  ctx: BackendContext,
  id: string,
  record?: SavedQueryRecord,
): Promise<{ ok: true; query: SavedQuery } | SavedQueryRefusal> {
  return await ctx.db.transaction().execute(async (trx) => {
    const query = await lockedQuery(trx, ctx.siteId, id);
    if (!query) return { ok: false, code: "not_found" } as const;
    await trx.deleteFrom("saved_queries").where("site_id", "=", ctx.siteId)
      .where("id", "=", query.id).execute();
    await writeRecord(trx, ctx, record, "saved_query.delete", query);
    return { ok: true, query } as const;
  });
}

/**
 * The saved queries on public routes that a model's new fields would make serve a private
 * column (MOD-031): a model save is refused while any would.
 */
export async function publicRoutesExposing(
  db: Db,
  siteId: string,
  modelId: string,
  fields: readonly FieldDefinition[],
): Promise<{ id: string; name: string; fields: string[] }[]> {
  const rows = await db.selectFrom("saved_queries").selectAll()
    .where("site_id", "=", siteId).where("model_id", "=", modelId)
    .where("route_audience", "=", "anonymous").orderBy("name").execute();
  if (rows.length === 0) return [];
  const columns = queryColumns(fields);
  return rows.map(toSavedQuery).flatMap((query) => {
    const refused = privateColumns(query, columns);
    return refused.length > 0
      ? [{ id: query.id, name: query.name, fields: refused }]
      : [];
  });
}
