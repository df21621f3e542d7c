// Runs the hot statements of the public read API as named prepared statements, so PostgreSQL
// parses and plans them once per connection instead of once per request.
import { createHash } from "node:crypto";
import type { RawBuilder } from "kysely";
import { type Db, executeNamed } from "../db/database.ts";

/**
 * Runs `query` as the prepared statement `<name>_<digest of its SQL text>`: each distinct shape
 * is its own statement, so call this only for a small, fixed set of shapes. Values stay bind
 * parameters; answers are the same as a plain query, only planning is saved.
 */
export async function executePrepared<R>(
  db: Db,
  name: string,
  query: RawBuilder<R>,
): Promise<R[]> {
  const compiled = query.compile(db);
  const digest = createHash("sha1").update(compiled.sql).digest("hex").slice(
    0,
    16,
  );
  return await executeNamed(db, `${name}_${digest}`, compiled);
}
