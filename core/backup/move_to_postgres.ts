// Moving a site up from the embedded store to PostgreSQL (`deno task svc move-to-postgres`): every
// row of every table (content, history, settings, menus, roles, people, credentials, audit) is
// copied into an empty, migrated PostgreSQL database in one transaction.
import { Buffer } from "node:buffer";
import { sql } from "kysely";
import type { Db } from "../db/database.ts";
import { openMigratedDatabase } from "../db/open_migrated.ts";
import { BackupRefused } from "./embedded.ts";

/** Tables the migrations own: the target's own rows are right for its own history. */
const MIGRATION_TABLES = new Set([
  "kysely_migration",
  "kysely_migration_lock",
  "schema_migrations",
]);
const BATCH = 500;

/** What a move copied, by table. */
export interface MoveReport {
  tables: number;
  rows: number;
}

interface Column {
  name: string;
  type: string;
  identityAlways: boolean;
}

/**
 * Copies every row of `source` (the embedded database, migrated to the latest version) into the
 * PostgreSQL database at `targetUrl`, which is migrated first and must hold no site. Runs in one
 * transaction with foreign keys and triggers set aside (`session_replication_role = replica`,
 * which needs a superuser or the right to set it), so a failure leaves the target as it was.
 */
export async function moveToPostgres(
  source: Db,
  targetUrl: string,
): Promise<MoveReport> {
  const { db: target } = await openMigratedDatabase({ url: targetUrl });
  try {
    const sites = await sql<{ n: number }>`select count(*)::int as n from sites`
      .execute(target);
    if (sites.rows[0].n > 0) {
      throw new BackupRefused(
        "The target database already holds sites: move into an empty database; nothing was copied",
      );
    }
    const tables = (await sql<{ name: string }>`
      select table_name as name from information_schema.tables
      where table_schema = 'public' and table_type = 'BASE TABLE' order by 1`
      .execute(source)).rows.map((r) => r.name).filter((name) =>
        !MIGRATION_TABLES.has(name)
      );
    let rows = 0;
    await target.transaction().execute(async (tx) => {
      await sql`set local session_replication_role = replica`.execute(tx);
      for (const table of tables) {
        const columns = await columnsOf(tx, table);
        if (columns.length === 0) continue;
        // Rows a migration seeded are replaced by the source's own.
        await sql`delete from ${sql.table(table)}`.execute(tx);
        const names = columns.map((c) => c.name);
        const list = sql.join(names.map((n) => sql.ref(n)));
        // JSON is read as its text: a `json` column keeps the very text it was given.
        const selected = sql.join(
          columns.map((c) =>
            isJson(c.type)
              ? sql`${sql.ref(c.name)}::text as ${sql.ref(c.name)}`
              : sql.ref(c.name)
          ),
        );
        const found = await sql<Record<string, unknown>>`
          select ${selected} from ${sql.table(table)}`.execute(source);
        for (let at = 0; at < found.rows.length; at += BATCH) {
          const batch = found.rows.slice(at, at + BATCH);
          const values = sql.join(
            batch.map((row) =>
              sql`(${
                sql.join(columns.map((c) => valueOf(row[c.name], c.type)))
              })`
            ),
          );
          const overriding = columns.some((c) => c.identityAlways)
            ? sql`overriding system value`
            : sql``;
          await sql`insert into ${
            sql.table(table)
          } (${list}) ${overriding} values ${values}`.execute(tx);
        }
        rows += found.rows.length;
        await resetSequences(tx, table, columns);
      }
    });
    return { tables: tables.length, rows };
  } finally {
    await target.destroy();
  }
}

async function columnsOf(db: Db, table: string): Promise<Column[]> {
  const found = await sql<{
    name: string;
    type: string;
    generated: string;
    identity: string | null;
  }>`select column_name as name, data_type as type, is_generated as generated,
      identity_generation as identity
    from information_schema.columns
    where table_schema = 'public' and table_name = ${table}
    order by ordinal_position`.execute(db);
  // Generated columns are computed by the target itself.
  return found.rows.filter((c) => c.generated !== "ALWAYS").map((c) => ({
    name: c.name,
    type: c.type,
    identityAlways: c.identity === "ALWAYS",
  }));
}

function isJson(type: string): boolean {
  return type === "json" || type === "jsonb";
}

/** A value as the target takes it: JSON columns as the text read (a JS array would become an SQL array). */
function valueOf(value: unknown, type: string) {
  if (value === null || value === undefined) return sql`null`;
  if (isJson(type)) return sql`${value as string}::${sql.raw(type)}`;
  // PGlite answers bytea as Uint8Array; the pg driver sends only Buffers as bytes.
  if (value instanceof Uint8Array) return sql`${Buffer.from(value)}`;
  return sql`${value}`;
}

/** Sequences behind serial and identity columns continue after the copied rows. */
async function resetSequences(db: Db, table: string, columns: Column[]) {
  for (const column of columns) {
    const sequence = await sql<{ name: string | null }>`
      select pg_get_serial_sequence(${table}, ${column.name}) as name`
      .execute(db);
    const name = sequence.rows[0]?.name;
    if (!name) continue;
    await sql`select setval(${name}, coalesce((select max(${
      sql.ref(column.name)
    }) from ${sql.table(table)}), 0) + 1, false)`.execute(db);
  }
}
