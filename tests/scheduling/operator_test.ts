// Long on purpose: the operator routes run in sequence against one fake service and manual clock.
// The scheduling plugin's operator and service-facing routes on their own, over HTTP, with a fake
// service behind `fetch` and a manual clock: activation and rotation codes, the hand-off, the
// stored installation, the service URL rule, operation refusals by name, data deletion, and the
// scheduler variables (spec 1 parts 2.10, 4.4, 5.9 and 8; SOP and SCH rows).
import { deepEqual, equal, match, ok, throws } from "node:assert/strict";
import {
  decodeTokenKey,
  loadSchedulerConfig,
} from "../../plugins/scheduling/config.ts";
import { readToken } from "../../plugins/scheduling/core/installations.ts";
import { scheduleRow } from "../../plugins/scheduling/core/_testing.ts";
import type { Schedule } from "../../plugins/scheduling/core/schedules.ts";
import { TokenBox } from "../../plugins/scheduling/core/token_box.ts";
import {
  type RunningScheduler,
  startScheduler,
  type StartSchedulerOptions,
} from "../../plugins/scheduling/server.ts";
import { lendSchedulerEngine } from "./engines.ts";

const SECRET = "operator-secret-16";
const KEY = crypto.getRandomValues(new Uint8Array(32));
const START = Date.parse("2026-11-23T10:00:00Z");
const SERVICE = "http://stave.test";

/** A pending schedule written straight into the store, due when the test's clock starts. */
function dueAtStart(id: string, fields: Partial<Schedule> = {}): Schedule {
  return scheduleRow(id, new Date(START), fields);
}

interface Plugin {
  scheduler: RunningScheduler;
  clock: { now: number };
  /** Every URL the plugin called on the service. */
  calls: string[];
  request(
    path: string,
    body: unknown,
    bearer?: string,
  ): Promise<{ status: number; body: Record<string, unknown> | null }>;
  activate(fields: Record<string, string>): Promise<number>;
}

/** A plugin whose service answers `answer` (default: a transition applied). */
async function withPlugin(
  fn: (p: Plugin) => Promise<void>,
  options: {
    development?: boolean;
    limits?: StartSchedulerOptions["limits"];
    answer?: (url: string) => Response;
  } = {},
): Promise<void> {
  const clock = { now: START };
  const calls: string[] = [];
  const kv = await Deno.openKv(":memory:");
  const engine = await lendSchedulerEngine();
  const scheduler = await startScheduler({
    adminSecret: SECRET,
    tokenKey: KEY,
    database: { engine: engine.pglite },
    kv,
    servicePolicy: {
      development: options.development ?? true,
      devOrigins: [SERVICE],
    },
    limits: options.limits,
    now: () => clock.now,
    random: () => 0.5,
    sleep: (ms) => {
      clock.now += ms;
      return Promise.resolve();
    },
    fetch: (input) => {
      const url = String(input);
      calls.push(url);
      return Promise.resolve(
        options.answer?.(url) ??
          Response.json({
            outcome: {
              code: "transition_applied",
              message: "Done",
              retry: false,
            },
          }),
      );
    },
  });
  const request: Plugin["request"] = async (path, body, bearer) => {
    const res = await fetch(`${scheduler.origin}${path}`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        ...(bearer === undefined ? {} : { authorization: `Bearer ${bearer}` }),
      },
      body: JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : null };
  };
  const plugin: Plugin = {
    scheduler,
    clock,
    calls,
    request,
    async activate(fields) {
      const res = await request("/svc/activate", {
        kind: "activate",
        installation_id: "inst-1",
        site_id: "site-1",
        service_url: SERVICE,
        token: TOKEN_A,
        ...fields,
      });
      return res.status;
    },
  };
  try {
    await fn(plugin);
  } finally {
    await scheduler.close();
    await engine.giveBack();
    kv.close();
  }
}

const TOKEN_A = `svp_${"a".repeat(43)}`;
const TOKEN_B = `svp_${"b".repeat(43)}`;

async function code(p: Plugin, body: unknown = {}): Promise<string> {
  const res = await p.request("/admin/activation-codes", body, SECRET);
  equal(res.status, 201, JSON.stringify(res.body));
  return String(res.body!.code);
}

