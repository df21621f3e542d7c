// Opens the database: PostgreSQL through `pg` when DATABASE_URL is set, else embedded PGlite in
// ./data, so a first try needs no server.
import { Kysely, PostgresDialect } from "kysely";
import pg from "pg";
import { PGlite } from "@electric-sql/pglite";
import { PGliteDialect } from "./pglite_dialect.ts";

// Tables are described at run time by generated/schema.json, so rows are plain records.
// deno-lint-ignore no-explicit-any
export type Db = Kysely<any>;

/** The open database, what it runs on and what its driver can do. */
export interface OpenDb {
  db: Db;
  /** Shown in the start-up line: `postgres`, `pglite`, or your own database's name. */
  engine: string;
  /**
   * The driver runs several statements as one transaction (the batch runner). Without it
   * relation writes (`with-relations`, `PUT relations/<field>`) answer
   * `503 relation_writes_unavailable`.
   */
  batch: boolean;
  /**
   * The database computes great-circle distances (the spatial adapter). Without it spatial
   * filters and nearest order answer `501 spatial_adapter_required`.
   */
  spatial: boolean;
  /**
   * Runs a read as a named prepared statement, parsed and planned once per connection (`pg`
   * only). The most frequent reads use it; without it they run as ordinary statements.
   */
  prepared?: PreparedRead;
}

/** Runs `sql` as the prepared statement `name` (one name per statement text) with `parameters`. */
export type PreparedRead = (
  name: string,
  sql: string,
  parameters: readonly unknown[],
) => Promise<Record<string, unknown>[]>;

// Counts answer as numbers and dates as `YYYY-MM-DD` on both drivers, as the API writes them.
const INT8 = 20;
const DATE = 1082;
pg.types.setTypeParser(INT8, (value: string) => Number(value));
pg.types.setTypeParser(DATE, (value: string) => value);

/** Opens PostgreSQL at `url`, or PGlite in `dataDir` when `url` is empty. */
export async function openDb(
  url: string | undefined,
  dataDir: string,
): Promise<OpenDb> {
  if (url) {
    const pool = new pg.Pool({ connectionString: url, max: 20 });
    return {
      db: new Kysely({ dialect: new PostgresDialect({ pool }) }),
      engine: "postgres",
      batch: true,
      spatial: true,
      prepared: async (name, text, parameters) =>
        (await pool.query({ name, text, values: [...parameters] })).rows,
    };
  }
  await Deno.mkdir(dataDir, { recursive: true });
  const pglite = new PGlite(dataDir, {
    parsers: { [INT8]: Number, [DATE]: (value: string) => value },
  });
  await pglite.waitReady;
  return {
    db: new Kysely({ dialect: new PGliteDialect(pglite) }),
    engine: "pglite",
    batch: true,
    spatial: true,
  };
}
