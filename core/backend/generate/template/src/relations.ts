// List relations: `GET` and `PUT /api/<owner>/relations/<field>` read and change one owner's
// ordered list, and `POST /api/<owner>/with-relations` creates a row with its lists in one
// transaction. A list is checked whole on every write: no duplicates, `minItems`/`maxItems`,
// existing targets of accepted models, and a one-to-many target held by one owner only.
import { type Context, Hono } from "hono";
import type { RouteContext } from "./crud_routes.ts";
import { visibleColumns } from "./crud_routes.ts";
import type { Db } from "./db.ts";
import { ApiError, refuse } from "./errors.ts";
import { resourcesOf } from "./resource.ts";
import type { ListRelationSpec, ModelSpec } from "./schema.ts";
import { isId, rowToWrite } from "./values.ts";

/** One member of a list: the target's model (table) and id. */
export interface Ref {
  model: string;
  id: string;
}

async function jsonBody(c: Context): Promise<Record<string, unknown>> {
  const body = await c.req.json().catch(() => null);
  if (!body || typeof body !== "object" || Array.isArray(body)) {
    refuse(400, "invalid_request", { message: "The body must be an object" });
  }
  return body as Record<string, unknown>;
}

/** Reads the references a caller sent for `list`. */
function readRefs(list: ListRelationSpec, value: unknown): Ref[] {
  if (!Array.isArray(value)) {
    refuse(400, "invalid_request", {
      message: `${list.field} must be a list`,
    });
  }
  return value.map((item) => {
    if (typeof item === "string") {
      if (list.targets.length > 1) {
        refuse(422, "relation_target_model_required", {
          field: list.field,
          ids: [item],
        });
      }
      if (!isId(item)) {
        refuse(400, "invalid_request", { message: "Expected ids" });
      }
      return { model: list.targets[0], id: item.toLowerCase() };
    }
    const ref = item as Partial<Ref> | null;
    if (
      !ref || typeof ref !== "object" || typeof ref.model !== "string" ||
      !isId(ref.id) || Object.keys(ref).length !== 2
    ) {
      refuse(400, "invalid_request", {
        message: "Expected an id or { model, id }",
      });
    }
    if (!list.targets.includes(ref.model)) {
      refuse(422, "relation_target_model_not_allowed", {
        field: list.field,
        model: ref.model,
      });
    }
    return { model: ref.model, id: ref.id.toLowerCase() };
  });
}

const same = (a: Ref, b: Ref) => a.model === b.model && a.id === b.id;

/** The stored list of one owner (and language), in order. */
export async function storedList(
  db: Db,
  list: ListRelationSpec,
  ownerId: string,
  lang: string | null,
): Promise<Ref[]> {
  const rows: (Ref & { position: number; link: string })[] = [];
  for (const j of list.junctions) {
    let q = db.selectFrom(j.table).select(["target_id", "position", "id"])
      .where("owner_id", "=", ownerId);
    if (j.localized) q = q.where("lang", "=", lang);
    for (const r of await q.execute()) {
      rows.push({
        model: j.target,
        id: r.target_id,
        position: r.position,
        link: r.id,
      });
    }
  }
  rows.sort((a, b) => a.position - b.position || a.link.localeCompare(b.link));
  return rows.map(({ model, id }) => ({ model, id }));
}

/**
 * Checks `next` and writes it as the owner's list, unless it equals the stored one. Runs inside
 * the caller's transaction, which holds the owner row locked.
 */