Deno.test("activation codes: {} issues an activate code, { installation_id } a rotate code, 201 with a closed body valid 15 minutes (SOP-002, SOP-003)", () =>
  withPlugin(async (p) => {
    const first = await p.request("/admin/activation-codes", {}, SECRET);
    equal(first.status, 201);
    deepEqual(Object.keys(first.body!).sort(), [
      "code",
      "expires_at",
      "installation_id",
      "purpose",
    ]);
    equal(first.body!.purpose, "activate");
    equal(first.body!.installation_id, null);
    equal(first.body!.expires_at, START + 15 * 60_000);
    match(String(first.body!.code), /^[A-Za-z0-9_-]{43}$/);
    const later = await code(p);

    // Valid until its expiry: the last millisecond accepted, the expiry itself refused.
    p.clock.now = START + 15 * 60_000 - 1;
    equal(await p.activate({ code: String(first.body!.code) }), 204);
    p.clock.now = START + 15 * 60_000;
    equal(
      await p.activate({ code: later, installation_id: "inst-2" }),
      403,
    );
    equal(
      (await p.scheduler.db.selectFrom("installations").select("id")
        .execute()).map((r) => r.id).join(),
      "inst-1",
    );

    const rotate = await p.request("/admin/activation-codes", {
      installation_id: "inst-1",
    }, SECRET);
    equal(rotate.status, 201);
    equal(rotate.body!.purpose, "rotate");
    equal(rotate.body!.installation_id, "inst-1");
    const unknown = await p.request("/admin/activation-codes", {
      installation_id: "inst-9",
    }, SECRET);
    equal(unknown.status, 404);
    equal((unknown.body!.error as { code: string }).code, "not_found");
    const extra = await p.request("/admin/activation-codes", {
      purpose: "rotate",
    }, SECRET);
    equal(extra.status, 400);
  }));

Deno.test("ADMIN_SECRET needs 16 characters; operator routes refuse any other bearer with 401 (SOP-004)", () =>
  withPlugin(async (p) => {
    const env = { TOKEN_KEY: btoa(String.fromCharCode(...KEY)) };
    throws(
      () => loadSchedulerConfig({ ...env, ADMIN_SECRET: "x".repeat(15) }),
      /ADMIN_SECRET must be at least 16 characters/,
    );
    equal(
      loadSchedulerConfig({ ...env, ADMIN_SECRET: "x".repeat(16) }).adminSecret,
      "x".repeat(16),
    );
    throws(() => loadSchedulerConfig(env), /ADMIN_SECRET/);
    for (
      const path of [
        "/admin/activation-codes",
        "/admin/installations/inst-1/delete-data",
      ]
    ) {
      for (const bearer of [undefined, `${SECRET}x`, SECRET.slice(1), ""]) {
        const res = await p.request(path, {}, bearer);
        equal(res.status, 401, `${path} ${bearer}`);
        equal((res.body!.error as { code: string }).code, "unauthorized");
      }
    }
    equal(
      (await p.scheduler.kv.list({ prefix: ["scheduling", "code"] }).next())
        .done,
      true,
      "no code was issued",
    );
  }));

Deno.test("the hand-off: activate makes an installation once, refuses an existing one, rotate replaces the token, each code works once; the token is stored sealed (SOP-005, SOP-006, SOP-007)", () =>
  withPlugin(async (p) => {
    const activation = await code(p);
    equal(await p.activate({ code: activation }), 204);
    equal(await p.activate({ code: activation }), 403, "a used code");
    equal(await p.activate({ code: await code(p) }), 409, "an existing id");

    // SOP-006: id, site, service URL and the token sealed under TOKEN_KEY, never in plain.
    const row = await p.scheduler.db.selectFrom("installations").selectAll()
      .executeTakeFirstOrThrow();
    equal(row.id, "inst-1");
    equal(row.site_id, "site-1");
    equal(row.service_url, SERVICE);
    equal(row.token_sealed.includes(TOKEN_A), false);
    equal(row.token_sealed.includes("a".repeat(20)), false);
    equal(await new TokenBox(KEY).open(row.token_sealed), TOKEN_A);
    // SOP-007: another key cannot open it.
    equal(
      await new TokenBox(crypto.getRandomValues(new Uint8Array(32))).open(
        row.token_sealed,
      ),
      null,
    );

    const rotation = await code(p, { installation_id: "inst-1" });
    const rotate = {
      kind: "rotate",
      code: rotation,
      token: TOKEN_B,
    };
    equal(await p.activate(rotate), 204);
    equal(
      await readToken(p.scheduler.db, new TokenBox(KEY), "inst-1"),
      TOKEN_B,
    );
    equal(await p.activate(rotate), 403, "a used rotation code");
    // An activation code cannot rotate, nor a rotation code activate.
    equal(await p.activate({ ...rotate, code: await code(p) }), 403);
    const other = await code(p, { installation_id: "inst-1" });
    equal(
      await p.activate({ code: other, installation_id: "inst-1" }),
      403,
    );
    equal(
      await readToken(p.scheduler.db, new TokenBox(KEY), "inst-1"),
      TOKEN_B,
    );
  }));

