// Counts the SQL statements a piece of work sends to the embedded engine: the write budgets of
// docs/benchmarks.md are statement counts, which do not depend on the machine's speed.
import type { Db } from "../../core/db/database.ts";
import { pgliteOf } from "../../core/db/database.ts";
import { observeStatements } from "../../plugins/sdk/pglite_dialect.ts";

/** The statements `work` sent (PGlite only; on PostgreSQL answers null and runs `work` as is). */
export async function statementsOf<T>(
  db: Db,
  work: () => Promise<T>,
): Promise<{ result: T; statements: string[] | null }> {
  const engine = pgliteOf(db);
  if (!engine) return { result: await work(), statements: null };
  const statements: string[] = [];
  // The dialect tells its observers every statement it sends (plugins/sdk/pglite_dialect.ts).
  const stop = observeStatements(engine, (sql) => statements.push(sql));
  try {
    return { result: await work(), statements };
  } finally {
    // STATEMENTS_LOG=<file> appends each counted command's statements, to see where they go.
    const log = Deno.env.get("STATEMENTS_LOG");
    if (log) {
      await Deno.writeTextFile(
        log,
        `-- ${statements.length} statements\n${statements.join(";\n")};\n`,
        { append: true },
      );
    }
    stop();
  }
}
