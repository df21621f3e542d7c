// The service's upkeep of the embedded engine (embedded_upkeep.ts): a site's written tables get
// statistics on PGlite; PostgreSQL is left to its autovacuum.
import { deepEqual, equal, ok } from "node:assert/strict";
import { sql } from "kysely";
import { systemClock } from "../clock.ts";
import { openTestDb } from "../../tests/support/db.ts";
import { saveTestEntry, siteWithPosts } from "../../tests/support/entries.ts";
import { upkeepIfEmbedded } from "./embedded_upkeep.ts";

Deno.test("embedded upkeep gives a site's written tables statistics on PGlite, and leaves PostgreSQL to autovacuum", async () => {
  const { db, engine, close } = await openTestDb();
  try {
    if (engine === "postgres") {
      equal(await upkeepIfEmbedded(db), null);
      return;
    }
    const site = await siteWithPosts(
      { db, clock: systemClock },
      "upkeep.test",
      "admin@upkeep.test",
    );
    for (let i = 0; i < 60; i++) {
      await saveTestEntry({
        db,
        clock: systemClock,
        siteId: site.siteId,
        userId: site.adminId,
        modelId: site.modelId,
      }, { en: { title: `Post ${i}` } });
    }
    const report = await upkeepIfEmbedded(db);
    ok(report);
    for (const table of ["entries", "entry_groups", "entry_versions"]) {
      ok(report.analyzed.includes(table), `${table} analyzed`);
    }
    const { rows } = await sql<{ reltuples: number }>`
      select reltuples::float8 as reltuples from pg_class where relname = 'entries'`
      .execute(db);
    equal(rows[0].reltuples, 60);
    deepEqual(await upkeepIfEmbedded(db), { analyzed: [], vacuumed: [] });
  } finally {
    await close();
  }
});
