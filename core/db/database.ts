// Opens the database: real PostgreSQL through `pg` when a URL is given, embedded PGlite otherwise.
import { Kysely, PostgresDialect } from "kysely";
import pg from "pg";
import { PGlite, types as pgliteTypes } from "@electric-sql/pglite";
import { PGliteDialect } from "./pglite_dialect.ts";
import type { Database } from "./schema.ts";

/** The typed query builder every service receives. */
export type Db = Kysely<Database>;

/** Where the database lives. */
export type DatabaseTarget = { url: string } | { pglitePath: string | null };

// int8 (counts, sums) answers as a JS number on both drivers so code never sees two shapes.
pg.types.setTypeParser(pgliteTypes.INT8, (value: string) => Number(value));

/** Opens a Kysely instance for the target; `pglitePath: null` is an in-memory database. */
export async function openDatabase(target: DatabaseTarget): Promise<Db> {
  if ("url" in target) {
    const pool = new pg.Pool({ connectionString: target.url, max: 10 });
    // An idle client the server drops (restart, failover) must not crash the process; the
    // pool replaces it on the next query.
    pool.on("error", (error: Error) => {
      console.error(`PostgreSQL idle client failed: ${error.message}`);
    });
    return new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  }
  const options = {
    parsers: { [pgliteTypes.INT8]: (value: string) => Number(value) },
  };
  const pglite = target.pglitePath === null
    ? new PGlite(options)
    : new PGlite(target.pglitePath, options);
  await pglite.waitReady;
  return new Kysely<Database>({ dialect: new PGliteDialect(pglite) });
}
