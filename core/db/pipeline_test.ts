// Pipelined named statements (pipeline.ts) against real PostgreSQL: the same rows as `pg`, many
// statements per socket write, errors kept to their statement, and dropped connections replaced.
import { deepEqual, equal, ok, rejects } from "node:assert/strict";
import pg from "pg";
import { isConnectionError } from "../../plugins/sdk/pg_faults.ts";
import { pipelineFor, StatementPipeline } from "./pipeline.ts";

const DATABASE_URL = Deno.env.get("DATABASE_URL");
const ignore = !DATABASE_URL;

function pipelineOf(applicationName: string, size = 2): StatementPipeline {
  return new StatementPipeline({
    connectionString: DATABASE_URL!,
    application_name: applicationName,
  }, size);
}

const TYPED = `select $1::int8 as big, $2::timestamptz as at, $3::jsonb as doc,
  $4::text as nothing, array[$5::int, 2] as list, $6::bool as yes, $7::numeric as price`;

const TEXTS = `select $1::text as plain, $2::text as accents, $3::text as empty,
  $4::text as nothing, $5::jsonb as doc, $6::text as tail, repeat($7::text, $8::int) as long`;

Deno.test({
  name:
    "pipelined rows decode text as pg does: ASCII, UTF-8 of two to four bytes beside ASCII fields, empty and null fields, JSON, and rows past the one-piece size (4,096 bytes) on either side",
  ignore,
}, async () => {
  const pipeline = pipelineOf("stave_pipeline_texts");
  const client = new pg.Client({ connectionString: DATABASE_URL! });
  await client.connect();
  try {
    const rowsOf = (values: unknown[]) =>
      client.query({ name: "texts", text: TEXTS, values });
    for (
      const [unit, times] of [
        ["a", 1],
        ["é", 1],
        ["a", 3_900], // a row just under the one-piece size
        ["a", 4_100], // just over it: decoded by pg-protocol
        ["日本😀", 2_000],
      ] as const
    ) {
      const values = [
        "en-post-100000",
        "Crème brûlée, 日本語 and 😀",
        "",
        null,
        JSON.stringify({ title: 'Zoë "quoted"', n: 1.5 }),
        "after the others",
        unit,
        times,
      ];
      const expected = (await rowsOf(values)).rows;
      deepEqual(await pipeline.run("texts", TEXTS, values), expected);
    }
    // A repeated column name keeps its first place and the last value, as pg's rows do.
    const twice =
      "select $1::int as a, $2::text as b, $3::text as a, null::int as c";
    const expected = (await client.query({
      name: "twice",
      text: twice,
      values: [1, "x", "y"],
    })).rows;
    deepEqual(expected, [{ a: "y", b: "x", c: null }]);
    for (let run = 0; run < 2; run++) {
      const rows = await pipeline.run("twice", twice, [1, "x", "y"]);
      deepEqual(rows, expected);
      deepEqual(Object.keys(rows[0] as object), ["a", "b", "c"]);
    }
  } finally {
    await client.end();
    await pipeline.close();
  }
});

Deno.test({
  name:
    "a pipelined statement answers the same rows and types as pg's own query, also when its runs after the first skip the row description",
  ignore,
}, async () => {
  const pipeline = pipelineOf("stave_pipeline_types");
  const client = new pg.Client({ connectionString: DATABASE_URL! });
  await client.connect();
  try {
    const values = [
      "9007199254740991",
      new Date("2026-11-29T08:00:00.123Z"),
      JSON.stringify({ a: [1, "b"], c: null }),
      null,
      7,
      true,
      "12.50",
    ];
    const expected =
      (await client.query({ name: "typed", text: TYPED, values }))
        .rows;
    // The first run on a connection describes the row; the later ones reuse that description.
    for (let run = 0; run < 3; run++) {
      deepEqual(await pipeline.run("typed", TYPED, values), expected);
      equal((await pipeline.run("none", "select 1 where false", [])).length, 0);
    }
  } finally {
    await client.end();
    await pipeline.close();
  }
});

