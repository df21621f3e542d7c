// Kysely's statements prepared per connection on PostgreSQL (prepared_queries.ts).
import { deepEqual, equal } from "node:assert/strict";
import { sql } from "kysely";
import { openTestDb } from "../../tests/support/db.ts";
import { preparedName } from "../../plugins/sdk/prepared_names.ts";
import {
  heldLabelOf,
  heldMark,
  PREPARED_PER_CONNECTION,
  prepareQueriesOf,
} from "./prepared_queries.ts";
import pg from "pg";

const DATABASE_URL = Deno.env.get("DATABASE_URL");

/** Runs `body` with a one-connection pipelined pool of DATABASE_URL, ended after. */
async function withPipelinedPool(
  body: (pool: pg.Pool) => Promise<void>,
): Promise<void> {
  const pool = new pg.Pool({
    connectionString: DATABASE_URL!,
    max: 1,
    pipeline: true,
  });
  // A failed assertion leaves its client checked out, and `end` would wait for it for ever.
  const checkedOut = new Set<pg.PoolClient>();
  pool.on("acquire", (client: pg.PoolClient) => checkedOut.add(client));
  pool.on(
    "release",
    (_error: Error | undefined, client: pg.PoolClient) =>
      checkedOut.delete(client),
  );
  try {
    await body(pool);
  } finally {
    for (const client of checkedOut) client.release(true);
    await pool.end();
  }
}

/** Runs `body` with the test database (the service's own pool), closed after. */
async function withTestDb(
  body: (db: Awaited<ReturnType<typeof openTestDb>>["db"]) => Promise<void>,
): Promise<void> {
  const { db, close } = await openTestDb();
  try {
    await body(db);
  } finally {
    await close();
  }
}

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
  await withTestDb(async (db) => {
    await sql`create table prepared_probe (id int)`.execute(db);
    await sql`insert into prepared_probe values (${1})`.execute(db);
    const read = () =>
      sql<Record<string, unknown>>`select * from prepared_probe where id = ${1}`
        .execute(db);
    deepEqual((await read()).rows, [{ id: 1 }]);
    await sql`alter table prepared_probe add column note text`.execute(db);
    deepEqual((await read()).rows, [{ id: 1, note: null }]);
  });
});

/** Socket writes `client` makes from now on (each batch of messages it flushes counts once). */
function countWrites(client: pg.PoolClient): () => number {
  const stream = (client as unknown as {
    connection: {
      stream: Record<string, (...args: unknown[]) => unknown>;
    };
  }).connection.stream;
  let writes = 0;
  for (const method of ["_write", "_writev"]) {
    const original = stream[method];
    stream[method] = function (this: unknown, ...args: unknown[]) {
      writes++;
      return original.apply(this, args);
    };
  }
  return () => writes;
}

/** The session's transaction state after the last answer: `I` idle, `T` in a transaction. */
function txStatus(client: pg.PoolClient): string {
  return (client as unknown as { _txStatus: string })._txStatus;
}

Deno.test({
  name:
    "on a pipelined client Kysely's `begin` goes out in one write with the first statement, which runs inside the transaction; a transaction that ran nothing sends nothing; a held `begin` is dropped at the next checkout",
  ignore: !DATABASE_URL,
}, async () => {
  await withPipelinedPool(async (pool) => {
    const client = prepareQueriesOf(await pool.connect());
    const writes = countWrites(client);
    const xact = "select pg_current_xact_id()::text as id, $1::int as n";
    deepEqual(await client.query("begin", []), {
      command: "BEGIN",
      rowCount: null,
      rows: [],
    });
    equal(writes(), 0);
    const first = await client.query(xact, [1]);
    equal(writes(), 1);
    equal(txStatus(client), "T");
    const second = await client.query(xact, [2]);
    equal(second.rows[0].id, first.rows[0].id);
    equal((await client.query("commit", [])).command, "COMMIT");
    equal(txStatus(client), "I");
    equal(writes(), 3);

    // Nothing between `begin` and its end: nothing is sent.
    await client.query("begin", []);
    equal((await client.query("commit", [])).command, "COMMIT");
    await client.query("begin", []);
    equal((await client.query("rollback", [])).command, "ROLLBACK");
    equal(writes(), 3);

    // A checkout that left a `begin` held: the next one runs outside a transaction.
    await client.query("begin", []);
    client.release();
    const again = prepareQueriesOf(await pool.connect());
    equal(again, client);
    await again.query(xact, [3]);
    equal(txStatus(again), "I");
    again.release();
  });
});