Deno.test("a token the TOKEN_KEY cannot open refuses token_unreadable unsent until the installation is rotated (SCH-033, SOP-007)", () =>
  withPlugin(async (p) => {
    equal(await p.activate({ code: await code(p) }), 204);
    const lost = new TokenBox(crypto.getRandomValues(new Uint8Array(32)));
    await p.scheduler.db.updateTable("installations")
      .set({ token_sealed: await lost.seal(TOKEN_A) }).execute();
    const first = crypto.randomUUID();
    await p.scheduler.db.insertInto("schedules").values(
      dueAtStart(first),
    )
      .execute();
    equal((await p.scheduler.tick()).refused, 1);
    const refused = await p.scheduler.db.selectFrom("schedules").selectAll()
      .where("id", "=", first).executeTakeFirstOrThrow();
    equal(refused.status, "refused");
    equal(refused.last_code, "token_unreadable");
    equal(p.calls.length, 0);

    // A rotation seals a fresh token under the current key: the next schedule is sent.
    equal(
      await p.activate({
        kind: "rotate",
        code: await code(p, { installation_id: "inst-1" }),
        token: TOKEN_B,
      }),
      204,
    );
    await p.scheduler.db.insertInto("schedules")
      .values(dueAtStart(crypto.randomUUID())).execute();
    equal((await p.scheduler.tick()).completed, 1);
    equal(p.calls.length, 1);
  }));

Deno.test("TOKEN_KEY is base64 of exactly 32 bytes (SOP-007)", () => {
  const of = (n: number) =>
    btoa(String.fromCharCode(...new Uint8Array(n).fill(7)));
  equal(decodeTokenKey(of(32)).length, 32);
  throws(() => decodeTokenKey(of(31)), /32 random bytes/);
  throws(() => decodeTokenKey(of(33)), /32 random bytes/);
  throws(() => decodeTokenKey("not base64!"), /base64/);
  throws(
    () => loadSchedulerConfig({ ADMIN_SECRET: SECRET, TOKEN_KEY: of(31) }),
    /32 random bytes/,
  );
});

Deno.test("in production the service URL must be https without credentials, query or fragment; plain http only for a listed development origin (SOP-008)", async () => {
  await withPlugin(async (p) => {
    for (
      const url of [
        "http://stave.test",
        "https://user:pw@stave.test",
        "https://stave.test/?a=1",
        "https://stave.test/#top",
      ]
    ) {
      equal(
        await p.activate({ code: await code(p), service_url: url }),
        400,
        url,
      );
    }
    equal(
      (await p.scheduler.db.selectFrom("installations").selectAll().execute())
        .length,
      0,
    );
    equal(
      await p.activate({
        code: await code(p),
        service_url: "https://stave.test",
      }),
      204,
    );
  }, { development: false });
  await withPlugin(async (p) => {
    equal(
      await p.activate({
        code: await code(p),
        service_url: "http://other.test",
      }),
      400,
    );
    equal(await p.activate({ code: await code(p) }), 204);
  });
});

