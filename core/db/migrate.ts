// Applies pending forward-only migrations; run at start and by `deno task migrate`.
import type { Kysely } from "kysely";
import { type MigrationProvider, Migrator } from "kysely/migration";
import { migrations } from "./migrations/mod.ts";

const provider: MigrationProvider = {
  getMigrations: () => Promise.resolve(migrations),
};

/** Applies every pending migration and returns the names applied now. */
// deno-lint-ignore no-explicit-any
export async function migrateToLatest(db: Kysely<any>): Promise<string[]> {
  // Migrations from parallel branches may land with an earlier name than one already applied.
  const migrator = new Migrator({
    allowUnorderedMigrations: true,
    db,
    provider,
    migrationTableName: "schema_migrations",
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
