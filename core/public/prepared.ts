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
  return await executePreparedCompiled(db, name, query.compile(db));
}

/** {@link executePrepared} for a statement compiled already (kept by its caller). */
export async function executePreparedCompiled<R>(
  db: Db,
  name: string,
  compiled: CompiledQuery<R>,
): Promise<R[]> {
  let statement = named.get(compiled);
  if (statement?.name !== name) {
    const key = `${name}\n${compiled.sql}`;
    let shape = shapes.get(key);
    if (shape === undefined) {
      if (shapes.size >= SHAPES_MAX) {
        return (await db.executeQuery(compiled)).rows;
      }
      const digest = createHash("sha1").update(compiled.sql).digest("hex")
        .slice(0, 16);
      shape = `${name}_${digest}`;
      shapes.set(key, shape);
    }
    named.set(compiled, statement = { name, shape });
  }
  return await executeNamed(db, statement.shape, compiled);
}

/** The statement name of a compiled query its caller keeps: no key text to build per run. */
const named = new WeakMap<
  CompiledQuery<unknown>,
  { name: string; shape: string }
>();
