// The prepared PGlite schema: a snapshot gives exactly the schema the migrations give, and a stale one is never used.
import { deepEqual, equal, notEqual, ok } from "node:assert/strict";
import { sql } from "kysely";
import { type Db, openDatabase, pgliteOf } from "./database.ts";
import { migrateToLatest } from "./migrate.ts";
import { migrations } from "./migrations/mod.ts";
import { openMigratedDatabase } from "./open_migrated.ts";
import { ON_POSTGRES } from "../../tests/support/db.ts";
import {
  migrationsFingerprint,
  readSnapshot,
  saveSnapshot,
  snapshotFile,
} from "./pglite_snapshot.ts";

/** Everything the migrations define: columns, indexes, constraints, functions, triggers and the applied list. */
async function describeSchema(db: Db) {
  const rows = async (query: ReturnType<typeof sql>) =>
    (await query.execute(db)).rows;
  return {
    columns: await rows(sql`
      select table_name, column_name, data_type, is_nullable, column_default
      from information_schema.columns where table_schema = 'public'
      order by table_name, column_name`),
    indexes: await rows(sql`
      select tablename, indexname, indexdef from pg_indexes
      where schemaname = 'public' order by tablename, indexname`),
    constraints: await rows(sql`
      select conrelid::regclass::text as rel, conname, pg_get_constraintdef(oid) as def
      from pg_constraint where connamespace = 'public'::regnamespace
      order by rel, conname`),
    functions: await rows(sql`
      select proname, prosrc from pg_proc
      where pronamespace = 'public'::regnamespace order by proname, prosrc`),
    triggers: await rows(sql`
      select tgrelid::regclass::text as rel, tgname from pg_trigger
      where not tgisinternal order by rel, tgname`),
    migrations: (await rows(
      sql`select name from schema_migrations order by name`,
    )).map((r) => (r as { name: string }).name),
  };
}

/** These tests are about the embedded store: the PGlite run covers them. */
function embeddedTest(name: string, fn: () => Promise<void>): void {
  Deno.test({ name, ignore: ON_POSTGRES, fn });
}

embeddedTest(
  "a snapshot of the migrated database gives the same schema as replaying every migration",
  async () => {
    const dir = new URL(`file://${await Deno.makeTempDir()}/`);
    const replayed = await openDatabase({ pglitePath: null });
    let loaded: Db | undefined;
    try {
      await migrateToLatest(replayed);
      ok(await saveSnapshot(pgliteOf(replayed)!, "test", dir));
      const snapshot = await readSnapshot("test", dir);
      ok(snapshot);
      loaded = await openDatabase({ pglitePath: null, snapshot });
      deepEqual(await migrateToLatest(loaded), [], "nothing left to apply");
      const expected = await describeSchema(replayed);
      deepEqual(await describeSchema(loaded), expected);
      deepEqual(expected.migrations, Object.keys(migrations).sort());
    } finally {
      await loaded?.destroy();
      await replayed.destroy();
      await Deno.remove(dir, { recursive: true });
    }
  },
);

embeddedTest(
  "openMigratedDatabase replays the migrations when only a stale snapshot exists, then saves the current one",
  async () => {
    const dir = new URL(`file://${await Deno.makeTempDir()}/`);
    // A snapshot of an empty cluster, filed under a fingerprint the migrations no longer have.
    const empty = await openDatabase({ pglitePath: null });
    ok(await saveSnapshot(pgliteOf(empty)!, "stale000", dir));
    await empty.destroy();
    const fingerprint = await migrationsFingerprint();
    ok(fingerprint);
    notEqual(fingerprint, "stale000");
    const first = await openMigratedDatabase({ pglitePath: null }, {
      snapshotDir: dir,
    });
    try {
      equal(first.fromSnapshot, false);
      deepEqual(
        (await describeSchema(first.db)).migrations,
        Object.keys(migrations).sort(),
      );
      ok(await Deno.stat(snapshotFile(fingerprint, dir)));
    } finally {
      await first.db.destroy();
    }
    // The next empty start uses the snapshot just saved, with the same schema.
    const second = await openMigratedDatabase({ pglitePath: null }, {
      snapshotDir: dir,
    });
    const replayed = await openDatabase({ pglitePath: null });
    try {
      equal(second.fromSnapshot, true);
      await migrateToLatest(replayed);
      deepEqual(
        await describeSchema(second.db),
        await describeSchema(replayed),
      );
    } finally {
      await second.db.destroy();
      await replayed.destroy();
      await Deno.remove(dir, { recursive: true });
    }
  },
);

embeddedTest(
  "migrationsFingerprint changes when a migration file changes, is added or is removed",
  async () => {
    const dir = await Deno.makeTempDir();
    const url = new URL(`file://${dir}/`);
    try {
      await Deno.writeTextFile(
        `${dir}/0001_a.ts`,
        "export async function up() {}",
      );
      const one = await migrationsFingerprint(url);
      await Deno.writeTextFile(
        `${dir}/0001_a.ts`,
        "export async function up() { }",
      );
      const edited = await migrationsFingerprint(url);
      await Deno.writeTextFile(
        `${dir}/0002_b.ts`,
        "export async function up() {}",
      );
      const added = await migrationsFingerprint(url);
      await Deno.remove(`${dir}/0002_b.ts`);
      equal(await migrationsFingerprint(url), edited);
      ok(one && edited && added);
      equal(new Set([one, edited, added]).size, 3);
      equal(await migrationsFingerprint(new URL(`file://${dir}/none/`)), null);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
);

embeddedTest(
  "openMigratedDatabase still answers a fully migrated database when the snapshot file is not a dump",
  async () => {
    const dir = new URL(`file://${await Deno.makeTempDir()}/`);
    const fingerprint = await migrationsFingerprint();
    ok(fingerprint);
    await Deno.mkdir(dir, { recursive: true });
    await Deno.writeTextFile(snapshotFile(fingerprint, dir), "not a dump");
    const data = await Deno.makeTempDir();
    const opened = await openMigratedDatabase(
      { pglitePath: `${data}/pglite` },
      {
        snapshotDir: dir,
      },
    );
    try {
      // PGlite either refuses the file (we then start empty) or ignores it; both end migrated.
      deepEqual(
        (await describeSchema(opened.db)).migrations,
        Object.keys(migrations).sort(),
      );
    } finally {
      await opened.db.destroy();
      await Deno.remove(dir, { recursive: true });
      await Deno.remove(data, { recursive: true });
    }
  },
);
