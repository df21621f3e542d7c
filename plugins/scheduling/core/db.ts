// The plugin's own database: PostgreSQL through `pg` when SCHEDULER_DATABASE_URL is set,
// embedded PGlite under its data folder otherwise. No storage is shared with the service: a
// plugin is a separate program with its own (spec 1 part 1); the PGlite dialect is the SDK's.
import { type Generated, Kysely, PostgresDialect, sql } from "kysely";
import pg from "pg";
import { discardWhenLost, guardPool } from "../../sdk/pg_faults.ts";
import { PGliteDialect } from "../../sdk/pglite_dialect.ts";
import { PGlite } from "@electric-sql/pglite";

export interface InstallationsTable {
  id: string;
  site_id: string;
  service_url: string;
  token_sealed: string;
  created_at: Date;
  updated_at: Date;
}

export interface SchedulesTable {
  id: string;
  installation_id: string;
  instance_id: string;
  group_id: string;
  model_id: string;
  title: string;
  kind: "publish" | "unpublish";
  target_state: string;
  pinned_version_id: string | null;
  expected_workflow_revision: number;
  locale: string;
  local_datetime: string;
  timezone: string;
  fold: "earlier" | "later";
  due_at: Date;
  status: ScheduleStatus;
  attempts: Generated<number>;
  last_code: string | null;
  last_message: string | null;
  next_attempt_at: Date | null;
  revision: number;
  delegation_id: string;
  requester_email: string;
  created_at: Date;
  updated_at: Date;
}

/**
 * Every column of a schedule, named: the tick's statements list them instead of `*`, so they
 * run prepared by name on either engine (a text with `*` runs unnamed, parsed and planned on
 * every run), as the tick's hottest statements must.
 */
export const SCHEDULE_COLUMNS = [
  "id",
  "installation_id",
  "instance_id",
  "group_id",
  "model_id",
  "title",
  "kind",
  "target_state",
  "pinned_version_id",
  "expected_workflow_revision",
  "locale",
  "local_datetime",
  "timezone",
  "fold",
  "due_at",
  "status",
  "attempts",
  "last_code",
  "last_message",
  "next_attempt_at",
  "revision",
  "delegation_id",
  "requester_email",
  "created_at",
  "updated_at",
] as const satisfies readonly (keyof SchedulesTable)[];

// A column added to SchedulesTable and not to the list above fails type checking here.
const everyScheduleColumn: [
  Exclude<keyof SchedulesTable, (typeof SCHEDULE_COLUMNS)[number]>,
] extends [never] ? true : never = true;
void everyScheduleColumn;

export interface ScheduleAttemptsTable {
  schedule_id: string;
  installation_id: string;
  attempt: number;
  code: string;
  http_status: number | null;
  at: Date;
}

/** Release states (spec 1 part 3.3). */
export type ReleaseState =
  | "draft"
  | "scheduled"
  | "running"
  | "done"
  | "failed"
  | "unknown"
  | "cancelled";

export interface ReleasesTable {
  id: string;
  installation_id: string;
  name: string;
  state: ReleaseState;
  local_datetime: string | null;
  timezone: string | null;
  fold: "earlier" | "later" | null;
  due_at: Date | null;
  blocked_at: Date | null;
  attempt: Generated<number>;
  items_revision: Generated<number>;
  delegation_id: string | null;
  requester_email: string | null;
  command: unknown;
  command_key: string | null;
  receipt: unknown;
  last_code: string | null;
  last_message: string | null;
  created_by_email: string;
  created_at: Date;
  updated_at: Date;
}

export interface ReleaseItemsTable {
  id: string;
  release_id: string;
  installation_id: string;
  instance_id: string;
  group_id: string;
  model_id: string;
  title: string;
  locale: string;
  kind: "publish" | "unpublish";
  target_state: string;
  version_mode: "ordinary" | "future";
  frozen_version_id: string | null;
  status: "pending" | "done" | "failed" | "cancelled";
  attempt: Generated<number>;
  published_version_id: string | null;
  last_code: string | null;
  position: number;
  added_by_email: string;
  created_at: Date;
}

