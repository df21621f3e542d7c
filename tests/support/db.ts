// Test databases: a fresh PostgreSQL database per test when DATABASE_URL is set, else in-memory PGlite.
// Both start from the migrated schema prepared once: PGlite from the snapshot of the migrations
// (core/db/pglite_snapshot.ts), PostgreSQL by copying a template database migrated once per
// version of the migrations, so no test pays for initdb or a replay of every migration.
import pg from "pg";
import type { PGlite } from "@electric-sql/pglite";
import { CHANGES_CHANNEL } from "../../core/db/change_feed.ts";
import {
  type Db,
  dbOverPglite,
  openDatabase,
  pgliteOf,
} from "../../core/db/database.ts";
import { migrateToLatest } from "../../core/db/migrate.ts";
import { openMigratedDatabase } from "../../core/db/open_migrated.ts";
import { migrationsFingerprint } from "../../core/db/pglite_snapshot.ts";
import { forgetPreparedStatements } from "../../plugins/sdk/pglite_dialect.ts";
import { setTestHashCost } from "../../core/auth/password.ts";

// Tests make hundreds of people, each with a new password hash: at the service's cost one takes
// about 128 MiB and up to two thirds of a second of CPU (core/auth/password.ts). Every test that
// stores anything imports this module, so the suite's own hashes are cheap ones; the service's
// cost is checked in core/auth/password_test.ts, and processes a test starts keep it.
setTestHashCost({ N: 2 ** 10, r: 8, p: 1 });

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
    return await lendPglite(from?.dump);
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
 * The tablespace test databases are made in, from `TEST_PG_TABLESPACE`, or null for the server's
 * default. CI points it at a folder in memory (.ci/run): each test copies the template's few
 * hundred files and drops them again, and on an ext4 disk without a journal, finding an inode for
 * each new file among those just freed took about 40% of the machine's CPU in the PostgreSQL run.
 */
export function scratchTablespace(
  setting = Deno.env.get("TEST_PG_TABLESPACE"),
): string | null {
  const name = setting || null;
  if (name !== null && !/^[a-z_][a-z0-9_]{0,62}$/.test(name)) {
    throw new Error(
      `TEST_PG_TABLESPACE=${name} is not a plain lower-case tablespace name`,
    );
  }
  return name;
}

/**
 * A new PostgreSQL database on the server of `url`: empty (for tests that start whole
 * processes, which migrate it themselves) or a copy of `template`. It goes in the scratch
 * tablespace unless `lasting`: a database kept between runs stays where the server keeps its own.
 */
