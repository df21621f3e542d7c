// The six routes of a served table below /api/<table>: findMany (GET /), findManyPaginated
// (GET /paginated), findUnique (GET /unique), create (POST /), update (PUT /), delete
// (DELETE /). Reads take query parameters with JSON for structured values; writes take
// `{ data }`, `{ where, data }` or `{ where }`. Bulk, aggregate, count, groupBy, upsert and
// updateEach do not exist.
import { type Context, Hono } from "hono";
import { type CompiledQuery, sql } from "kysely";
import type { Caller, Gate } from "./access.ts";
import type { Db, PreparedRead } from "./db.ts";
import { ApiError, refuse } from "./errors.ts";
import { baseKey, type Resource } from "./resource.ts";
import type { Operation } from "./schema.ts";
import { isSpatialParam, parseSpatial, type SpatialQuery } from "./spatial.ts";
import { isId, rowToWrite } from "./values.ts";
import type { CreateOverride } from "./overrides.ts";

/** What the database driver can do (see OpenDb). */
export interface Adapters {
  batch: boolean;
  spatial: boolean;
  prepared?: PreparedRead;
}

/** What the routes need at run time. */
export interface RouteContext {
  db: Db;
  gate: Gate;
  locales: readonly string[];
  adapters: Adapters;
  /** Create overrides by table. */
  createOverrides: ReadonlyMap<string, CreateOverride>;
}

type Where = Record<string, string | number | boolean | null>;

// One prepared statement name per statement text in this process: PostgreSQL keeps a name per
// connection, and a name must never stand for two texts.
const statementNames = new Map<string, string>();
function statementName(text: string): string {
  let name = statementNames.get(text);
  if (!name) statementNames.set(text, name = `read_${statementNames.size + 1}`);
  return name;
}

/** Columns a caller is answered: readers and write answers never see private ones. */
export function visibleColumns(
  resource: Resource,
  full: boolean,
): string[] {
  return [
    "id",
    ...resource.columns.filter((c) => full || !c.private).map((c) => c.name),
  ];
}

function parseJson(text: string, name: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    refuse(400, "invalid_request", { message: `${name} is not JSON` });
  }
}

/**
 * The equality selector of a request. Readers may compare `id` (and a translation's or
 * junction's keys); editors any generated row column. Operators, unknown columns and private
 * columns for readers are refused.
 */
function parseWhere(
  value: unknown,
  resource: Resource,
  editor: boolean,
): Where {
  if (value === undefined) return {};
  if (!value || typeof value !== "object" || Array.isArray(value)) {
    refuse(400, "invalid_request", { message: "where must be an object" });
  }
  const allowed = new Set(
    editor
      ? ["id", ...resource.columns.map((c) => c.name)]
      : ["id", ...resource.readerKeys],
  );
  const where: Where = {};
  for (const [key, v] of Object.entries(value)) {
    if (!allowed.has(key)) {
      refuse(400, "invalid_request", {
        message: `Selector "${key}" is not supported`,
      });
    }
    if (v !== null && typeof v === "object") {
      refuse(400, "invalid_request", {
        message: `Operator on "${key}" is not supported: use equality`,
      });
    }
    if (key === "id" && !isId(v)) {
      refuse(400, "invalid_request", { message: "id must be an id" });
    }
    where[key] = v as Where[string];
  }
  return where;
}

function parseOrder(
  value: unknown,
  resource: Resource,
  editor: boolean,
): [string, "asc" | "desc"][] {
  if (value === undefined) return [];
  const list = Array.isArray(value) ? value : [value];
  const sortable = new Set([
    "id",
    ...resource.columns.filter((c) =>
      (editor || !c.private) &&
      !["json", "rich_text", "rich_media", "point"].includes(c.kind)
    ).map((c) => c.name),
  ]);
  const out: [string, "asc" | "desc"][] = [];
  for (const item of list) {
    if (!item || typeof item !== "object") {
      refuse(400, "invalid_request", { message: "orderBy is malformed" });
    }
    for (const [key, dir] of Object.entries(item)) {
      if (!sortable.has(key) || (dir !== "asc" && dir !== "desc")) {
        refuse(400, "invalid_request", {
          message: `orderBy "${key}" is not supported`,
        });
      }
      out.push([key, dir]);
    }
  }
  return out;
}

