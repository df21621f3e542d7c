// Runs the hot statements of the public read API as named prepared statements, so PostgreSQL
// parses and plans them once per connection instead of once per request.
import { createHash } from "node:crypto";
import type { CompiledQuery, RawBuilder } from "kysely";
import { type Db, executeNamed } from "../db/database.ts";

/**
 * Distinct statement shapes this process prepares; past it, new shapes run unprepared. Every
 * pooled connection keeps each prepared shape for its lifetime, so the number must stay bounded
 * even when callers build SQL from request parameters (filters, search words).
 */
const SHAPES_MAX = 500;
/** Statement name by SQL text and caller's name: hashing the text on every request cost more. */
const shapes = new Map<string, string>();

/**
 * Runs `query` as the prepared statement `<name>_<digest of its SQL text>`: each distinct shape
 * is its own statement. Values stay bind parameters; answers are the same as a plain query, only
 * parsing and planning are saved.
 */
export async function executePrepared<R>(
  db: Db,
  name: string,
  query: RawBuilder<R>,
): Promise<R[]> {
  return await executePreparedCompiled(db, name, query.compile(db), false);
}

/**
 * {@link executePrepared} for a statement compiled already. `kept`: the caller keeps this very
 * object and runs it again, so its statement name is remembered with it (no key text built per
 * run); a statement compiled for one run is not remembered.
 */
export async function executePreparedCompiled<R>(
  db: Db,
  name: string,
  compiled: CompiledQuery<R>,
  kept: boolean,
): Promise<R[]> {
  let statement = kept ? named.get(compiled) : undefined;
  if (statement?.name !== name) {
    const shape = shapeName(name, compiled.sql);
    if (shape === null) return (await db.executeQuery(compiled)).rows;
    statement = { name, shape };
    if (kept) named.set(compiled, statement);
  }
  return await executeNamed(db, statement.shape, compiled);
}

/** The statement name of `sql` under the caller's `name`; null once the shapes are all taken. */
function shapeName(name: string, sql: string): string | null {
  const key = `${name}\n${sql}`;
  let shape = shapes.get(key);
  if (shape === undefined) {
    if (shapes.size >= SHAPES_MAX) return null;
    const digest = createHash("sha1").update(sql).digest("hex").slice(0, 16);
    shape = `${name}_${digest}`;
    shapes.set(key, shape);
  }
  return shape;
}

/** Statement names of compiled queries their callers keep. */
const named = new WeakMap<
  CompiledQuery<unknown>,
  { name: string; shape: string }
>();