Deno.test({
  name:
    "a transaction whose first statement fails (sent with its `begin`) rejects with that statement's error, rolls back, and leaves the connection usable",
  ignore: !DATABASE_URL,
}, async () => {
  await withTestDb(async (db) => {
    await sql`create table held_begin_probe (id int primary key)`.execute(db);
    await sql`insert into held_begin_probe values (${1})`.execute(db);
    const failed = await db.transaction().execute(async (trx) => {
      await sql`insert into held_begin_probe values (${1})`.execute(trx);
    }).then(() => null, (error: { code?: string }) => error);
    equal(failed?.code, "23505");
    await db.transaction().execute(async (trx) => {
      await sql`insert into held_begin_probe values (${2})`.execute(trx);
      await sql`insert into held_begin_probe values (${3})`.execute(trx);
    });
    const rolledBack = await db.transaction().execute(async (trx) => {
      await sql`insert into held_begin_probe values (${4})`.execute(trx);
      throw new Error("undo");
    }).then(() => null, (error: Error) => error.message);
    equal(rolledBack, "undo");
    const ids = await sql<
      { id: number }
    >`select id from held_begin_probe order by id`
      .execute(db);
    deepEqual(ids.rows.map((r) => r.id), [1, 2, 3]);
  });
});

Deno.test({
  name:
    "a statement marked held goes out in one write with the transaction's next statement, the last one with `commit`; rolled back, it is never sent; outside a transaction it runs at once",
  ignore: !DATABASE_URL,
}, async () => {
  await withPipelinedPool(async (pool) => {
    const client = prepareQueriesOf(await pool.connect());
    await client.query("create temporary table held_probe (n int)");
    const writes = countWrites(client);
    const insert = `insert into held_probe values ($1)${heldMark("probe")}`;
    const count = async () =>
      (await client.query("select count(*)::int as n from held_probe", []))
        .rows[0].n;

    await client.query("begin", []);
    deepEqual(await client.query(insert, [1]), {
      command: "HELD",
      rowCount: null,
      rows: [],
    });
    equal(writes(), 0);
    // The statement after it sees its row: they ran in order.
    equal(
      (await client.query(
        "select count(*)::int as n from held_probe where n = $1",
        [1],
      ))
        .rows[0].n,
      1,
    );
    equal(writes(), 1);
    // Whitespace after the mark (a template literal closing on its own line) still holds.
    await client.query(`${insert}\n    `, [2]);
    equal(writes(), 1);
    equal((await client.query("commit", [])).command, "COMMIT");
    equal(writes(), 2);
    equal(txStatus(client), "I");
    equal(await count(), 2);

    // Rolled back: the held statement is dropped, and the `begin` was never sent either.
    const before = writes();
    await client.query("begin", []);
    await client.query(insert, [3]);
    equal((await client.query("rollback", [])).command, "ROLLBACK");
    equal(writes(), before);
    equal(await count(), 2);

    // Outside a transaction there is no next statement to wait for.
    equal((await client.query(insert, [4])).command, "INSERT");
    equal(await count(), 3);

    // Held when the connection went back to the pool: never sent.
    await client.query("begin", []);
    await client.query("select 1 as one where $1::int = 1", [1]);
    await client.query(insert, [5]);
    client.release();
    const again = prepareQueriesOf(await pool.connect());
    await again.query("rollback");
    equal(await count(), 3);
    again.release();
  });
});

Deno.test({
  name:
    "a held statement that fails fails the next statement with its own error and label, or the `commit` it rode with, and its transaction changes nothing",
  ignore: !DATABASE_URL,
}, async () => {
  await withTestDb(async (db) => {
    await sql`create table held_fail_probe (id int primary key)`.execute(db);
    await sql`insert into held_fail_probe values (${1})`.execute(db);
    const held = sql.raw(heldMark("probe"));
    const failure = (run: () => Promise<unknown>) =>
      run().then(() => null, (error: { code?: string }) => error);

    // Failed before a statement: that statement rejects with the held one's error.
    const beforeStatement = await failure(() =>
      db.transaction().execute(async (trx) => {
        await sql`insert into held_fail_probe values (${2})`.execute(trx);
        await sql`insert into held_fail_probe values (${1})${held}`.execute(
          trx,
        );
        await sql`insert into held_fail_probe values (${3})`.execute(trx);
      })
    );
    equal(beforeStatement?.code, "23505");
    equal(heldLabelOf(beforeStatement), "probe");

    // Failed as the last statement: the `commit` it rode with rejects.
    const beforeCommit = await failure(() =>
      db.transaction().execute(async (trx) => {
        await sql`insert into held_fail_probe values (${4})`.execute(trx);
        await sql`insert into held_fail_probe values (${1})${held}`.execute(
          trx,
        );
      })
    );
    equal(beforeCommit?.code, "23505");
    equal(heldLabelOf(beforeCommit), "probe");
    equal(heldLabelOf(new Error("other")), undefined);

    // The connection is usable after both, and neither transaction wrote anything.
    await db.transaction().execute(async (trx) => {
      await sql`insert into held_fail_probe values (${5})${held}`.execute(trx);
    });
    const ids = await sql<
      { id: number }
    >`select id from held_fail_probe order by id`
      .execute(db);
    deepEqual(ids.rows.map((r) => r.id), [1, 5]);
  });
});
