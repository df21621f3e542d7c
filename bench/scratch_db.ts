// A scratch PostgreSQL database for one benchmark run: made on the server DATABASE_URL names,
// migrated, and dropped afterwards, so a bench never fills the database it was pointed at.
import pg from "pg";
import type { Db } from "../core/db/database.ts";
import { openDatabase } from "../core/db/database.ts";
import { migrateToLatest } from "../core/db/migrate.ts";

/** An open scratch database: its URL (for a service process) and how to drop it. */
export interface ScratchDatabase {
  db: Db;
  url: string;
  drop(): Promise<void>;
}

/** Runs one statement on the server's own database (creating and dropping databases). */
export async function onServer(base: string, text: string): Promise<void> {
  const client = new pg.Client({ connectionString: base });
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}

/** Creates `<prefix>_<time>` on the server DATABASE_URL names and brings it to the latest migration. */
export async function openScratchDatabase(
  prefix: string,
  purpose: string,
): Promise<ScratchDatabase> {
  const base = Deno.env.get("DATABASE_URL");
  if (!base) {
    throw new Error(
      `Cannot run ${purpose}: set DATABASE_URL to a PostgreSQL server (it creates and drops a scratch database)`,
    );
  }
  const name = `${prefix}_${Date.now()}`;
  await onServer(base, `create database ${name}`);
  const url = new URL(base);
  url.pathname = `/${name}`;
  const db = await openDatabase({ url: url.toString() });
  await migrateToLatest(db);
  return {
    db,
    url: url.toString(),
    async drop() {
      await db.destroy();
      // Kept for a look at what the run wrote (its plans, its tables' sizes), as bench/main.ts keeps its own.
      if (Deno.env.get("BENCH_KEEP") === "1") {
        console.error(`kept the scratch database ${name} (BENCH_KEEP=1)`);
        return;
      }
      await onServer(base, `drop database if exists ${name} with (force)`);
    },
  };
}