Deno.test("an operation call refuses by name: unknown operation, malformed envelope, unknown installation, a code the service will not exchange (SOP-019)", () =>
  withPlugin(async (p) => {
    equal(await p.activate({ code: await code(p) }), 204);
    const envelope = {
      installation_id: "inst-1",
      invocation_id: "inv-1",
      code: "svc-code",
      expires_at: START + 60_000,
    };
    const refusal = async (path: string, body: unknown) => {
      const res = await p.request(path, body);
      equal(res.status, 200);
      equal(res.body!.status, "refused", JSON.stringify(res.body));
      return String(res.body!.code);
    };
    equal(
      await refusal("/svc/operations/schedule-delete", envelope),
      "unknown_operation",
    );
    equal(
      await refusal("/svc/operations/schedule-status", {
        ...envelope,
        extra: 1,
      }),
      "invalid_request",
    );
    equal(
      await refusal("/svc/operations/schedule-status", {
        ...envelope,
        installation_id: "inst-9",
      }),
      "invocation_refused",
    );
    equal(p.calls.length, 0, "nothing reached the service");
    // The fake service refuses the exchange.
    equal(
      await refusal("/svc/operations/schedule-status", envelope),
      "exchange_refused",
    );
    ok(p.calls.at(-1)!.endsWith("/api/plugin/v1/invocations/exchange"));
  }, {
    answer: (url) =>
      url.endsWith("/invocations/exchange")
        ? Response.json({
          outcome: {
            code: "invocation_refused",
            message: "No",
            retry: false,
          },
        }, { status: 403 })
        : Response.json({}, { status: 500 }),
  }));

Deno.test("an operation whose code was exchanged for another operation, or whose input is malformed, is refused by name (SOP-019)", () =>
  withPlugin(async (p) => {
    equal(await p.activate({ code: await code(p) }), 204);
    const envelope = {
      installation_id: "inst-1",
      invocation_id: "inv-1",
      code: "svc-code",
      expires_at: START + 60_000,
    };
    const other = await p.request("/svc/operations/schedule-draft", envelope);
    deepEqual(
      [other.body!.status, other.body!.code],
      ["refused", "invalid_request"],
    );
    match(String(other.body!.message), /another operation/);
    const status = await p.request("/svc/operations/schedule-status", envelope);
    equal(status.body!.status, "refused");
    equal(status.body!.code, "invalid_request", "the run names no entry");
  }, {
    answer: () =>
      Response.json({
        data: {
          delegation_id: "d-1",
          operation_id: "schedule-status",
          instance_id: null,
          group_id: null,
          input: {},
          user: { email: "a@b.test" },
        },
      }),
  }));

Deno.test("delete-data deletes everything the plugin keeps for an installation once, 404 after, 409 while a schedule runs (SOP-021)", () =>
  withPlugin(async (p) => {
    equal(await p.activate({ code: await code(p) }), 204);
    const id = crypto.randomUUID();
    await p.scheduler.db.insertInto("schedules")
      .values(dueAtStart(id, { status: "running" }))
      .execute();
    const path = "/admin/installations/inst-1/delete-data";
    const busy = await p.request(path, {}, SECRET);
    equal(busy.status, 409);
    equal(
      (busy.body!.error as { code: string }).code,
      "execution_in_progress",
    );
    equal(
      (await p.scheduler.db.selectFrom("installations").selectAll().execute())
        .length,
      1,
    );
    await p.scheduler.db.updateTable("schedules").set({ status: "completed" })
      .execute();
    const done = await p.request(path, {}, SECRET);
    equal(done.status, 200);
    deepEqual(done.body, { deleted: true });
    equal(
      (await p.scheduler.db.selectFrom("schedules").selectAll().execute())
        .length,
      0,
    );
    equal(
      (await p.scheduler.db.selectFrom("installations").selectAll().execute())
        .length,
      0,
    );
    const again = await p.request(path, {}, SECRET);
    equal(again.status, 404);
    equal((again.body!.error as { code: string }).code, "not_found");
  }));

Deno.test("a tick claims at most 20 due schedules per installation; the rest go in the next tick (SCH-015)", () =>
  withPlugin(async (p) => {
    equal(await p.activate({ code: await code(p) }), 204);
    const ids = Array.from({ length: 25 }, () => crypto.randomUUID());
    await p.scheduler.db.insertInto("schedules")
      .values(ids.map((id) => dueAtStart(id))).execute();
    const first = await p.scheduler.tick();
    equal(first.claimed, 20);
    equal(first.completed, 20);
    const second = await p.scheduler.tick();
    equal(second.claimed, 5);
    equal((await p.scheduler.tick()).claimed, 0);
    equal(p.calls.length, 25);
  }));