export interface MigrationsTable {
  name: string;
  applied_at: Date;
}

/** Schedule statuses (spec 1 part 3.2). */
export type ScheduleStatus =
  | "pending"
  | "retrying"
  | "running"
  | "completed"
  | "refused"
  | "cancelled"
  | "superseded";

export interface SchedulerTables {
  installations: InstallationsTable;
  schedules: SchedulesTable;
  schedule_attempts: ScheduleAttemptsTable;
  releases: ReleasesTable;
  release_items: ReleaseItemsTable;
  scheduler_migrations: MigrationsTable;
}

export type SchedulerDb = Kysely<SchedulerTables>;

/**
 * Where the plugin keeps its data: PostgreSQL, an embedded engine in a folder or in memory, or an
 * embedded engine its caller opened and closes (tests lend one engine to test after test).
 */
export type SchedulerDbTarget =
  | { url: string }
  | { dataDir: string }
  | { memory: true }
  | { engine: PGlite };

/** A new embedded engine: in `dataDir`, or in memory. */
export function newSchedulerEngine(dataDir?: string): PGlite {
  // PGlite before 0.4 opened `template1`, where existing data folders keep their tables.
  const options = { database: "template1" };
  return dataDir === undefined
    ? new PGlite(options)
    : new PGlite(`${dataDir}/pglite`, options);
}

/** Opens the database and applies the plugin's migrations. */
export async function openSchedulerDb(
  target: SchedulerDbTarget,
): Promise<SchedulerDb> {
  let db: SchedulerDb;
  if ("url" in target) {
    const pool = new pg.Pool({
      connectionString: target.url,
      max: 5,
      fallback_application_name: "stave-scheduling",
    });
    // A connection PostgreSQL drops (restart, failover, pg_terminate_backend), idle or in use,
    // must not end the plugin: the pool replaces it, the request answers 503, the tick retries.
    guardPool(pool, (error) => {
      console.error(
        `scheduling: PostgreSQL connection lost: ${error.message}; the pool opens a new one on the next query`,
      );
    });
    db = new Kysely({
      dialect: new PostgresDialect({
        pool: {
          connect: async () => discardWhenLost(await pool.connect()),
          end: () => pool.end(),
          Client: pool.Client,
          options: pool.options,
        },
      }),
    });
  } else if ("engine" in target) {
    db = new Kysely({
      dialect: new PGliteDialect(target.engine, { keepOpen: true }),
    });
  } else {
    db = new Kysely({
      dialect: new PGliteDialect(
        newSchedulerEngine("memory" in target ? undefined : target.dataDir),
      ),
    });
  }
  await migrate(db);
  return db;
}

const MIGRATIONS = new URL("../migrations/", import.meta.url);

async function migrate(db: SchedulerDb): Promise<void> {
  // Two processes starting together on a new database would both create the table: "if not
  // exists" does not hold between them, so the creation takes the migrations' lock too.
  await db.transaction().execute(async (tx) => {
    await sql`select pg_advisory_xact_lock(7242001)`.execute(tx);
    await sql`create table if not exists scheduler_migrations (
      name text primary key, applied_at timestamptz not null)`.execute(tx);
  });
  const names = [...Deno.readDirSync(MIGRATIONS)].map((e) => e.name)
    .filter((n) => n.endsWith(".sql")).sort();
  for (const name of names) {
    await db.transaction().execute(async (tx) => {
      // Two processes starting together apply each migration once.
      await sql`select pg_advisory_xact_lock(7242001)`.execute(tx);
      const done = await tx.selectFrom("scheduler_migrations").select("name")
        .where("name", "=", name).executeTakeFirst();
      if (done) return;
      const text = await Deno.readTextFile(new URL(name, MIGRATIONS));
      await sql.raw(text).execute(tx);
      await tx.insertInto("scheduler_migrations")
        .values({ name, applied_at: new Date() }).execute();
    });
  }
}
