// Opens the database: real PostgreSQL through `pg` when a URL is given, embedded PGlite otherwise.
import { type CompiledQuery, Kysely, PostgresDialect } from "kysely";
import pg from "pg";
import { PGlite, types as pgliteTypes } from "@electric-sql/pglite";
import { pg_trgm } from "@electric-sql/pglite/contrib/pg_trgm";
import { PGliteDialect } from "./pglite_dialect.ts";
import type { Database } from "./schema.ts";
import { DEFAULT_POOL_MAX } from "../config.ts";

/** The typed query builder every service receives. */
export type Db = Kysely<Database>;

/**
 * Where the database lives. An embedded target may start from a `snapshot` (a dumped PGlite
 * data folder, see pglite_snapshot.ts) instead of an empty cluster.
 */
export type DatabaseTarget = {
  url: string;
  /** Connections held open at most; {@link DEFAULT_POOL_MAX} when absent. */
  poolMax?: number;
} | {
  pglitePath: string | null;
  snapshot?: Blob | null;
};

// int8 (counts, sums) answers as a JS number on both drivers so code never sees two shapes.
pg.types.setTypeParser(pgliteTypes.INT8, (value: string) => Number(value));

// The pool behind each PostgreSQL Kysely instance, for named (prepared) statements.
const pools = new WeakMap<Db, pg.Pool>();
// The embedded engine behind each PGlite Kysely instance, to dump it as a snapshot.
const pglites = new WeakMap<Db, PGlite>();

/** The PGlite engine of an embedded database, or undefined on PostgreSQL. */
export function pgliteOf(db: Db): PGlite | undefined {
  return pglites.get(db);
}

/**
 * Runs a compiled query as a named prepared statement on PostgreSQL, so the server plans it
 * once per connection; values stay bind parameters. Transactions and PGlite run it as usual.
 * Give each distinct SQL text its own name: a name is bound to its text on every connection.
 */
export async function executeNamed<R>(
  db: Db,
  name: string,
  query: CompiledQuery<R>,
): Promise<R[]> {
  const pool = db.isTransaction ? undefined : pools.get(db);
  if (!pool) return (await db.executeQuery(query)).rows;
  const result = await pool.query({
    name,
    text: query.sql,
    values: [...query.parameters],
  });
  return result.rows as R[];
}

/** Opens a Kysely instance for the target; `pglitePath: null` is an in-memory database. */
export async function openDatabase(target: DatabaseTarget): Promise<Db> {
  if ("url" in target) {
    const pool = new pg.Pool({
      connectionString: target.url,
      max: target.poolMax ?? DEFAULT_POOL_MAX,
      // Idle connections stay open (at most `max` of them). With an idle timeout the pool arms
      // a timer each time a query hands its connection back and clears it on the next: about
      // 4-6 us of every public read (docs/benchmarks.md, issue 18 round seven).
      idleTimeoutMillis: 0,
    });
    // An idle client the server drops (restart, failover) must not crash the process; the
    // pool replaces it on the next query.
    pool.on("error", (error: Error) => {
      console.error(`PostgreSQL idle client failed: ${error.message}`);
    });
    const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
    pools.set(db, pool);
    return db;
  }
  const options = {
    parsers: { [pgliteTypes.INT8]: (value: string) => Number(value) },
    loadDataDir: target.snapshot ?? undefined,
    // Trigram indexes serve the admin's title search (migration 0232), as on PostgreSQL.
    extensions: { pg_trgm },
  };
  const pglite = target.pglitePath === null
    ? new PGlite(options)
    : new PGlite(target.pglitePath, options);
  await pglite.waitReady;
  return dbOverPglite(pglite);
}

/** A Kysely instance over an opened PGlite engine; `keepOpen` leaves the engine open on destroy. */
export function dbOverPglite(
  pglite: PGlite,
  options: { keepOpen?: boolean } = {},
): Db {
  const db = new Kysely<Database>({
    dialect: new PGliteDialect(pglite, options),
  });
  pglites.set(db, pglite);
  return db;
}
