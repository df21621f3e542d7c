// Kysely's statements prepared per connection on PostgreSQL (prepared_queries.ts).
import { deepEqual, equal, ok } from "node:assert/strict";
import { sql } from "kysely";
import { openTestDb } from "../../tests/support/db.ts";
import {
  PREPARED_PER_CONNECTION,
  preparedName,
  prepareQueriesOf,
} from "./prepared_queries.ts";
import pg from "pg";

const DATABASE_URL = Deno.env.get("DATABASE_URL");

Deno.test("preparedName() names data statements by their text, and leaves `*`, control and settings unnamed", () => {
  const name = preparedName("select id from sites where slug = $1");
  ok(name?.startsWith("k_"));
  equal(preparedName("select id from sites where slug = $1"), name);
  ok(preparedName("select id from sites where slug = $2") !== name);
  ok(preparedName("  WITH x as (select 1) select * from x") === null);
  ok(preparedName("insert into t (a) values ($1) returning count(*)"));
  equal(preparedName('select "sites".* from "sites" where id = $1'), null);
  equal(preparedName("select a * $1 from t"), null);
  equal(preparedName("begin"), null);
  equal(preparedName("set local lock_timeout = $1"), null);
});

Deno.test({
  name:
    "a connection runs Kysely's statements prepared, answers as before, and prepares at most its share",
  ignore: !DATABASE_URL,
}, async () => {
  const client = new pg.Client({ connectionString: DATABASE_URL! });
  await client.connect();
  try {
    const prepared = prepareQueriesOf(client as unknown as pg.PoolClient);
    const statements = async () =>
      (await client.query("select name from pg_prepared_statements")).rows
        .map((r: { name: string }) => r.name);
    const text = "select $1::int + 1 as n, $2::text as t";
    for (let run = 0; run < 3; run++) {
      deepEqual(
        (await prepared.query(text, [run, "x"])).rows,
        [{ n: run + 1, t: "x" }],
      );
    }
    deepEqual(await statements(), [preparedName(text)]);
    // Without values, or with a callback, the call is pg's own.
    equal((await prepared.query("select 1 as one")).rows[0].one, 1);
    equal((await statements()).length, 1);
    for (let i = 0; i < PREPARED_PER_CONNECTION + 5; i++) {
      equal(
        (await prepared.query(`select $1::int + ${i} as n`, [1])).rows[0].n,
        1 + i,
      );
    }
    equal((await statements()).length, PREPARED_PER_CONNECTION);
  } finally {
    await client.end();
  }
});

Deno.test({
  name:
    "a table that gains a column between two runs of `select *` answers the new column (never prepared)",
  ignore: !DATABASE_URL,
}, async () => {
  const { db, close } = await openTestDb();
  try {
    await sql`create table prepared_probe (id int)`.execute(db);
    await sql`insert into prepared_probe values (${1})`.execute(db);
    const read = () =>
      sql<Record<string, unknown>>`select * from prepared_probe where id = ${1}`
        .execute(db);
    deepEqual((await read()).rows, [{ id: 1 }]);
    await sql`alter table prepared_probe add column note text`.execute(db);
    deepEqual((await read()).rows, [{ id: 1, note: null }]);
  } finally {
    await close();
  }
});
