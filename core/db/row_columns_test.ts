// The column lists of row_columns.ts against the migrated tables.
import { deepEqual } from "node:assert/strict";
import { sql } from "kysely";
import { openTestDb } from "../../tests/support/db.ts";
import {
  columnsOf,
  ENTRIES_COLUMNS,
  GROUP_COLUMNS,
  INSTALLATION_COLUMNS,
  INSTANCE_COLUMNS,
  MODEL_COLUMNS,
  SETTINGS_COLUMNS,
} from "./row_columns.ts";

Deno.test("row_columns lists name exactly the columns of their migrated tables", async () => {
  const { db, close } = await openTestDb();
  try {
    const lists: [string, readonly string[]][] = [
      ["entry_groups", GROUP_COLUMNS],
      ["entries", INSTANCE_COLUMNS],
      ["plugin_installations", INSTALLATION_COLUMNS],
      ["models", MODEL_COLUMNS],
      ["site_settings", SETTINGS_COLUMNS],
    ];
    for (const [table, columns] of lists) {
      const { rows } = await sql<{ column_name: string }>`
        select column_name from information_schema.columns
        where table_schema = current_schema() and table_name = ${table}`
        .execute(db);
      deepEqual(
        rows.map((row) => row.column_name).sort(),
        [...columns].sort(),
        table,
      );
    }
    deepEqual(ENTRIES_COLUMNS.slice(0, 2), ["entries.id", "entries.site_id"]);
    // A list that leaves a column out does not type-check.
    // @ts-expect-error: site_id, key, revision, updated_at and updated_by are missing
    columnsOf("site_settings")(["document"]);
  } finally {
    await close();
  }
});
