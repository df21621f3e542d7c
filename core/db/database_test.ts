import { deepEqual, equal, ok, rejects } from "node:assert/strict";
import { sql } from "kysely";
import pg from "pg";
import { isConnectionError } from "../../plugins/sdk/pg_faults.ts";
import { openTestDb } from "../../tests/support/db.ts";
import { executeNamed, openDatabase } from "./database.ts";

Deno.test("openDatabase() answers int8 as number and timestamptz as Date", async () => {
  const { db, close } = await openTestDb();
  try {
    const { rows } = await sql<{ n: number; t: Date }>`
      select count(*) as n, now() as t from sites`.execute(db);
    equal(rows[0].n, 0);
    equal(rows[0].t instanceof Date, true);
  } finally {
    await close();
  }
});

Deno.test({
  name: "a PGlite transaction holds the connection until it ends",
  // Real PostgreSQL runs the two transactions side by side, which is the point of a server.
  ignore: Boolean(Deno.env.get("DATABASE_URL")),
}, async () => {
  const { db, close } = await openTestDb();
  try {
    const now = new Date();
    const insert = (slug: string) =>
      db.transaction().execute(async (trx) => {
        await trx.insertInto("sites").values({
          id: crypto.randomUUID(),
          slug,
          name: slug,
          domain: `${slug}.test`,
          created_at: now,
        }).execute();
        const { rows } = await sql<
          { n: number }
        >`select count(*) as n from sites`.execute(trx);
        return rows[0].n;
      });
    const counts = await Promise.all([insert("a"), insert("b")]);
    deepEqual(counts.sort(), [1, 2]);
  } finally {
    await close();
  }
});

Deno.test("executeNamed() answers like a plain query, again on a reused connection, and inside a transaction", async () => {
  const { db, close } = await openTestDb();
  try {
    const query = sql<
      { n: number; s: string }
    >`select ${41}::int + 1 as n, ${"it's \\ fine"}::text as s`
      .compile(db);
    for (let i = 0; i < 3; i++) {
      deepEqual(await executeNamed(db, "test_named", query), [{
        n: 42,
        s: "it's \\ fine",
      }]);
    }
    const inside = await db.transaction().execute((trx) =>
      executeNamed(trx, "test_named", query)
    );
    deepEqual(inside, [{ n: 42, s: "it's \\ fine" }]);
  } finally {
    await close();
  }
});

Deno.test({
  name:
    "openDatabase() holds at most `poolMax` PostgreSQL connections (DATABASE_POOL_MAX)",
  ignore: !Deno.env.get("DATABASE_URL"),
}, async () => {
  const { db, name } = await namedPool("stave_pool");
  try {
    // Five transactions asked for at once, each kept open until two have begun: a pool without
    // the cap opens a connection for each of them.
    let begun = 0;
    let open!: () => void;
    const gate = new Promise<void>((resolve) => open = resolve);
    await Promise.all(
      Array.from({ length: 5 }, () =>
        db.transaction().execute(async (trx) => {
          await sql`select 1`.execute(trx);
          if (++begun === 2) open();
          await gate;
        })),
    );
    const { rows } = await sql<{ n: number }>`
      select count(*) as n from pg_stat_activity where application_name = ${name}`
      .execute(db);
    equal(rows[0].n, 2);
  } finally {
    await db.destroy();
  }
});

