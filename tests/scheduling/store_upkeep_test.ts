// The scheduling plugin's embedded store gets autovacuum's upkeep before each tick
// (plugins/sdk/pglite_upkeep.ts): PGlite runs no autovacuum of its own.
import { equal } from "node:assert/strict";
import { sql } from "kysely";
import { withSchedulingWorld } from "./world.ts";

Deno.test("a tick on the embedded store first analyzes the tables that changed enough since their last analysis", () =>
  withSchedulingWorld(async (w) => {
    const db = w.scheduler.db;
    const reltuples = async () =>
      (await sql<{ n: number }>`select reltuples::float8 as n from pg_class
        where relname = 'upkeep_probe'`.execute(db)).rows[0].n;
    await sql`create table upkeep_probe (id int primary key)`.execute(db);
    await sql`insert into upkeep_probe select generate_series(1, 51)`.execute(
      db,
    );
    equal(await reltuples(), -1, "never analyzed before the tick");
    await w.scheduler.tick();
    equal(await reltuples(), 51);
  }));