export async function writeList(
  trx: Db,
  list: ListRelationSpec,
  ownerId: string,
  lang: string | null,
  next: Ref[],
): Promise<Ref[]> {
  const seen: Ref[] = [];
  const duplicates = next.filter((r) => {
    const dup = seen.some((s) => same(s, r));
    seen.push(r);
    return dup;
  });
  if (duplicates.length > 0) {
    refuse(422, "relation_duplicate_target", {
      field: list.field,
      ids: duplicates.map((d) => d.id),
    });
  }
  if (list.minItems !== undefined && next.length < list.minItems) {
    refuse(422, "relation_too_few", { field: list.field, min: list.minItems });
  }
  if (list.maxItems !== undefined && next.length > list.maxItems) {
    refuse(422, "relation_too_many", { field: list.field, max: list.maxItems });
  }
  const missing: string[] = [];
  const taken: string[] = [];
  for (const j of list.junctions) {
    const ids = next.filter((r) => r.model === j.target).map((r) => r.id);
    if (ids.length === 0) continue;
    const found = new Set(
      (await trx.selectFrom(j.target).select("id").where("id", "in", ids)
        .execute()).map((r) => r.id as string),
    );
    missing.push(...ids.filter((id) => !found.has(id)));
    if (j.exclusive) {
      let q = trx.selectFrom(j.table).select("target_id")
        .where("target_id", "in", ids).where("owner_id", "!=", ownerId);
      if (j.localized) q = q.where("lang", "=", lang);
      taken.push(...(await q.execute()).map((r) => r.target_id as string));
    }
  }
  if (missing.length > 0) {
    refuse(422, "relation_target_missing", { field: list.field, ids: missing });
  }
  if (taken.length > 0) {
    refuse(409, "relation_target_taken", { field: list.field, ids: taken });
  }
  const current = await storedList(trx, list, ownerId, lang);
  if (
    current.length === next.length && current.every((r, i) => same(r, next[i]))
  ) {
    return current;
  }
  for (const j of list.junctions) {
    let del = trx.deleteFrom(j.table).where("owner_id", "=", ownerId);
    if (j.localized) del = del.where("lang", "=", lang);
    await del.execute();
  }
  for (const [position, ref] of next.entries()) {
    const j = list.junctions.find((x) => x.target === ref.model)!;
    await trx.insertInto(j.table).values({
      owner_id: ownerId,
      target_id: ref.id,
      position,
      ...(j.localized ? { lang } : {}),
    }).execute();
  }
  return next;
}

/** The language a per-language list is addressed in, or null for a shared list. */
function langOf(
  list: ListRelationSpec,
  value: unknown,
  locales: readonly string[],
): string | null {
  if (!list.localized) {
    if (value !== undefined) {
      refuse(400, "invalid_request", {
        message: `${list.field} keeps one list for every language`,
      });
    }
    return null;
  }
  if (typeof value !== "string" || !locales.includes(value)) {
    refuse(422, "unknown_locale", { locales });
  }
  return value;
}

/** Runs `work` in a transaction; a serialization failure or deadlock is a concurrent change. */
async function inTransaction<T>(
  db: Db,
  work: (trx: Db) => Promise<T>,
): Promise<T> {
  try {
    return await db.transaction().execute(work);
  } catch (error) {
    if (error instanceof ApiError) throw error;
    const code = (error as { code?: string }).code;
    if (code === "40001" || code === "40P01") {
      refuse(409, "relation_changed_concurrently");
    }
    throw error;
  }
}

