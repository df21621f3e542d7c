// migrateToLatest: an up-to-date database is answered from one read of the applied list, and
// every other state still goes through the migrator.
import { deepEqual, ok, rejects } from "node:assert/strict";
import { sql } from "kysely";
import { migrateToLatest } from "./migrate.ts";
import { migrations } from "./migrations/mod.ts";
import { openTestDb } from "../../tests/support/db.ts";

Deno.test("a database that applied every migration gets none applied again", async () => {
  const { db, close } = await openTestDb();
  try {
    deepEqual(await migrateToLatest(db), []);
    deepEqual(await migrateToLatest(db), []);
  } finally {
    await close();
  }
});

Deno.test("a migration missing from the applied list is handed to the migrator, not skipped", async () => {
  const { db, close } = await openTestDb();
  try {
    const name = Object.keys(migrations).sort().at(-1)!;
    await sql`delete from schema_migrations where name = ${name}`.execute(db);
    // Its tables are already there, so running it again may fail; either way it ran.
    const outcome = await migrateToLatest(db).then(
      (applied) => applied.join(","),
      (error: Error) => error.message,
    );
    ok(outcome.includes(name), outcome);
  } finally {
    await close();
  }
});

Deno.test("a database that applied a migration this code does not know is refused as before", async () => {
  const { db, close } = await openTestDb();
  try {
    await sql`insert into schema_migrations (name, timestamp)
      values ('9999_from_a_newer_version', ${new Date().toISOString()})`
      .execute(db);
    await rejects(
      () => migrateToLatest(db),
      /9999_from_a_newer_version is missing/,
    );
  } finally {
    await close();
  }
});
