// Test databases: a fresh PostgreSQL database per test when DATABASE_URL is set, else in-memory PGlite.
import pg from "pg";
import { type Db, openDatabase } from "../../core/db/database.ts";
import { migrateToLatest } from "../../core/db/migrate.ts";

/** A migrated, empty database and the way to throw it away. */
export interface TestDb {
  db: Db;
  /** Which engine the test ran on, for test names and skips. */
  engine: "postgres" | "pglite";
  close(): Promise<void>;
}

/** Opens an empty migrated database on the engine this run targets. */
export async function openTestDb(): Promise<TestDb> {
  const url = Deno.env.get("DATABASE_URL");
  if (!url) {
    const db = await openDatabase({ pglitePath: null });
    await migrateToLatest(db);
    return { db, engine: "pglite", close: () => db.destroy() };
  }
  const scratch = await createScratchDatabase(url);
  const db = await openDatabase({ url: scratch.url });
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

/** A new empty PostgreSQL database on the server of `url`, for tests that start whole processes. */
export async function createScratchDatabase(
  url: string,
): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `stave_test_${crypto.randomUUID().replaceAll("-", "")}`;
  await adminQuery(url, `create database ${name}`);
  const scratchUrl = new URL(url);
  scratchUrl.pathname = `/${name}`;
  return {
    url: scratchUrl.toString(),
    drop: () => adminQuery(url, `drop database if exists ${name} with (force)`),
  };
}

async function adminQuery(url: string, text: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}
