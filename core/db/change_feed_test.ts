// The generation of announced commits: unknown while nobody listens, moved by every
// announcement and by every listener that comes or goes.
import { deepEqual, equal, notEqual } from "node:assert/strict";
import pg from "pg";
import {
  announceWritesOf,
  ChangeFeed,
  LISTEN_RETRY_MS,
  ListeningFeed,
  statementKind,
} from "./change_feed.ts";

Deno.test("ChangeFeed knows no generation until a connection listens, and none once all are gone", async () => {
  const feed = new ChangeFeed();
  equal(feed.generation(), null);
  feed.listenerUp();
  const first = feed.generation();
  notEqual(first, null);
  equal(feed.generation(), first, "nothing announced: the same generation");
  const moved = feed.moved();
  feed.changed();
  await moved;
  notEqual(feed.generation(), first);
  equal(feed.announced, 1);
  feed.listenerUp();
  const two = feed.generation();
  feed.listenerDown();
  notEqual(
    feed.generation(),
    two,
    "a listener gone: notices may have been lost",
  );
  feed.listenerDown();
  equal(feed.generation(), null);
});

Deno.test("statementKind tells a transaction's ends and plain reads from what may write", () => {
  const kinds = Object.fromEntries(
    [
      "begin",
      "  BEGIN isolation level serializable",
      "start transaction",
      "commit",
      "end",
      "rollback",
      "abort",
      "rollback to savepoint sp1",
      "select 1",
      "\n  SELECT * from entries",
      "set plan_cache_mode = force_generic_plan",
      "reset plan_cache_mode",
      "show server_version",
      "listen stave_changes",
      "savepoint sp1",
      "release savepoint sp1",
      "insert into t values (1)",
      "with x as (delete from t returning *) select * from x",
      "with x as (select 1) select * from x",
      "update t set a = 1",
      "delete from t",
      "create table t (a int)",
      "truncate t",
      "",
    ].map((text) => [text, statementKind(text)]),
  );
  deepEqual(kinds, {
    "begin": "begin",
    "  BEGIN isolation level serializable": "begin",
    "start transaction": "begin",
    "commit": "end",
    "end": "end",
    "rollback": "end",
    "abort": "end",
    "rollback to savepoint sp1": "read",
    "select 1": "read",
    "\n  SELECT * from entries": "read",
    "set plan_cache_mode = force_generic_plan": "read",
    "reset plan_cache_mode": "read",
    "show server_version": "read",
    "listen stave_changes": "read",
    "savepoint sp1": "read",
    "release savepoint sp1": "read",
    "insert into t values (1)": "write",
    "with x as (delete from t returning *) select * from x": "write",
    // Told apart only by reading the whole statement: counted as a write, which costs a kept
    // answer, never a stale one.
    "with x as (select 1) select * from x": "write",
    "update t set a = 1": "write",
    "delete from t": "write",
    "create table t (a int)": "write",
    "truncate t": "write",
    "": "write",
  });
});

Deno.test("a client's writes move the feed once answered: outside a transaction each, inside one at its commit", async () => {
  const feed = new ChangeFeed();
  feed.listenerUp();
  const answers: (() => void)[] = [];
  const client = announceWritesOf({
    query(text: string) {
      return new Promise<string>((resolve) =>
        answers.push(() => resolve(text))
      );
    },
  }, feed);
  /** Sends each statement in turn, each answered before the next is sent. */
  const send = async (...texts: string[]) => {
    for (const text of texts) {
      const pending = client.query(text);
      answers.shift()!();
      await pending;
    }
  };
  const at = () => feed.generation();
  const start = at();

  await send("select 1");
  equal(at(), start, "a read moves nothing");

  const write = client.query("insert into t values (1)");
  equal(at(), start, "not before its answer");
  answers.shift()!();
  await write;
  const afterWrite = at();
  notEqual(afterWrite, start, "moved before the writer resumes");

  await send("begin", "update t set a = 2");
  equal(at(), afterWrite, "nothing committed yet");
  await send("commit");
  notEqual(at(), afterWrite, "the commit moved it");

  const afterCommit = at();
  await send("begin", "commit");
  equal(at(), afterCommit, "a transaction that ran nothing moves nothing");

  // A connection checked out again after it was left in a transaction starts outside one.
  await send("begin");
  announceWritesOf(client, feed);
  await send("select 2", "commit");
  equal(at(), afterCommit, "the forgotten transaction wrote nothing");
});

Deno.test("a listening feed that cannot connect knows no generation and tries again only after LISTEN_RETRY_MS", async () => {
  // A port nothing listens on: the connection is refused.
  const probe = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (probe.addr as Deno.NetAddr).port;
  probe.close();
  let now = 0;
  let opened = 0;
  const feed = new ListeningFeed(() => {
    opened++;
    return new pg.Client({ host: "127.0.0.1", port, user: "nobody" });
  }, () => now);
  equal(opened, 0, "nothing opened before it is asked for");
  feed.listen();
  equal(opened, 1, "listen() opens the listener at once");
  equal(feed.generation(), null);
  equal(opened, 1, "one attempt at a time");
  await feed.settled();
  now += LISTEN_RETRY_MS - 1;
  equal(feed.generation(), null);
  equal(opened, 1, "not again before the wait");
  now += 1;
  equal(feed.generation(), null);
  equal(opened, 2, "again once the wait is over");
  await feed.close();
});