export async function createScratchDatabase(
  url: string,
  options: { template?: string | null; lasting?: boolean } = {},
): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `stave_test_${crypto.randomUUID().replaceAll("-", "")}`;
  const tablespace = options.lasting ? null : scratchTablespace();
  await adminQuery(
    url,
    [
      `create database ${name}`,
      options.template ? ` template ${options.template}` : "",
      tablespace ? ` tablespace ${tablespace}` : "",
    ].join(""),
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

// In-memory PGlite engines of this test module that closed tests gave back, put back to the state
// they started in: the migrated schema, or a seeded image (db_image.ts), or the scheduling
// plugin's own migrated store. Loading a dump costs about 0.8 s of CPU per engine, more for a
// seeded one; putting an engine back (empty every table, write the starting rows again, forget the
// session) about 0.15 s, so a file of tests loads each starting point once.
interface EnginePool {
  spare: PGlite[];
  /** Read from the first engine, before any test touched it. */
  state: Promise<StartingState> | null;
}
const MIGRATED = new Blob([]);
/** By the starting point they hold: a dump, or a key a caller of {@link lendEngine} keeps. */
const pools = new WeakMap<object, EnginePool>();

/** What an engine held when it opened, to check and restore an engine against. */
interface StartingState {
  /** Digest of the schema's catalog rows: any DDL a test ran changes it. */
  catalog: string;
  /** Every table, emptied together on each return. */
  tables: string[];
  /** The rows of each table holding any, as JSON, with the columns to write them back. */
  rows: { table: string; columns: string; json: string }[];
  /** Settings the engine's session starts with (PGlite sets `search_path`); DISCARD resets them. */
  settings: { name: string; setting: string }[];
}

// Tables, columns, triggers (and whether enabled), functions, constraints, schemas, rules and
// roles by oid: a test that created, dropped or altered any of them leaves another digest.
const CATALOG_DIGEST =
  `select md5(string_agg(x, ',' order by x)) as digest from (
  select 'c' || oid || relname || relkind::text as x from pg_class
    where relnamespace not in ('pg_catalog'::regnamespace, 'information_schema'::regnamespace,
      'pg_toast'::regnamespace)
  union all select 'a' || attrelid || attname || atttypid || attnotnull || attisdropped
    from pg_attribute a join pg_class c on c.oid = a.attrelid
    where c.relnamespace = 'public'::regnamespace
  union all select 't' || oid || tgname || tgenabled::text from pg_trigger
  union all select 'p' || oid from pg_proc
    where pronamespace not in ('pg_catalog'::regnamespace, 'information_schema'::regnamespace)
  union all select 'k' || oid from pg_constraint
  union all select 'n' || oid from pg_namespace
  union all select 'r' || oid from pg_rewrite
  union all select 'o' || oid || rolname from pg_roles) as catalog`;

async function readStartingState(pglite: PGlite): Promise<StartingState> {
  const { rows: tables } = await pglite.query<{ name: string }>(
    `select format('%I.%I', schemaname, tablename) as name from pg_tables
     where schemaname = 'public' order by 1`,
  );
  const rows: StartingState["rows"] = [];
  for (const { name } of tables) {
    const { rows: [filled] } = await pglite.query<{ json: string | null }>(
      `select json_agg(t)::text as json from ${name} as t`,
    );
    if (!filled.json) continue;
    // Generated columns are computed again, never written.
    const { rows: [written] } = await pglite.query<{ columns: string }>(
      `select string_agg(format('%I', attname), ', ' order by attnum) as columns
       from pg_attribute where attrelid = $1::regclass and attnum > 0
         and not attisdropped and attgenerated = ''`,
      [name],
    );
    rows.push({ table: name, columns: written.columns, json: filled.json });
  }
  const { rows: [catalog] } = await pglite.query<{ digest: string }>(
    CATALOG_DIGEST,
  );
  const { rows: settings } = await pglite.query<
    { name: string; setting: string }
  >(`select name, setting from pg_settings where source = 'session'`);
  return {
    catalog: catalog.digest,
    tables: tables.map((t) => t.name),
    rows,
    settings,
  };
}

/**
 * Ends the session's settings, prepared statements, temporary tables, advisory locks and
 * listeners, and has the dialect forget the statements it had prepared on the engine.
 */
async function discardSession(pglite: PGlite): Promise<void> {
  await pglite.exec("discard all");
  forgetPreparedStatements(pglite);
}

/**
 * Puts `pglite` back to `state` and answers true, or answers false when it cannot be (closed, or
 * its schema changed): then it is thrown away.
 */
async function restoreStartingState(
  pglite: PGlite,
  state: StartingState,
  channels: readonly string[],
): Promise<boolean> {
  if (pglite.closed) return false;
  try {
    if (pglite.isInTransaction()) await pglite.exec("rollback");
    await discardSession(pglite);
    const { rows: [now] } = await pglite.query<{ digest: string }>(
      CATALOG_DIGEST,
    );
    if (now.digest !== state.catalog) return false;
    await pglite.exec(
      `truncate ${state.tables.join(", ")} restart identity cascade`,
    );
    if (state.rows.length > 0) {
      // The rows are written back as they were, so foreign keys and triggers need not run.
      await pglite.exec("set session_replication_role = replica");
      for (const { table, columns, json } of state.rows) {
        await pglite.query(
          `insert into ${table} (${columns})
           select ${columns} from json_populate_recordset(null::${table}, $1)`,
          [json],
        );
      }
    }
    await discardSession(pglite);
    for (const { name, setting } of state.settings) {
      await pglite.query("select set_config($1, $2, false)", [name, setting]);
    }
    // `discard all` ended the session's LISTEN; a change feed (core/db/change_feed.ts) still
    // counts on it.
    for (const channel of channels) await pglite.exec(`listen ${channel}`);
    return true;
  } catch {
    return false;
  }
}

/**
 * An in-memory engine from the pool `key` names: one a closed test gave back, put back to the
 * state the pool's first engine started in, else a new one from `open`. `giveBack` returns it to
 * the pool, listening again on `channels`, or closes it when it cannot be put back (closed, or its
 * schema changed).
 */
export async function lendEngine(
  key: object,
  open: () => Promise<PGlite>,
  channels: readonly string[] = [],
): Promise<{ pglite: PGlite; giveBack(): Promise<void> }> {
  let pool = pools.get(key);
  if (!pool) pools.set(key, pool = { spare: [], state: null });
  let engine = pool.spare.pop();
  if (!engine) {
    const opened = await open();
    engine = opened;
    pool.state ??= readStartingState(opened);
    await pool.state;
  }
  const lent = engine;
  return {
    pglite: lent,
    giveBack: async () => {
      if (await restoreStartingState(lent, await pool.state!, channels)) {
        pool.spare.push(lent);
      } else if (!lent.closed) await lent.close();
    },
  };
}

/** An in-memory database starting from `dump` (or the migrated schema): a returned engine put back, else a new one. */
async function lendPglite(dump: Blob = MIGRATED): Promise<TestDb> {
  const engine = await lendEngine(dump, async () =>
    pgliteOf(
      dump === MIGRATED
        ? (await openMigratedDatabase({ pglitePath: null })).db
        : await openDatabase({ pglitePath: null, snapshot: dump }),
    )!, [CHANGES_CHANNEL]);
  const db = dbOverPglite(engine.pglite, { keepOpen: true });
  return {
    db,
    engine: "pglite",
    close: async () => {
      await db.destroy();
      await engine.giveBack();
    },
  };
}