Deno.test({
  name:
    "executeNamed() plans its statements generically; other queries on the same connection get the server's setting back",
  ignore: !Deno.env.get("DATABASE_URL"),
}, async () => {
  // One connection, so the named statement and the plain queries share it.
  const db = await openDatabase({
    url: Deno.env.get("DATABASE_URL")!,
    poolMax: 1,
  });
  try {
    const setting = () =>
      sql<{ mode: string }>`select current_setting('plan_cache_mode') as mode`;
    const server = (await setting().execute(db)).rows[0].mode;
    const named = setting().compile(db);
    for (let round = 0; round < 2; round++) {
      deepEqual(await executeNamed(db, "test_plan_mode", named), [{
        mode: "force_generic_plan",
      }]);
      equal((await setting().execute(db)).rows[0].mode, server);
      const inside = await db.transaction().execute(async (trx) =>
        (await setting().execute(trx)).rows[0].mode
      );
      equal(inside, server);
    }
    // A failing named statement gives its connection up; the next query still answers.
    await rejects(
      executeNamed(db, "test_plan_fail", sql`select 1/0`.compile(db)),
      /division by zero/,
    );
    equal((await setting().execute(db)).rows[0].mode, server);
  } finally {
    await db.destroy();
  }
});

Deno.test({
  name:
    "destroy() closes the connections of a handle that ran named statements only",
  ignore: !Deno.env.get("DATABASE_URL"),
}, async () => {
  const { db, name } = await namedPool("stave_named");
  const named = sql<{ n: number }>`select ${1}::int as n`.compile(db);
  deepEqual(await executeNamed(db, "test_named_only", named), [{ n: 1 }]);
  const { db: other, close } = await openTestDb();
  try {
    const open = async () =>
      (await sql<{ n: number }>`select count(*) as n from pg_stat_activity
        where application_name = ${name}`.execute(other)).rows[0].n;
    equal(await open(), 1);
    await db.destroy();
    // A closed connection's server process leaves pg_stat_activity a moment after the
    // client's goodbye: ask again until it has gone, a bounded number of times.
    let left = await open();
    for (let i = 0; i < 1000 && left > 0; i++) left = await open();
    equal(left, 0);
  } finally {
    await close();
  }
});

Deno.test({
  name:
    "openDatabase(): PostgreSQL terminating a connection inside a transaction fails it with a connection error, the process lives on and the next queries run on new connections",
  ignore: !Deno.env.get("DATABASE_URL"),
}, async () => {
  const { db } = await namedPool("stave_faults");
  const admin = new pg.Client({
    connectionString: Deno.env.get("DATABASE_URL")!,
  });
  await admin.connect();
  try {
    const terminate = (pid: number) =>
      admin.query("select pg_terminate_backend($1)", [pid]);
    // Kysely holds the client between the two statements with no listener of its own: pg emits
    // the server's goodbye on it as an 'error' event, which used to end the process.
    await rejects(
      db.transaction().execute(async (trx) => {
        const { rows } = await sql<{ pid: number }>`
          select pg_backend_pid() as pid`.execute(trx);
        await terminate(rows[0].pid);
        await sql`select 1`.execute(trx);
      }),
      isConnectionError,
    );
    // The same for a named statement's connection, terminated while idle in the pool.
    const { rows } = await sql<{ n: number }>`select 41 + 1 as n`.execute(db);
    equal(rows[0].n, 42);
    const named = sql<{ pid: number }>`select pg_backend_pid() as pid`
      .compile(db);
    const [{ pid }] = await executeNamed(db, "test_faults_pid", named);
    await terminate(pid);
    // Either the pool has already dropped the dead idle client, or the statement meets the
    // closed connection: in no case a crash or a statement error.
    try {
      await executeNamed(db, "test_faults_pid", named);
    } catch (error) {
      equal(isConnectionError(error), true, String(error));
    }
    const again = await executeNamed(db, "test_faults_pid", named);
    ok(again[0].pid !== pid);
  } finally {
    await admin.end();
    await db.destroy();
  }
});

/** A PostgreSQL handle of two connections whose `application_name` finds them in pg_stat_activity. */
async function namedPool(prefix: string) {
  const url = new URL(Deno.env.get("DATABASE_URL")!);
  const name = `${prefix}_${crypto.randomUUID().slice(0, 8)}`;
  url.searchParams.set("application_name", name);
  return { db: await openDatabase({ url: url.href, poolMax: 2 }), name };
}