// SCH-015: the limit is per installation and tick, not per tick of the whole plugin service: the
// service's rate window is per installation, and 2,000 due publishes across 100 installations
// must all go in one tick (docs/scheduling.md, "The tick").
Deno.test("with several installations each one sends 20 due schedules in a tick, and each one's 21st waits for the next tick (SCH-015)", () =>
  withPlugin(async (p) => {
    const installations = ["inst-1", "inst-2", "inst-3"];
    for (const id of installations) {
      equal(
        await p.activate({ code: await code(p), installation_id: id }),
        204,
      );
    }
    const last = new Map<string, string>();
    for (const installation_id of installations) {
      const rows = Array.from(
        { length: 21 },
        (_, i) =>
          dueAtStart(crypto.randomUUID(), {
            installation_id,
            // The 21st falls due a second after the others: still due, but last in line.
            ...(i === 20
              ? {
                due_at: new Date(START + 1_000),
                next_attempt_at: new Date(START + 1_000),
              }
              : {}),
          }),
      );
      last.set(installation_id, rows[20].id);
      await p.scheduler.db.insertInto("schedules").values(rows).execute();
    }
    p.clock.now = START + 1_000;
    const first = await p.scheduler.tick();
    equal(first.claimed, 60);
    equal(first.completed, 60);
    const byStatus = async () =>
      (await p.scheduler.db.selectFrom("schedules")
        .select(["id", "installation_id", "status"]).execute())
        .map((r) => `${r.installation_id}:${r.status}`).sort();
    const counted = (rows: string[]) =>
      Object.fromEntries(
        [...new Set(rows)].map((k) => [k, rows.filter((r) => r === k).length]),
      );
    deepEqual(counted(await byStatus()), {
      "inst-1:completed": 20,
      "inst-1:pending": 1,
      "inst-2:completed": 20,
      "inst-2:pending": 1,
      "inst-3:completed": 20,
      "inst-3:pending": 1,
    });
    for (const [installation, id] of last) {
      const row = await p.scheduler.db.selectFrom("schedules").select("status")
        .where("id", "=", id).executeTakeFirstOrThrow();
      equal(row.status, "pending", `${installation}'s 21st waits`);
    }
    // The next minute's tick sends each installation's 21st.
    p.clock.now = START + 60_000;
    const second = await p.scheduler.tick();
    equal(second.claimed, 3);
    equal(second.completed, 3);
    deepEqual(counted(await byStatus()), {
      "inst-1:completed": 21,
      "inst-2:completed": 21,
      "inst-3:completed": 21,
    });
    equal(p.calls.length, 63);
  }));

