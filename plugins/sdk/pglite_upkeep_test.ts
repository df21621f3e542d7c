// The embedded engine's upkeep (pglite_upkeep.ts): tables analyzed and vacuumed at autovacuum's
// thresholds, the last change under each threshold left alone and the first over it acted on.
import { deepEqual, equal } from "node:assert/strict";
import { PGlite } from "@electric-sql/pglite";
import { Kysely, sql } from "kysely";
import { PGliteDialect } from "./pglite_dialect.ts";
import { UPKEEP_THRESHOLDS, upkeepEmbedded } from "./pglite_upkeep.ts";

async function engine() {
  const db = new Kysely<Record<string, never>>({
    dialect: new PGliteDialect(new PGlite()),
  });
  await sql`create table notes (id int primary key, site int not null, body text);
    create index notes_site_body on notes (site, body);
    create table other (id int primary key)`.execute(db);
  return { db };
}

async function insertNotes(
  db: Kysely<Record<string, never>>,
  from: number,
  count: number,
) {
  await sql`insert into notes
    select g, 1, md5(g::text) from generate_series(${from}::int, ${
    from + count - 1
  }::int) g`.execute(db);
}

async function table(db: Kysely<Record<string, never>>) {
  const { rows } = await sql<
    { reltuples: number; dead: number; changed: number }
  >`select c.reltuples::float8 as reltuples, s.n_dead_tup::int as dead,
      s.n_mod_since_analyze::int as changed
    from pg_class c join pg_stat_user_tables s on s.relid = c.oid
    where c.relname = 'notes'`.execute(db);
  return rows[0];
}

Deno.test("embedded upkeep analyzes a table once more than 50 rows and a tenth of it changed, and not before", async () => {
  const { db } = await engine();
  try {
    equal((await table(db)).reltuples, -1, "never analyzed at first");
    // Never analyzed: 50 changed rows are the last left alone, 51 the first analyzed.
    await insertNotes(db, 1, UPKEEP_THRESHOLDS.analyzeRows);
    deepEqual(await upkeepEmbedded(db), { analyzed: [], vacuumed: [] });
    await insertNotes(db, 51, 1);
    deepEqual(await upkeepEmbedded(db), { analyzed: ["notes"], vacuumed: [] });
    const after = await table(db);
    equal(after.reltuples, 51);
    equal(after.changed, 0);
    deepEqual(await upkeepEmbedded(db), { analyzed: [], vacuumed: [] });
    // 51 rows known: the threshold is 50 + 5.1 changes.
    await insertNotes(db, 52, 55);
    deepEqual(await upkeepEmbedded(db), { analyzed: [], vacuumed: [] });
    await insertNotes(db, 107, 1);
    deepEqual(await upkeepEmbedded(db), { analyzed: ["notes"], vacuumed: [] });
    equal((await table(db)).reltuples, 107);
  } finally {
    await db.destroy();
  }
});

/** An engine whose `notes` hold 1,000 analyzed rows and a statement prepared on them. */
async function analyzedThousand() {
  const opened = await engine();
  await insertNotes(opened.db, 1, 1000);
  deepEqual(await upkeepEmbedded(opened.db), {
    analyzed: ["notes"],
    vacuumed: [],
  });
  // Run often enough that the engine plans it once for all runs.
  for (let i = 0; i < 8; i++) {
    await sql`select id from notes where site = ${1} and id = ${i}`.execute(
      opened.db,
    );
  }
  return opened;
}

Deno.test("embedded upkeep vacuums a table once more than 50 rows and a fifth of it are dead, and only analyzes it at exactly that many", async () => {
  // 1,000 rows known: 250 dead rows are the last only analyzed (250 changes are past 150).
  const last = await analyzedThousand();
  try {
    await sql`delete from notes where id <= 250`.execute(last.db);
    deepEqual(await upkeepEmbedded(last.db), {
      analyzed: ["notes"],
      vacuumed: [],
    });
    equal((await table(last.db)).dead, 250);
  } finally {
    await last.db.destroy();
  }
  // 251 the first vacuumed, and the statement prepared before still answers.
  const first = await analyzedThousand();
  try {
    await sql`delete from notes where id <= 251`.execute(first.db);
    deepEqual(await upkeepEmbedded(first.db), {
      analyzed: [],
      vacuumed: ["notes"],
    });
    const after = await table(first.db);
    equal(after.dead, 0);
    equal(after.changed, 0);
    equal(after.reltuples, 749);
    const { rows } = await sql<{ id: number }>`select id from notes
      where site = ${1} and id = ${300}`.execute(first.db);
    deepEqual(rows, [{ id: 300 }]);
    deepEqual(await upkeepEmbedded(first.db), { analyzed: [], vacuumed: [] });
  } finally {
    await first.db.destroy();
  }
});
