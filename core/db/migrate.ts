// Applies pending forward-only migrations; run at start and by `deno task migrate`.
import { type Kysely, sql } from "kysely";
import { type MigrationProvider, Migrator } from "kysely/migration";
import { migrations } from "./migrations/mod.ts";

const provider: MigrationProvider = {
  getMigrations: () => Promise.resolve(migrations),
};

const TABLE = "schema_migrations";

/**
 * True when the database has applied exactly the migrations this code knows. Kysely's migrator
 * first reads the whole catalogue to find its tables (0.3 to 0.5 s on embedded PGlite, every
 * start); one read of the table answers the usual start with nothing pending. Anything else (no
 * table yet, a migration pending, one this code does not know) goes to the migrator, which takes
 * its lock and decides as before.
 */
// deno-lint-ignore no-explicit-any
async function upToDate(db: Kysely<any>): Promise<boolean> {
  const table = await sql<{ found: string | null }>`
    select to_regclass(${TABLE})::text as found`.execute(db);
  if (!table.rows[0]?.found) return false;
  const applied = await db.selectFrom(TABLE).select("name").execute();
  const known = new Set(Object.keys(migrations));
  return applied.length === known.size &&
    applied.every((row) => known.has(row.name));
}

/** Applies every pending migration and returns the names applied now. */
// deno-lint-ignore no-explicit-any
export async function migrateToLatest(db: Kysely<any>): Promise<string[]> {
  if (await upToDate(db)) return [];
  // Migrations from parallel branches may land with an earlier name than one already applied.
  const migrator = new Migrator({
    allowUnorderedMigrations: true,
    db,
    provider,
    migrationTableName: TABLE,
  });
  const { error, results } = await migrator.migrateToLatest();
  if (error) {
    const failed = results?.find((r) => r.status === "Error")?.migrationName ??
      "unknown";
    throw new Error(
      `Migration "${failed}" failed: ${(error as Error).message}`,
    );
  }
  return (results ?? []).filter((r) => r.status === "Success").map((r) =>
    r.migrationName
  );
}