function parseCount(
  text: string | undefined,
  name: string,
  min: number,
  max: number,
): number | undefined {
  if (text === undefined) return undefined;
  if (!/^\d{1,9}$/.test(text) || Number(text) < min || Number(text) > max) {
    refuse(400, "invalid_request", {
      message: `${name} must be a whole number from ${min} to ${max}`,
    });
  }
  return Number(text);
}

const READ_PARAMS = new Set(["where", "take", "skip", "orderBy"]);

/** The parsed read request. */
interface ReadQuery {
  where: Where;
  order: [string, "asc" | "desc"][];
  spatial: SpatialQuery;
  take: number;
  skip: number;
}

function parseRead(
  c: Context,
  resource: Resource,
  editor: boolean,
  adapters: Adapters,
): ReadQuery {
  const params = new URL(c.req.url).searchParams;
  for (const key of params.keys()) {
    if (!READ_PARAMS.has(key) && !isSpatialParam(key)) {
      refuse(400, "invalid_request", { message: `Unknown parameter "${key}"` });
    }
    if (!adapters.spatial && isSpatialParam(key)) {
      refuse(501, "spatial_adapter_required", { parameter: key });
    }
  }
  const q = (name: string) => c.req.query(name);
  const whereText = q("where");
  const orderText = q("orderBy");
  return {
    where: parseWhere(
      whereText === undefined ? undefined : parseJson(whereText, "where"),
      resource,
      editor,
    ),
    order: parseOrder(
      orderText === undefined ? undefined : parseJson(orderText, "orderBy"),
      resource,
      editor,
    ),
    spatial: parseSpatial(
      params,
      resource.columns,
      editor,
      orderText !== undefined,
    ),
    take: parseCount(q("take"), "take", 1, resource.take.max) ??
      resource.take.default,
    skip: parseCount(q("skip"), "skip", 0, 1_000_000_000) ?? 0,
  };
}

/** A JSON body that is an object with exactly the keys allowed (some required). */
async function readBody(
  c: Context,
  required: string[],
): Promise<Record<string, unknown>> {
  let body: unknown;
  try {
    body = await c.req.json();
  } catch {
    refuse(400, "invalid_request", { message: "The body is not JSON" });
  }
  if (!body || typeof body !== "object" || Array.isArray(body)) {
    refuse(400, "invalid_request", { message: "The body must be an object" });
  }
  for (const key of Object.keys(body)) {
    if (!required.includes(key)) {
      refuse(400, "invalid_request", { message: `Unknown key "${key}"` });
    }
  }
  for (const key of required) {
    if (!(key in body)) {
      refuse(400, "invalid_request", { message: `Missing "${key}"` });
    }
  }
  return body as Record<string, unknown>;
}

/** A write selector: the row's `id`, nothing else. */
function uniqueWhere(value: unknown): { id: string } {
  const where = value as { id?: unknown } | null;
  if (
    !where || typeof where !== "object" || Object.keys(where).length !== 1 ||
    !isId(where.id)
  ) {
    refuse(400, "invalid_request", { message: "where must be { id }" });
  }
  return { id: where.id.toLowerCase() };
}

