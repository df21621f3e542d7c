// The tick's client for one installation: the token the tick read once answers the first request;
// a rotation meanwhile still works, because plugin_unauthorized makes the client read the stored
// token again (spec 1 part 7 rule 3; PLG-029). And how a tick claims schedules a chunk at a time.
import { deepEqual, equal } from "node:assert/strict";
import { type KyselyPlugin, sql } from "kysely";
import { openTestSchedulerDb } from "../../../tests/scheduling/engines.ts";
import { scheduleRow } from "./_testing.ts";
import { chunkSize, installationClient, runTick } from "./tick.ts";
import { TokenBox } from "./token_box.ts";

const NOW = new Date("2026-11-23T10:00:00Z");

Deno.test("installationClient() sends the token the tick read, and after plugin_unauthorized the stored one (PLG-029)", async () => {
  const { db, close } = await openTestSchedulerDb();
  const box = new TokenBox(crypto.getRandomValues(new Uint8Array(32)));
  const stale = `svp_${"a".repeat(43)}`;
  const fresh = `svp_${"b".repeat(43)}`;
  const origin = "http://127.0.0.1:9";
  await db.insertInto("installations").values({
    id: "inst-1",
    site_id: "site-1",
    service_url: origin,
    // Rotated after the tick read the token: the store holds the new one.
    token_sealed: await box.seal(fresh),
    created_at: NOW,
    updated_at: NOW,
  }).execute();
  const sent: (string | null)[] = [];
  const fetch = (_url: string | URL | Request, init?: RequestInit) => {
    const auth = new Headers(init?.headers).get("authorization");
    sent.push(auth);
    const ok = auth === `Bearer ${fresh}`;
    return Promise.resolve(Response.json({
      outcome: ok
        ? { code: "transition_applied", message: "Published", retry: false }
        : { code: "plugin_unauthorized", message: "No", retry: false },
    }, { status: ok ? 200 : 401 }));
  };
  const client = installationClient(
    {
      db,
      box,
      servicePolicy: { development: true, devOrigins: [origin] },
      fetch: fetch as typeof globalThis.fetch,
      now: () => NOW.getTime(),
    },
    { id: "inst-1", service_url: origin },
    { maxAttempts: 2 },
    stale,
  );
  const result = await client.transition("c1", "published", {
    kind: "publish",
    expected_current_version_id: "v1",
    expected_workflow_revision: 1,
    delegation_id: "d1",
  }, { idempotencyKey: "sched:inst-1:s1:r1" });
  equal(result.kind, "success");
  deepEqual(sent, [`Bearer ${stale}`, `Bearer ${fresh}`]);
  await close();
});

Deno.test("a chunk of sends fits its lease: five at the default 60 s lease, one when a lease holds one attempt (SCH-016)", () => {
  // An attempt may take 10 s (less when the lease is short); a lease ends 5 s after the last send.
  deepEqual(
    [6_000, 15_000, 24_999, 25_000, 54_999, 55_000, 60_000, 600_000].map(
      chunkSize,
    ),
    [1, 1, 1, 2, 4, 5, 5, 5],
  );
});

