// What PostgreSQL's autovacuum does on a server, done by hand on embedded PGlite, which runs no
// background workers: a table whose rows changed enough is analyzed, and one with enough dead
// rows vacuumed. Without statistics, the planner prices every index of a table alike, and the
// plans cached for prepared statements kept choosing an index led by the site that walks the
// whole site's rows for one entry: a publish on a 3,000-entry embedded site cost 9.5 ms before
// its tables were analyzed and 4.4 ms after (docs/benchmarks.md, "Plans without
// statistics"). A table's new statistics make PostgreSQL plan its statements again. The service
// and the scheduling plugin share it, so it lives with the SDK beside the dialect.
import { type Kysely, sql } from "kysely";

/**
 * autovacuum's default thresholds: a table is analyzed once more than 50 rows plus a tenth of
 * it changed since its last analysis, and vacuumed once more than 50 rows plus a fifth of it
 * are dead.
 */
export const UPKEEP_THRESHOLDS = {
  analyzeRows: 50,
  analyzeShare: 0.1,
  vacuumRows: 50,
  vacuumShare: 0.2,
} as const;

/** The tables one {@link upkeepEmbedded} analyzed, and those it vacuumed (and analyzed). */
export interface UpkeepReport {
  analyzed: string[];
  vacuumed: string[];
}

interface DueTable {
  name: string;
  vacuum: boolean;
}

/**
 * Analyzes and vacuums the tables of `db`'s current schema that autovacuum would have by now.
 * Run it on an embedded engine only, outside a transaction, every minute or so (autovacuum's
 * own interval); each table it names waits for the statements in flight, as any statement does.
 */
export async function upkeepEmbedded(
  // deno-lint-ignore no-explicit-any
  db: Kysely<any>,
): Promise<UpkeepReport> {
  // The engine counts changes per statement but publishes the counts only now and then; without
  // this, the counts read below could lag the last second of writes.
  await sql`select pg_stat_force_next_flush()`.execute(db);
  const t = UPKEEP_THRESHOLDS;
  const due = await sql<DueTable>`
    select name, vacuum from (
      select s.relname as name,
        s.n_dead_tup > ${t.vacuumRows} + ${t.vacuumShare} * greatest(c.reltuples, 0) as vacuum,
        s.n_mod_since_analyze > ${t.analyzeRows} + ${t.analyzeShare} * greatest(c.reltuples, 0)
          as analysis
      from pg_stat_user_tables s
      join pg_class c on c.oid = s.relid
      where s.schemaname = current_schema()
    ) tables
    where vacuum or analysis
    order by name
  `.execute(db);
  const report: UpkeepReport = { analyzed: [], vacuumed: [] };
  for (const table of due.rows) {
    // VACUUM cannot run in a transaction block, so each table goes on its own.
    const name = sql.id(table.name);
    if (table.vacuum) {
      await sql`vacuum (analyze) ${name}`.execute(db);
      report.vacuumed.push(table.name);
    } else {
      await sql`analyze ${name}`.execute(db);
      report.analyzed.push(table.name);
    }
  }
  return report;
}