Deno.test("the scheduler variables default as the spec says and, overridden, govern the tick (SOP-022)", async () => {
  const env = {
    ADMIN_SECRET: SECRET,
    TOKEN_KEY: btoa(String.fromCharCode(...KEY)),
  };
  const defaults = loadSchedulerConfig(env);
  deepEqual(
    [
      defaults.maxAttempts,
      defaults.maxLatenessMs,
      defaults.leaseMs,
      defaults.maxRetryAfterMs,
    ],
    [5, 900_000, 60_000, 300_000],
  );
  const set = loadSchedulerConfig({
    ...env,
    MAX_ATTEMPTS: "2",
    MAX_LATENESS_MS: "120000",
    LEASE_MS: "30000",
    MAX_RETRY_AFTER_MS: "10000",
  });
  deepEqual(
    [set.maxAttempts, set.maxLatenessMs, set.leaseMs, set.maxRetryAfterMs],
    [2, 120_000, 30_000, 10_000],
  );
  throws(() => loadSchedulerConfig({ ...env, MAX_ATTEMPTS: "0" }));

  // MAX_ATTEMPTS 2: the second failed send is the last.
  await withPlugin(async (p) => {
    equal(await p.activate({ code: await code(p) }), 204);
    await p.scheduler.db.insertInto("schedules")
      .values(dueAtStart(crypto.randomUUID())).execute();
    equal((await p.scheduler.tick()).retrying, 1);
    // MAX_RETRY_AFTER_MS 10000: a Retry-After of 10 s is honoured exactly.
    const row = await p.scheduler.db.selectFrom("schedules").selectAll()
      .executeTakeFirstOrThrow();
    equal(row.next_attempt_at!.getTime() - p.clock.now, 10_000);
    p.clock.now = row.next_attempt_at!.getTime();
    equal((await p.scheduler.tick()).refused, 1);
    const done = await p.scheduler.db.selectFrom("schedules").selectAll()
      .executeTakeFirstOrThrow();
    equal(done.last_code, "retry_exhausted");
    equal(done.attempts, 2);
    p.clock.now += 60 * 60_000;
    equal((await p.scheduler.tick()).claimed, 0);
    equal(p.calls.length, 2);
  }, {
    limits: {
      maxAttempts: set.maxAttempts,
      maxLatenessMs: set.maxLatenessMs,
      leaseMs: set.leaseMs,
      maxRetryAfterMs: set.maxRetryAfterMs,
    },
    answer: () =>
      Response.json({
        outcome: { code: "rate_limited", message: "slow", retry: true },
      }, { status: 429, headers: { "retry-after": "10" } }),
  });

  // LEASE_MS 30000 and MAX_LATENESS_MS 120000: a running schedule is reclaimed after 30 s, and
  // one found more than 2 minutes late is refused unsent.
  await withPlugin(async (p) => {
    equal(await p.activate({ code: await code(p) }), 204);
    const running = crypto.randomUUID();
    await p.scheduler.db.insertInto("schedules").values([
      dueAtStart(running, { status: "running", attempts: 1 }),
      dueAtStart(crypto.randomUUID(), {
        due_at: new Date(START - 120_001),
        next_attempt_at: new Date(START - 120_001),
      }),
      // A second inside MAX_LATENESS_MS it is still sent (the send needs time left to answer).
      dueAtStart(crypto.randomUUID(), {
        due_at: new Date(START - 119_000),
        next_attempt_at: new Date(START - 119_000),
      }),
    ]).execute();
    await p.scheduler.kv.set(["scheduling", "lease", running], {
      owner: "gone",
      expiresAt: START + 30_000,
    });
    const first = await p.scheduler.tick();
    deepEqual([first.claimed, first.refused, first.completed], [2, 1, 1]);
    equal(p.calls.length, 1);
    p.clock.now = START + 30_000 - 1;
    equal((await p.scheduler.tick()).claimed, 0);
    p.clock.now = START + 30_000;
    equal((await p.scheduler.tick()).completed, 1);
    equal(p.calls.length, 2);
  }, {
    limits: {
      maxAttempts: set.maxAttempts,
      maxLatenessMs: set.maxLatenessMs,
      leaseMs: set.leaseMs,
      maxRetryAfterMs: set.maxRetryAfterMs,
    },
  });
});

Deno.test("an operation's due_at is an instant on a whole UTC minute, read the same whatever the process's time zone (SOP-011, SOP-017)", async () => {
  const script = `
    import { dueInstant } from "./plugins/scheduling/operations.ts";
    const now = new Date("2026-11-23T10:00:00Z");
    const out = ["2026-11-24T08:00", "2026-11-24T08:00:00Z", "2026-11-24T09:00:00+01:00",
      "2026-11-24T08:00:30Z", "2026-11-24T08:00:00.001Z", "2026-11-23T10:00:00Z"].map((v) => {
      const r = dueInstant(v, "UTC", now);
      return r.ok ? r.dueAt.toISOString() : r.refusal.code;
    });
    console.log(JSON.stringify(out));`;
  // A plugin host in another zone must not move a UTC instant.
  for (const tz of ["UTC", "America/New_York", "Asia/Kolkata"]) {
    const run = await new Deno.Command(Deno.execPath(), {
      args: ["eval", "--no-check", script],
      cwd: new URL("../..", import.meta.url),
      env: { TZ: tz, NO_COLOR: "1" },
      stdout: "piped",
      stderr: "piped",
    }).output();
    equal(run.code, 0, new TextDecoder().decode(run.stderr));
    deepEqual(JSON.parse(new TextDecoder().decode(run.stdout)), [
      "2026-11-24T08:00:00.000Z",
      "2026-11-24T08:00:00.000Z",
      "2026-11-24T08:00:00.000Z",
      "invalid_instant",
      "invalid_instant",
      "past_time",
    ], tz);
  }
});

Deno.test("a hand-off refused for its service address does not spend the code: the corrected hand-off activates with it (SOP-005)", () =>
  withPlugin(async (p) => {
    const first = await code(p);
    equal(
      await p.activate({ code: first, service_url: "http://elsewhere.test" }),
      400,
    );
    equal(await p.activate({ code: first }), 204);
    // Spent now: once only.
    equal(
      await p.activate({ code: first, installation_id: "inst-9" }),
      403,
    );
  }));