/** Twelve due schedules of one installation, and a tick over them whose statements are counted. */
async function twelveDue(
  options: { kv?: (kv: Deno.Kv) => Deno.Kv; done?: number } = {},
) {
  const { db, close: closeDb } = await openTestSchedulerDb();
  const store = await Deno.openKv(":memory:");
  const kv = options.kv?.(store) ?? store;
  const box = new TokenBox(crypto.getRandomValues(new Uint8Array(32)));
  const origin = "http://127.0.0.1:9";
  const clock = { now: NOW.getTime() };
  await db.insertInto("installations").values({
    id: "inst-1",
    site_id: "site-1",
    service_url: origin,
    token_sealed: await box.seal(`svp_${"a".repeat(43)}`),
    created_at: NOW,
    updated_at: NOW,
  }).execute();
  // In the order the tick reads them (by due time, then id).
  const ids = Array.from(
    { length: 12 },
    (_, i) => `00000000-0000-4000-8000-${String(i).padStart(12, "0")}`,
  );
  const row = (id: string, i: number) =>
    scheduleRow(id, NOW, {
      instance_id: `e-${i}`,
      group_id: `g-${i}`,
      title: `Post ${i}`,
      pinned_version_id: `v-${i}`,
    });
  await db.insertInto("schedules").values(ids.map(row)).execute();
  // Schedules done long ago, which no tick should read.
  for (let n = 0; n < (options.done ?? 0); n += 500) {
    await db.insertInto("schedules").values(
      Array.from({ length: 500 }, (_, i) => ({
        ...row(crypto.randomUUID(), 100 + n + i),
        status: "completed",
      })),
    ).execute();
  }
  const statements: string[] = [];
  const counted: KyselyPlugin = {
    transformQuery(args) {
      statements.push(args.node.kind);
      return args.node;
    },
    transformResult: (args) => Promise.resolve(args.result),
  };
  const sentFor: string[] = [];
  const tick = () =>
    runTick({
      db: db.withPlugin(counted),
      kv,
      box,
      now: () => clock.now,
      limits: {
        maxAttempts: 5,
        maxLatenessMs: 900_000,
        leaseMs: 60_000,
        maxRetryAfterMs: 300_000,
      },
      servicePolicy: { development: true, devOrigins: [origin] },
      fetch: ((url: string | URL | Request) => {
        sentFor.push(/content\/([^/]+)\//.exec(String(url))?.[1] ?? "");
        return Promise.resolve(Response.json({
          outcome: {
            code: "transition_applied",
            message: "Published",
            retry: false,
          },
        }));
      }) as typeof fetch,
    });
  return {
    db,
    kv: store,
    ids,
    clock,
    statements,
    sentFor,
    tick,
    /** Statuses in id order, and the owners of the leases left in KV. */
    async state() {
      const rows = await db.selectFrom("schedules").select("status")
        .where("id", "in", ids).orderBy("id").execute();
      const leases = await Array.fromAsync(
        store.list<{ owner: string }>({ prefix: ["scheduling", "lease"] }),
      );
      return {
        statuses: rows.map((row) => row.status),
        leaseOwners: leases.map((lease) => lease.value.owner),
      };
    },
    async close() {
      store.close();
      await closeDb();
    },
  };
}

Deno.test("a tick claims five schedules per statement with the last five's results, and a schedule another process leases costs only itself (SCH-015, SCH-016)", async () => {
  const w = await twelveDue();
  // Another process holds the second one's lease.
  await w.kv.set(["scheduling", "lease", w.ids[1]], {
    owner: "other-process",
    expiresAt: w.clock.now + 60_000,
  });
  const first = await w.tick();
  equal(first.claimed, 11);
  equal(first.completed, 11);
  deepEqual(
    w.sentFor,
    w.ids.map((_, i) => `e-${i}`).filter((e) => e !== "e-1"),
  );
  // Chunks of 5 (4 leased), 5 and 2, each claimed with the last one's results, then the last
  // results alone: 4 statements where one per send took 12.
  equal(
    w.statements.filter((kind) => kind === "RawNode").length,
    4,
    w.statements.join(),
  );
  const attempts = await w.db.selectFrom("schedule_attempts")
    .select(["schedule_id", "attempt", "code"]).orderBy("schedule_id")
    .execute();
  deepEqual(
    attempts,
    w.ids.filter((_, i) => i !== 1).map((id) => ({
      schedule_id: id,
      attempt: 1,
      code: "transition_applied",
    })),
  );
  // Every lease this tick took is released; the other process's is untouched.
  deepEqual(await w.state(), {
    statuses: w.ids.map((_, i) => i === 1 ? "pending" : "completed"),
    leaseOwners: ["other-process"],
  });
  // Once that lease lapses, the next tick sends it.
  w.clock.now += 60_001;
  equal((await w.tick()).completed, 1);
  equal(w.sentFor.at(-1), "e-1");
  await w.close();
});

Deno.test("a lease another process takes between a chunk's read and its write fails the chunk's one write; the others are then leased one at a time and sent (SCH-016)", async () => {
  let raced = false;
  const w = await twelveDue({
    kv: (store) =>
      new Proxy(store, {
        get(target, name) {
          if (name !== "getMany") {
            const value = Reflect.get(target, name, target);
            return typeof value === "function" ? value.bind(target) : value;
          }
          return async (keys: Deno.KvKey[]) => {
            const read = await target.getMany(keys);
            if (!raced) {
              // Another process leases the third schedule right after this read.
              raced = true;
              await target.set(keys[2], {
                owner: "other-process",
                expiresAt: Date.parse("2026-11-23T10:01:00Z"),
              });
            }
            return read;
          };
        },
      }),
  });
  const first = await w.tick();
  equal(first.claimed, 11);
  deepEqual(
    w.sentFor,
    w.ids.map((_, i) => `e-${i}`).filter((e) => e !== "e-2"),
  );
  deepEqual(await w.state(), {
    statuses: w.ids.map((_, i) => i === 2 ? "pending" : "completed"),
    leaseOwners: ["other-process"],
  });
  await w.close();
});

Deno.test("a tick reads no more of a large store than its due schedules: every claim and record finds its rows by primary key (SCH-015)", async () => {
  const w = await twelveDue({ done: 2_000 });
  await sql`analyze`.execute(w.db);
  const scans = async () => {
    await sql`select pg_stat_force_next_flush()`.execute(w.db);
    return (await sql<{ seq_scan: number; seq_tup_read: number }>`
      select seq_scan::int, seq_tup_read::int from pg_stat_user_tables
      where relname = 'schedules'`.execute(w.db)).rows[0];
  };
  const before = await scans();
  equal((await w.tick()).completed, 12);
  deepEqual(await scans(), before, "no statement of the tick read the table");
  await w.close();
});