/** Builds the routes of one resource. */
export function crudRoutes(resource: Resource, ctx: RouteContext): Hono {
  const app = new Hono();
  const { db, gate } = ctx;

  /** Admits the caller or throws; answers the caller and whether it sees every column. */
  async function enter(
    c: Context,
    op: Operation,
  ): Promise<{ caller: Caller; editor: boolean }> {
    const rule = resource.ruleOf(op);
    if (!rule || resource.model.disabled.includes(resource.decidingOp(op))) {
      refuse(404, "operation_unavailable");
    }
    const caller = await gate.callerOf(c);
    gate.admit(caller, rule, resource.decidingOp(op), resource.model.id);
    return { caller, editor: caller.kind === "service" };
  }

  function selectRows(read: ReadQuery, editor: boolean) {
    let query = db.selectFrom(resource.table).select(
      visibleColumns(resource, editor),
    );
    for (const [key, value] of Object.entries(read.where)) {
      query = value === null
        ? query.where(key, "is", null)
        : query.where(key, "=", value);
    }
    for (const filter of read.spatial.filters) query = query.where(filter);
    const nearest = read.spatial.order;
    if (nearest) {
      // Rows without a point come last, whichever way the distance runs.
      query = query.orderBy(sql`${sql.ref(nearest.column)} is null`)
        .orderBy(nearest.distance, nearest.desc ? "desc" : "asc");
    }
    for (const [key, dir] of read.order) query = query.orderBy(key, dir);
    for (const key of resource.order) {
      if (!read.order.some(([k]) => k === key)) query = query.orderBy(key);
    }
    return query;
  }

  // The plain list (no where, orderBy or spatial parameter) and the lookup by id alone are the
  // reads front ends make most. Their SQL is compiled once per audience and run with the
  // request's values: building and compiling a Kysely query took about a fifth of such a
  // read's CPU.
  const compiledReads = new Map<string, CompiledQuery>();
  function isPlain(read: ReadQuery, whereKeys: readonly string[]): boolean {
    const keys = Object.keys(read.where);
    return read.order.length === 0 && read.spatial.filters.length === 0 &&
      !read.spatial.order && keys.length === whereKeys.length &&
      whereKeys.every((key) => read.where[key] !== null && key in read.where);
  }
  async function runCompiled(
    key: string,
    build: () => { compile(): CompiledQuery },
    parameters: unknown[],
  ): Promise<Record<string, unknown>[]> {
    let compiled = compiledReads.get(key);
    if (!compiled) {
      compiled = build().compile();
      if (compiled.parameters.length !== parameters.length) {
        throw new Error(`The compiled read ${key} takes other parameters`);
      }
      compiledReads.set(key, compiled);
    }
    const prepared = ctx.adapters.prepared;
    if (prepared) {
      return await prepared(
        statementName(compiled.sql),
        compiled.sql,
        parameters,
      );
    }
    const result = await db.executeQuery<Record<string, unknown>>({
      ...compiled,
      parameters,
    });
    return result.rows;
  }

  function countRows(read: ReadQuery) {
    let query = db.selectFrom(resource.table).select((eb) =>
      eb.fn.countAll<number>().as("total")
    );
    for (const filter of read.spatial.filters) query = query.where(filter);
    for (const [key, value] of Object.entries(read.where)) {
      query = value === null
        ? query.where(key, "is", null)
        : query.where(key, "=", value);
    }
    return query;
  }

  app.get("/", async (c) => {
    const { editor } = await enter(c, "findMany");
    const read = parseRead(c, resource, editor, ctx.adapters);
    const page = () =>
      selectRows(read, editor).limit(read.take).offset(read.skip);
    const rows = isPlain(read, [])
      ? await runCompiled(`list ${editor}`, page, [read.take, read.skip])
      : await page().execute();
    return c.json(rows);
  });

  app.get("/paginated", async (c) => {
    const { editor } = await enter(c, "findManyPaginated");
    const read = parseRead(c, resource, editor, ctx.adapters);
    const [rows, count] = await Promise.all([
      selectRows(read, editor).limit(read.take).offset(read.skip).execute(),
      countRows(read).executeTakeFirstOrThrow(),
    ]);
    const total = Number(count.total);
    return c.json({
      data: rows,
      total,
      hasMore: read.skip + rows.length < total,
    });
  });

  app.get("/unique", async (c) => {
    const { editor } = await enter(c, "findUnique");
    const read = parseRead(c, resource, editor, ctx.adapters);
    if (!read.where.id) {
      refuse(400, "invalid_request", {
        message: "findUnique needs where { id }",
      });
    }
    const [row] = isPlain(read, ["id"])
      ? await runCompiled(
        `unique ${editor}`,
        () => selectRows(read, editor),
        [read.where.id],
      )
      : await selectRows(read, editor).execute();
    return c.json(row ?? null);
  });

  if (resource.kind === "junction") return app;

  const answerColumns = visibleColumns(resource, false);
  const fixedOnUpdate = resource.kind === "translation"
    ? [baseKey(resource.model), "lang"]
    : [];

  app.post("/", async (c) => {
    await enter(c, "create");
    const body = await readBody(c, ["data"]);
    const data = body.data as Record<string, unknown>;
    const row = rowToWrite(resource.columns, data, "create", ["id"]);
    if (row.id !== undefined && !isId(row.id)) {
      refuse(422, "field_validation_failed", {
        fields: [{ field: "id", message: "Expected an id" }],
      });
    }
    row.id = (row.id as string | undefined)?.toLowerCase() ??
      crypto.randomUUID();
    if (resource.kind === "translation") {
      if (!ctx.locales.includes(String(row.lang))) {
        refuse(422, "unknown_locale", { lang: row.lang, locales: ctx.locales });
      }
    }
    const override = resource.kind === "model"
      ? ctx.createOverrides.get(resource.table)
      : undefined;
    try {
      if (override) {
        // Your function writes; the answer still leaves out what a write answer never shows.
        const stored = await override({ table: resource.table, row, db });
        return c.json(
          Object.fromEntries(answerColumns.map((k) => [k, stored[k] ?? null])),
          201,
        );
      }
      const created = await db.insertInto(resource.table).values(row)
        .returning(answerColumns).executeTakeFirstOrThrow();
      return c.json(created, 201);
    } catch (error) {
      if (
        resource.kind === "translation" &&
        (error as { code?: string }).code === "23503"
      ) {
        refuse(422, "translation_row_missing", {
          id: row[baseKey(resource.model)],
        });
      }
      if (
        (error as { code?: string; constraint?: string }).code === "23505" &&
        (error as { constraint?: string }).constraint ===
          `${resource.table}_pkey`
      ) {
        refuse(409, "record_exists", { id: row.id });
      }
      throw error;
    }
  });

  app.put("/", async (c) => {
    await enter(c, "update");
    const body = await readBody(c, ["where", "data"]);
    const where = uniqueWhere(body.where);
    const writable = resource.columns.filter((col) =>
      !fixedOnUpdate.includes(col.name)
    );
    const row = rowToWrite(writable, body.data, "update");
    if (Object.keys(row).length === 0) {
      const current = await db.selectFrom(resource.table).select(answerColumns)
        .where("id", "=", where.id).executeTakeFirst();
      if (!current) refuse(404, "not_found");
      return c.json(current);
    }
    const updated = await db.updateTable(resource.table).set(row)
      .where("id", "=", where.id).returning(answerColumns)
      .executeTakeFirst();
    if (!updated) refuse(404, "not_found");
    return c.json(updated);
  });

  app.delete("/", async (c) => {
    await enter(c, "delete");
    const body = await readBody(c, ["where"]);
    const where = uniqueWhere(body.where);
    try {
      const deleted = await db.deleteFrom(resource.table)
        .where("id", "=", where.id).returning(answerColumns)
        .executeTakeFirst();
      if (!deleted) refuse(404, "not_found");
      return c.json(deleted);
    } catch (error) {
      if (error instanceof ApiError) throw error;
      // A required to-one relation still names this row.
      if ((error as { code?: string }).code === "23503") {
        refuse(409, "relation_target_referenced", { id: where.id });
      }
      throw error;
    }
  });

  return app;
}