Deno.test({
  name:
    "statements asked for in one turn share a socket write per connection and answer in order; a second connection opens only when the first has a full pipe",
  ignore,
}, async () => {
  const pipeline = pipelineOf("stave_pipeline_batch", 2);
  const echo = (n: number) => pipeline.run("echo", "select $1::int as n", [n]);
  try {
    await Promise.all(Array.from({ length: 8 }, (_, i) => echo(i)));
    equal(pipeline.stats().connections, 1);
    await Promise.all(Array.from({ length: 20 }, (_, i) => echo(i)));
    const before = pipeline.stats();
    equal(before.connections, 2);
    const answers = await Promise.all(
      Array.from({ length: 100 }, (_, i) => echo(i)),
    );
    deepEqual(answers, Array.from({ length: 100 }, (_, i) => [{ n: i }]));
    // 100 statements, one write per connection: `pg` writes once per statement.
    equal(pipeline.stats().writes - before.writes, 2);
  } finally {
    await pipeline.close();
  }
});

Deno.test({
  name:
    "a failing statement fails alone: pg's error with its code, and its neighbours still answer",
  ignore,
}, async () => {
  const pipeline = pipelineOf("stave_pipeline_errors", 1);
  try {
    const [before, failed, after] = await Promise.allSettled([
      pipeline.run("div", "select 10 / $1::int as q", [5]),
      pipeline.run("div", "select 10 / $1::int as q", [0]),
      pipeline.run("div", "select 10 / $1::int as q", [2]),
    ]);
    deepEqual(before, { status: "fulfilled", value: [{ q: 2 }] });
    deepEqual(after, { status: "fulfilled", value: [{ q: 5 }] });
    equal(failed.status, "rejected");
    const error = (failed as PromiseRejectedResult).reason;
    ok(error instanceof Error);
    equal((error as { code?: string }).code, "22012");
    equal(isConnectionError(error), false);
    // A statement the server cannot parse is refused, and parsed afresh once it can be.
    await rejects(
      pipeline.run("bad", "select from nowhere_at_all", []),
      /nowhere_at_all/,
    );
    // A name stands for one text.
    await rejects(
      pipeline.run("div", "select 1", []),
      /was used for a different statement/,
    );
    deepEqual(await pipeline.run("div", "select 10 / $1::int as q", [10]), [{
      q: 1,
    }]);
  } finally {
    await pipeline.close();
  }
});

Deno.test({
  name:
    "PostgreSQL dropping a pipelined connection fails its statements in flight with a connection error; the next statement runs on a new connection",
  ignore,
}, async () => {
  const name = `stave_pipeline_drop_${Date.now()}`;
  const pipeline = pipelineOf(name, 1);
  const admin = new pg.Client({ connectionString: DATABASE_URL! });
  await admin.connect();
  try {
    deepEqual(await pipeline.run("one", "select 1 as n", []), [{ n: 1 }]);
    const slow = pipeline.run("sleep", "select pg_sleep(5) as s", []);
    const behind = pipeline.run("one", "select 1 as n", []);
    // Settled from the start: they fail while the loop below is still waiting.
    const outcomes = Promise.allSettled([slow, behind]);
    // The sleeping backend is terminated while both statements are in flight.
    for (let attempt = 0; attempt < 200; attempt++) {
      const { rowCount } = await admin.query(
        `select pg_terminate_backend(pid) from pg_stat_activity
          where application_name = $1 and state = 'active'`,
        [name],
      );
      if (rowCount) break;
    }
    for (const outcome of await outcomes) {
      equal(outcome.status, "rejected");
      ok(isConnectionError((outcome as PromiseRejectedResult).reason));
    }
    deepEqual(await pipeline.run("one", "select 1 as n", []), [{ n: 1 }]);
    equal(pipeline.stats().connections, 1);
  } finally {
    await admin.end();
    await pipeline.close();
  }
});

