// isConnectionError() over SQLSTATEs, socket codes and pg's messages; guardPool() against real
// PostgreSQL terminating a pool's connections, handed out and idle.
import { equal, ok, rejects } from "node:assert/strict";
import { EventEmitter } from "node:events";
import pg from "pg";
import { createScratchDatabase } from "../../tests/support/db.ts";
import { guardPool, isConnectionError } from "./pg_faults.ts";

const coded = (code: string, message = "failed") =>
  Object.assign(new Error(message), { code });

Deno.test("isConnectionError() is true for SQLSTATE class 08, 57P01 to 57P03, socket codes and pg's dropped-connection messages", () => {
  for (
    const error of [
      coded("08000"),
      coded("08006"),
      coded("08P01"),
      coded("57P01", "terminating connection due to administrator command"),
      coded(
        "57P02",
        "terminating connection due to crash of another server process",
      ),
      coded("57P03", "the database system is starting up"),
      coded("ECONNRESET", "read ECONNRESET"),
      coded("ECONNREFUSED", "connect ECONNREFUSED 127.0.0.1:5432"),
      coded("EPIPE"),
      new Error("read ECONNRESET"),
      new Error("Connection terminated unexpectedly"),
      new Error("Connection terminated"),
      new Error("Connection terminated due to connection timeout"),
      new Error(
        "Client has encountered a connection error and is not queryable",
      ),
      new Error("timeout exceeded when trying to connect"),
      // Wrappers keep the driver's error as their cause.
      new Error("Cannot write the admin audit entry", {
        cause: coded("57P01"),
      }),
      new Error("outer", {
        cause: new Error("middle", {
          cause: new Error("Connection terminated unexpectedly"),
        }),
      }),
      { code: "08006", message: "plain object from a driver" },
    ]
  ) {
    equal(isConnectionError(error), true, String((error as Error).message));
  }
});

Deno.test("isConnectionError() is false for a statement's own errors and for values that are not errors", () => {
  for (
    const error of [
      coded("23505", "duplicate key value violates unique constraint"),
      coded("40001", "could not serialize access"),
      coded("57014", "canceling statement due to statement timeout"),
      coded("42P01", "relation does not exist"),
      coded("080", "too short to be a SQLSTATE"),
      coded("57P04"),
      new Error("Client was closed and is not queryable"),
      new Error("syntax error at or near"),
      new Error("A connection terminated here is not pg's message"),
      null,
      undefined,
      "Connection terminated unexpectedly",
      42,
    ]
  ) {
    equal(isConnectionError(error), false, String(error));
  }
  // A cause chain that loops is followed a few levels, never forever.
  const looped: Error & { cause?: unknown } = new Error("loop");
  looped.cause = looped;
  equal(isConnectionError(looped), false);
});

Deno.test("guardPool(): every client gets a listener when it connects; each client's failure is reported once, as an Error even when emitted as null; the pool's re-emission throws nothing", () => {
  const pool = new EventEmitter();
  const reported: Error[] = [];
  guardPool(pool as never, (error) => reported.push(error));
  const first = new EventEmitter();
  const second = new EventEmitter();
  pool.emit("connect", first);
  pool.emit("connect", second);
  first.emit("error", null);
  first.emit("error", new Error("Connection terminated unexpectedly"));
  second.emit("error", coded("57P01", "terminating connection"));
  pool.emit("error", new Error("idle client failed"));
  equal(reported.length, 2);
  ok(reported.every((e) => e instanceof Error));
  equal(reported[0].message, "null");
  equal(reported[1].message, "terminating connection");
});

const DATABASE_URL = Deno.env.get("DATABASE_URL");

Deno.test({
  name:
    "guardPool(): PostgreSQL terminating a handed-out and an idle connection reports each once, ends nothing, and the pool answers again on new connections",
  ignore: !DATABASE_URL,
  async fn() {
    const scratch = await createScratchDatabase(DATABASE_URL!);
    const pool = new pg.Pool({ connectionString: scratch.url, max: 2 });
    const admin = new pg.Client({ connectionString: DATABASE_URL });
    await admin.connect();
    const reported: Error[] = [];
    let onReport = () => {};
    guardPool(pool, (error) => {
      reported.push(error);
      onReport();
    });
    const nextReport = () => new Promise<void>((r) => onReport = r);
    const terminate = (pid: number) =>
      admin.query("select pg_terminate_backend($1)", [pid]);
    try {
      // Handed out: nobody but the guard listens on the client between two queries.
      const client = await pool.connect();
      const pid: number = (await client.query("select pg_backend_pid() as pid"))
        .rows[0].pid;
      let reportedOnce = nextReport();
      await terminate(pid);
      await reportedOnce;
      equal(reported.length, 1);
      ok(isConnectionError(reported[0]), reported[0].message);
      await rejects(client.query("select 1"), isConnectionError);
      client.release();
      equal(pool.totalCount, 0, "the dead client left the pool on release");

      // Idle: the pool's own listener sees it too; it is still reported once.
      const idlePid: number =
        (await pool.query("select pg_backend_pid() as pid")).rows[0].pid;
      ok(idlePid !== pid);
      equal(pool.idleCount, 1);
      reportedOnce = nextReport();
      await terminate(idlePid);
      await reportedOnce;
      equal(reported.length, 2);
      ok(isConnectionError(reported[1]), reported[1].message);
      equal(pool.totalCount, 0, "the pool dropped its dead idle client");

      const again = await pool.query("select 41 + 1 as n");
      equal(again.rows[0].n, 42);
      equal(reported.length, 2);
    } finally {
      await admin.end();
      await pool.end();
      await scratch.drop();
    }
  },
});
