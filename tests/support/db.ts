// Test databases: a fresh PostgreSQL database per test when DATABASE_URL is set, else in-memory PGlite.
// Both start from the migrated schema prepared once: PGlite from the snapshot of the migrations
// (core/db/pglite_snapshot.ts), PostgreSQL by copying a template database migrated once per
// version of the migrations, so no test pays for initdb or a replay of every migration.
import pg from "pg";
import { type Db, openDatabase } from "../../core/db/database.ts";
import { migrateToLatest } from "../../core/db/migrate.ts";
import { openMigratedDatabase } from "../../core/db/open_migrated.ts";
import { migrationsFingerprint } from "../../core/db/pglite_snapshot.ts";

/**
 * True when this run targets PostgreSQL. Tests of the embedded store alone, and tests that do not
 * touch the database at all, run in the PGlite run only: CI runs the suite once per engine.
 */
export const ON_POSTGRES: boolean = Boolean(Deno.env.get("DATABASE_URL"));

/** A migrated, empty database and the way to throw it away. */
export interface TestDb {
  db: Db;
  /** Which engine the test ran on, for test names and skips. */
  engine: "postgres" | "pglite";
  close(): Promise<void>;
}

/** Where a test database starts: a PGlite dump or a PostgreSQL template (see db_image.ts). */
export type TestDbStart =
  | { engine: "pglite"; dump: Blob }
  | { engine: "postgres"; template: string };

/**
 * Opens a migrated database on the engine this run targets: empty, or a copy of `from`.
 */
export async function openTestDb(from?: TestDbStart): Promise<TestDb> {
  const url = Deno.env.get("DATABASE_URL");
  if (!url) {
    if (from && from.engine !== "pglite") {
      throw new Error("a PostgreSQL image cannot start a PGlite test database");
    }
    const db = from
      ? await openDatabase({ pglitePath: null, snapshot: from.dump })
      : (await openMigratedDatabase({ pglitePath: null })).db;
    return { db, engine: "pglite", close: () => db.destroy() };
  }
  if (from && from.engine !== "postgres") {
    throw new Error("a PGlite image cannot start a PostgreSQL test database");
  }
  const template = from?.template ?? await migratedTemplate(url);
  const scratch = await createScratchDatabase(url, { template });
  const db = await openDatabase({ url: scratch.url });
  // Applies nothing when the template is current; a template is never required.
  await migrateToLatest(db);
  return {
    db,
    engine: "postgres",
    close: async () => {
      await db.destroy();
      await scratch.drop();
    },
  };
}

/**
 * A new PostgreSQL database on the server of `url`: empty (for tests that start whole
 * processes, which migrate it themselves) or a copy of `template`.
 */
export async function createScratchDatabase(
  url: string,
  options: { template?: string | null } = {},
): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `stave_test_${crypto.randomUUID().replaceAll("-", "")}`;
  await adminQuery(
    url,
    options.template
      ? `create database ${name} template ${options.template}`
      : `create database ${name}`,
  );
  const scratchUrl = new URL(url);
  scratchUrl.pathname = `/${name}`;
  return {
    url: scratchUrl.toString(),
    drop: () => adminQuery(url, `drop database if exists ${name} with (force)`),
  };
}

/** Runs one statement outside any test database (create, drop, rename, comment). */
export async function adminQuery(url: string, text: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}

// One template per process and server; the promise is shared by the tests of a file.
const templates = new Map<string, Promise<string | null>>();

/**
 * The name of a database on `url`'s server holding the current migrations and nothing else,
 * made once per version of the migrations (the name carries their fingerprint, so a changed
 * migration makes a new one and never reuses a stale one). Parallel test processes may race to
 * make it: each migrates a database of its own and renames it; the loser drops its copy.
 * Answers null when the migrations cannot be fingerprinted: tests then migrate as before.
 */
export function migratedTemplate(url: string): Promise<string | null> {
  let made = templates.get(url);
  if (!made) {
    made = makeTemplate(url);
    templates.set(url, made);
  }
  return made;
}

async function makeTemplate(url: string): Promise<string | null> {
  const fingerprint = await migrationsFingerprint();
  if (!fingerprint) return null;
  const name = `stave_template_${fingerprint}`;
  if (await databaseExists(url, name)) return name;
  const building = `${name}_${crypto.randomUUID().slice(0, 8)}`;
  await adminQuery(url, `create database ${building}`);
  const buildUrl = new URL(url);
  buildUrl.pathname = `/${building}`;
  const db = await openDatabase({ url: buildUrl.toString() });
  try {
    await migrateToLatest(db);
  } finally {
    await db.destroy();
  }
  try {
    await adminQuery(url, `alter database ${building} rename to ${name}`);
  } catch (error) {
    // 42P04: another test process made the template first.
    await adminQuery(url, `drop database if exists ${building} with (force)`);
    if ((error as { code?: string }).code !== "42P04") throw error;
  }
  return name;
}

/** True when a database of that name exists on `url`'s server. */
export async function databaseExists(
  url: string,
  name: string,
): Promise<boolean> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const result = await client.query(
      "select 1 from pg_database where datname = $1",
      [name],
    );
    return (result.rowCount ?? 0) > 0;
  } finally {
    await client.end();
  }
}