Deno.test({
  name: "close() ends the pipelined connections",
  ignore,
}, async () => {
  const name = `stave_pipeline_close_${Date.now()}`;
  const pipeline = pipelineOf(name, 2);
  const admin = new pg.Client({ connectionString: DATABASE_URL! });
  await admin.connect();
  try {
    // Enough at once to fill the first connection's pipe and open the second.
    await Promise.all(
      Array.from(
        { length: 12 },
        () => pipeline.run("one", "select 1 as n", []),
      ),
    );
    const count = async () =>
      Number(
        (await admin.query(
          "select count(*) as n from pg_stat_activity where application_name = $1",
          [name],
        )).rows[0].n,
      );
    equal(await count(), 2);
    await pipeline.close();
    let left = 2;
    for (let attempt = 0; attempt < 500 && left > 0; attempt++) {
      left = await count();
    }
    equal(left, 0);
    await rejects(pipeline.run("one", "select 1 as n", []), /closed/);
  } finally {
    await admin.end();
  }
});

Deno.test({
  name: "pipelineFor() leaves TLS connections to the pool",
  ignore,
}, async () => {
  const pool = new pg.Pool({
    connectionString: `${DATABASE_URL}?sslmode=require`,
  });
  try {
    equal(pipelineFor(pool, 2), null);
  } finally {
    await pool.end();
  }
  const plain = new pg.Pool({ connectionString: DATABASE_URL! });
  try {
    const pipeline = pipelineFor(plain, 2);
    ok(pipeline);
    await pipeline.close();
  } finally {
    await plain.end();
  }
});

/** A message of PostgreSQL's protocol: its type byte, its length, its body. */
function backendMessage(type: string, body: Uint8Array): Uint8Array {
  const message = new Uint8Array(5 + body.length);
  message[0] = type.charCodeAt(0);
  new DataView(message.buffer).setInt32(1, 4 + body.length);
  message.set(body, 5);
  return message;
}

Deno.test("a connection the server ends while pg still holds it (answering its session setting) fails its statement and does not take the process down", async () => {
  // A server that authenticates, answers the setting the pipeline makes, and in the same
  // write ends the session as `pg_terminate_backend` does: an ErrorResponse (FATAL) with no
  // query active, then the close. pg's client then reports an error event nobody is running
  // a query for; unheard, it was an uncaught error that stopped the service.
  const text = new TextEncoder();
  const fields = (...parts: string[]) =>
    text.encode(parts.map((part) => `${part}\0`).join("") + "\0");
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const serving = (async () => {
    const conn = await listener.accept();
    const buffer = new Uint8Array(4096);
    await conn.read(buffer); // the startup message
    await conn.write(
      new Uint8Array([
        ...backendMessage("R", new Uint8Array(4)), // AuthenticationOk
        ...backendMessage("Z", text.encode("I")),
      ]),
    );
    await conn.read(buffer); // set plan_cache_mode = …
    await conn.write(
      new Uint8Array([
        ...backendMessage("C", text.encode("SET\0")),
        ...backendMessage("Z", text.encode("I")),
        ...backendMessage(
          "E",
          fields(
            "SFATAL",
            "VFATAL",
            "C57P01",
            "Mterminating connection due to administrator command",
          ),
        ),
      ]),
    );
    conn.close();
  })();
  const port = (listener.addr as Deno.NetAddr).port;
  const pipeline = new StatementPipeline({
    host: "127.0.0.1",
    port,
    user: "stave",
    database: "stave",
  }, 1);
  try {
    await rejects(
      pipeline.run("one", "select 1 as n", []),
      (error: Error) => isConnectionError(error),
    );
    await serving;
  } finally {
    listener.close();
    await pipeline.close();
  }
});