/** The relation routes of one owner model. */
export function relationRoutes(model: ModelSpec, ctx: RouteContext): Hono {
  const app = new Hono();
  const listOf = (field: string) => {
    const list = model.lists.find((l) => l.field === field);
    if (!list) refuse(404, "not_found");
    return list;
  };

  app.get("/relations/:field", async (c) => {
    const list = listOf(c.req.param("field"));
    const caller = await ctx.gate.callerOf(c);
    ctx.gate.admit(caller, model.access.findUnique, "findUnique", model.id);
    const id = c.req.query("id");
    if (!isId(id)) {
      refuse(400, "invalid_request", { message: "id must be an id" });
    }
    const lang = langOf(list, c.req.query("locale"), ctx.locales);
    const owner = await ctx.db.selectFrom(model.name).select("id")
      .where("id", "=", id.toLowerCase()).executeTakeFirst();
    if (!owner) refuse(404, "not_found");
    return c.json(await storedList(ctx.db, list, id.toLowerCase(), lang));
  });

  app.put("/relations/:field", async (c) => {
    const list = listOf(c.req.param("field"));
    const caller = await ctx.gate.callerOf(c);
    ctx.gate.admit(caller, model.access.update, "update", model.id);
    if (model.disabled.includes("update")) refuse(404, "operation_unavailable");
    if (!ctx.adapters.batch) refuse(503, "relation_writes_unavailable");
    const body = await jsonBody(c);
    for (const key of Object.keys(body)) {
      if (!["where", "set", "connect", "disconnect", "locale"].includes(key)) {
        refuse(400, "invalid_request", { message: `Unknown key "${key}"` });
      }
    }
    const where = body.where as { id?: unknown } | undefined;
    if (!where || !isId(where.id) || Object.keys(where).length !== 1) {
      refuse(400, "invalid_request", { message: "where must be { id }" });
    }
    if ("set" in body && ("connect" in body || "disconnect" in body)) {
      refuse(400, "invalid_request", {
        message: "set cannot be combined with connect or disconnect",
      });
    }
    if (!("set" in body) && !("connect" in body) && !("disconnect" in body)) {
      refuse(400, "invalid_request", {
        message: "Send set, or connect and/or disconnect",
      });
    }
    const lang = langOf(list, body.locale, ctx.locales);
    const ownerId = where.id.toLowerCase();
    const answer = await inTransaction(ctx.db, async (trx) => {
      const owner = await trx.selectFrom(model.name).select("id")
        .where("id", "=", ownerId).forUpdate().executeTakeFirst();
      if (!owner) refuse(404, "not_found");
      let next: Ref[];
      if ("set" in body) next = readRefs(list, body.set);
      else {
        const connect = "connect" in body ? readRefs(list, body.connect) : [];
        const disconnect = "disconnect" in body
          ? readRefs(list, body.disconnect)
          : [];
        const current = await storedList(trx, list, ownerId, lang);
        next = current.filter((r) => !disconnect.some((d) => same(d, r)));
        for (const ref of connect) {
          if (next.some((r) => same(r, ref))) {
            refuse(422, "relation_duplicate_target", {
              field: list.field,
              ids: [ref.id],
            });
          }
          next.push(ref);
        }
      }
      return await writeList(trx, list, ownerId, lang, next);
    });
    return c.json(answer);
  });

  if (model.lists.length === 0) return app;

  app.post("/with-relations", async (c) => {
    const caller = await ctx.gate.callerOf(c);
    ctx.gate.admit(caller, model.access.create, "create", model.id);
    if (model.disabled.includes("create")) refuse(404, "operation_unavailable");
    // Your create runs outside any transaction of ours, so the row and its links could not be
    // written as one.
    if (ctx.createOverrides.has(model.name)) {
      refuse(501, "atomic_create_unavailable", {
        operation: `${model.label}.create`,
      });
    }
    if (!ctx.adapters.batch) refuse(503, "relation_writes_unavailable");
    const body = await jsonBody(c);
    for (const key of Object.keys(body)) {
      if (key !== "data" && key !== "relations") {
        refuse(400, "invalid_request", { message: `Unknown key "${key}"` });
      }
    }
    const relations = (body.relations ?? {}) as Record<string, unknown>;
    if (typeof relations !== "object" || Array.isArray(relations)) {
      refuse(400, "invalid_request", {
        message: "relations must be an object",
      });
    }
    for (const key of Object.keys(relations)) {
      if (!model.lists.some((l) => l.field === key)) {
        refuse(400, "invalid_request", { message: `Unknown list "${key}"` });
      }
    }
    const row = rowToWrite(model.columns, body.data, "create", ["id"]);
    if (row.id !== undefined && !isId(row.id)) {
      refuse(422, "field_validation_failed", {
        fields: [{ field: "id", message: "Expected an id" }],
      });
    }
    row.id = (row.id as string | undefined)?.toLowerCase() ??
      crypto.randomUUID();
    const resource = resourcesOf(model)[0];
    const answer = await inTransaction(ctx.db, async (trx) => {
      const exists = await trx.selectFrom(model.name).select("id")
        .where("id", "=", row.id as string).executeTakeFirst();
      if (exists) refuse(409, "record_exists", { id: row.id });
      let created: Record<string, unknown>;
      try {
        created = await trx.insertInto(model.name).values(row)
          .returning(visibleColumns(resource, false)).executeTakeFirstOrThrow();
      } catch (error) {
        const e = error as { code?: string; constraint?: string };
        if (e.code === "23505" && e.constraint === `${model.name}_pkey`) {
          refuse(409, "record_exists", { id: row.id });
        }
        throw error;
      }
      for (const list of model.lists) {
        const given = relations[list.field];
        if (!list.localized) {
          const refs = given === undefined ? [] : readRefs(list, given);
          const written = await writeList(
            trx,
            list,
            row.id as string,
            null,
            refs,
          );
          created[list.field] = written.map((r) => r.id);
          continue;
        }
        // A per-language list takes `{ <lang>: [ids] }`.
        const byLang = (given ?? {}) as Record<string, unknown>;
        if (typeof byLang !== "object" || Array.isArray(byLang)) {
          refuse(400, "invalid_request", {
            message: `${list.field} takes { <language>: [ids] }`,
          });
        }
        const out: Record<string, string[]> = {};
        for (const lang of ctx.locales) {
          const refs = byLang[lang] === undefined
            ? []
            : readRefs(list, byLang[lang]);
          if (
            refs.length === 0 && byLang[lang] === undefined && !list.minItems
          ) continue;
          out[lang] = (await writeList(trx, list, row.id as string, lang, refs))
            .map((r) => r.id);
        }
        for (const lang of Object.keys(byLang)) {
          if (!ctx.locales.includes(lang)) {
            refuse(422, "unknown_locale", { lang });
          }
        }
        created[list.field] = out;
      }
      return created;
    });
    return c.json(answer, 201);
  });

  return app;
}
