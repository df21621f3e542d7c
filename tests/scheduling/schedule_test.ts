// The scheduling plugin end to end: an editor's launch opens the plugin's page, a publish is
// scheduled in a time zone, the clock moves, the tick publishes the pinned version through
// Stave; stale pins, cancel, supersede, a transient 503 and uninstall (SCH rows, SUI rows).
import { equal, match, ok } from "node:assert/strict";
import { runTick } from "../../plugins/scheduling/core/tick.ts";
import { readToken } from "../../plugins/scheduling/core/installations.ts";
import { TokenBox } from "../../plugins/scheduling/core/token_box.ts";
import {
  type SchedulingWorld,
  SITE_HOST,
  withSchedulingWorld,
} from "./world.ts";

// The world's clock starts at 2026-11-23T10:00Z; 12:00 in Berlin is 11:00Z.
const BERLIN_NOON = {
  local: "2026-11-23T12:00",
  timezone: "Europe/Berlin",
  fold: "later",
};

Deno.test("a scheduled publish is sent once at its time, pinned and keyed, and publishes every language (SCH-001, SCH-017, SCH-028, SCH-030)", () =>
  withSchedulingWorld(async (w) => {
    const { groupId, instances } = await w.entry({
      en: { title: "Spring sale" },
      de: { title: "Frühlingsverkauf" },
    });
    const browser = await w.launch(instances.en);
    ok(browser.cookie.startsWith("__Host-scheduling="), browser.cookie);
    const page = await (await browser.get(`/installations/${w.installationId}`))
      .text();
    match(page, /Spring sale/);
    match(page, /All languages/);

    const made = await browser.post(
      `/installations/${w.installationId}/schedules`,
      {
        kind: "publish",
        locale: "",
        ...BERLIN_NOON,
      },
    );
    equal(made.status, 303);
    const location = made.headers.get("location")!;
    const confirmation = await (await browser.get(location)).text();
    // SCH-030: the confirmation shows the local time with its zone and the UTC instant.
    match(confirmation, /2026-11-23 12:00 Europe\/Berlin/);
    match(confirmation, /2026-11-23 11:00 UTC/);

    // Not due yet: nothing is sent.
    equal((await w.scheduler.tick()).claimed, 0);
    equal(w.wire.transitions.length, 0);

    // SCH-001: sent by the first tick at its time.
    w.clock.advance(60 * 60_000);
    const report = await w.scheduler.tick();
    equal(report.completed, 1);
    equal(w.wire.transitions.length, 1);
    const sent = w.wire.transitions[0];
    const row = await w.scheduler.db.selectFrom("schedules").selectAll()
      .executeTakeFirstOrThrow();
    // SCH-028: the key is sched:<installation>:<schedule>:r<revision>.
    equal(sent.key, `sched:${w.installationId}:${row.id}:r1`);
    equal(
      sent.path,
      `/api/plugin/v1/content/${instances.en}/transitions/published`,
    );
    const body = sent.body as Record<string, unknown>;
    equal(body.kind, "publish");
    equal(body.expected_workflow_revision, row.expected_workflow_revision);
    ok(typeof body.expected_current_version_id === "string");
    // SCH-017: transition_applied → completed.
    equal(row.status, "completed");
    equal(row.last_code, "transition_applied");
    const states = await w.states(groupId);
    equal(states.en, "published");
    equal(states.de, "published");

    // A later tick sends nothing more.
    equal((await w.scheduler.tick()).claimed, 0);
    equal(w.wire.transitions.length, 1);
  }));

Deno.test("a schedule refuses past and impossible times by name and writes nothing (SCH-032, SCH-026)", () =>
  withSchedulingWorld(async (w) => {
    const { instances } = await w.entry({ en: { title: "Later" } });
    const browser = await w.launch(instances.en);
    const path = `/installations/${w.installationId}/schedules`;
    const past = await browser.post(path, {
      kind: "publish",
      locale: "",
      local: "2026-11-23T10:00",
      timezone: "Europe/Berlin",
      fold: "later",
    });
    equal(past.status, 422);
    match(await past.text(), /past_time/);
    const zone = await browser.post(path, {
      kind: "publish",
      locale: "",
      local: "2026-12-01T10:00",
      timezone: "Mars/Olympus",
      fold: "later",
    });
    equal(zone.status, 422);
    match(await zone.text(), /unknown_timezone/);
    const bad = await browser.post(path, {
      kind: "publish",
      locale: "",
      local: "2026-02-30T10:00",
      timezone: "UTC",
      fold: "later",
    });
    equal(bad.status, 422);
    match(await bad.text(), /invalid_instant/);
    const lang = await browser.post(path, {
      kind: "publish",
      locale: "fr",
      local: "2026-12-01T10:00",
      timezone: "UTC",
      fold: "later",
    });
    // SCH-026: a language the entry does not have.
    equal(lang.status, 422);
    match(await lang.text(), /locale_unavailable/);
    const forged = await browser.post(path, {
      _csrf: "forged",
      kind: "publish",
      locale: "",
      ...BERLIN_NOON,
    });
    equal(forged.status, 403);
    await forged.body?.cancel();
    const count = await w.scheduler.db.selectFrom("schedules")
      .select((e) => e.fn.countAll().as("n")).executeTakeFirstOrThrow();
    equal(Number(count.n), 0);
  }));

Deno.test("a new schedule supersedes the live one; cancel stops it without calling Stave; a stale pin is refused (SCH-009, SCH-012, SCH-018)", () =>
  withSchedulingWorld(async (w) => {
    const { instances } = await w.entry({ en: { title: "Pinned" } });
    const browser = await w.launch(instances.en);
    const path = `/installations/${w.installationId}/schedules`;
    await browser.post(path, { kind: "publish", locale: "", ...BERLIN_NOON });
    const second = await browser.post(path, {
      kind: "publish",
      locale: "",
      ...BERLIN_NOON,
      local: "2026-11-23T12:30",
    });
    equal(second.status, 303);
    const rows = await w.scheduler.db.selectFrom("schedules")
      .select(["id", "status", "revision"]).orderBy("revision").execute();
    // SCH-009: the first publish schedule is superseded by the second.
    equal(rows.length, 2);
    equal(rows[0].status, "superseded");
    equal(rows[1].status, "pending");
    equal(rows[1].revision, 2);

    // Cancel the live one: nothing is sent at its time.
    const cancelled = await browser.post(
      `/installations/${w.installationId}/schedules/${rows[1].id}/cancel`,
      {},
    );
    equal(cancelled.status, 303);
    // SCH-012: cancelled, and no call reaches the service at its time.
    equal(
      (await w.scheduler.db.selectFrom("schedules").select("status")
        .where("id", "=", rows[1].id).executeTakeFirstOrThrow()).status,
      "cancelled",
    );
    w.clock.advance(2 * 60 * 60_000);
    equal((await w.scheduler.tick()).claimed, 0);
    equal(w.wire.transitions.length, 0);
    const again = await browser.post(
      `/installations/${w.installationId}/schedules/${rows[1].id}/cancel`,
      {},
    );
    equal(again.status, 409);
    match(await again.text(), /schedule_finished/);

    // A schedule whose pinned version is replaced before it runs is refused by Stave.
    await browser.post(path, {
      kind: "publish",
      locale: "",
      local: "2026-11-23T14:00",
      timezone: "UTC",
      fold: "later",
    });
    const group = await w.services.db.selectFrom("entries")
      .select(["group_id", "current_version_id"]).where("id", "=", instances.en)
      .executeTakeFirstOrThrow();
    const { saveEntry, modelValidator } = await import(
      "../../core/entries/mod.ts"
    );
    const { personActor } = await import("../../core/access/actor.ts");
    const resaved = await saveEntry({
      db: w.services.db,
      clock: w.clock,
      siteId: w.siteId,
      actor: personActor(w.adminId),
      validate: modelValidator(),
    }, {
      group_id: group.group_id,
      model_id: w.modelId,
      locale: "en",
      slug: `en-${crypto.randomUUID().slice(0, 8)}`,
      fields: { title: "Pinned, edited" },
      expected_current_version_id: group.current_version_id,
    });
    ok(resaved.ok);
    w.clock.advance(2 * 60 * 60_000);
    // SCH-018: a terminal refusal → refused with the code in last_code.
    const report = await w.scheduler.tick();
    equal(report.refused, 1);
    const last = await w.scheduler.db.selectFrom("schedules").selectAll()
      .where("status", "=", "refused").executeTakeFirstOrThrow();
    ok(
      ["scheduled_target_stale", "workflow_conflict"].includes(last.last_code!),
      last.last_code!,
    );
    equal((await w.states(group.group_id)).en, "draft");
  }));

Deno.test("a transient 503 is retried under the same key; two ticks at once send a schedule once (SCH-019, SCH-028)", () =>
  withSchedulingWorld(async (w) => {
    const { groupId, instances } = await w.entry({ en: { title: "Flaky" } });
    const browser = await w.launch(instances.en);
    await browser.post(`/installations/${w.installationId}/schedules`, {
      kind: "publish",
      locale: "",
      ...BERLIN_NOON,
    });
    w.clock.advance(60 * 60_000);
    w.wire.intercept = (url) =>
      url.includes("/transitions/")
        ? Response.json({
          outcome: {
            code: "temporary_failure",
            message: "down",
            retry: true,
          },
        }, { status: 503 })
        : undefined;
    const first = await w.scheduler.tick();
    equal(first.retrying, 1);
    const retrying = await w.scheduler.db.selectFrom("schedules").selectAll()
      .executeTakeFirstOrThrow();
    // SCH-019: a retryable answer → retrying with a next attempt time.
    equal(retrying.status, "retrying");
    ok(retrying.next_attempt_at!.getTime() > w.clock.now().getTime());
    w.wire.intercept = undefined;

    // Not yet time for the next attempt.
    equal((await w.scheduler.tick()).claimed, 0);
    w.clock.advance(5 * 60_000);
    // Two processes tick at once on one database and KV: one of them sends.
    const [a, b] = await Promise.all([
      w.scheduler.tick(),
      runTick({
        db: w.scheduler.db,
        kv: w.scheduler.kv,
        box: new TokenBox(w.tokenKey),
        now: () => w.clock.now().getTime(),
        limits: {
          maxAttempts: 5,
          maxLatenessMs: 900_000,
          leaseMs: 60_000,
          maxRetryAfterMs: 300_000,
        },
        owner: "other-process",
        // The other process reaches the same Stave, under the same development policy (its
        // plain-http address is a listed development origin); which of the two claims it is a race.
        servicePolicy: {
          development: true,
          devOrigins: [`http://${SITE_HOST}`],
        },
        fetch: w.serviceFetch,
      }),
    ]);
    equal(a.claimed + b.claimed, 1);
    const keys = w.wire.transitions.map((t) => t.key);
    equal(keys.length, 2, "the 503 and one retry");
    // SCH-028: the key is identical on every retry.
    equal(new Set(keys).size, 1, "every retry carries the same key");
    const done = await w.scheduler.db.selectFrom("schedules").selectAll()
      .executeTakeFirstOrThrow();
    equal(done.status, "completed");
    equal(done.attempts, 2);
    equal((await w.states(groupId)).en, "published");
  }));

Deno.test("after uninstall a due schedule is refused plugin_unauthorized and not retried (PAPI-041)", () =>
  withSchedulingWorld(async (w) => {
    const { instances } = await w.entry({ en: { title: "Orphan" } });
    const browser = await w.launch(instances.en);
    await browser.post(`/installations/${w.installationId}/schedules`, {
      kind: "publish",
      locale: "",
      ...BERLIN_NOON,
    });
    const gone = await w.admin(
      "POST",
      `/api/plugins/${w.installationId}/uninstall`,
      {},
    );
    equal(gone.status, 200);
    w.clock.advance(60 * 60_000);
    const report = await w.scheduler.tick();
    equal(report.refused, 1);
    const row = await w.scheduler.db.selectFrom("schedules").selectAll()
      .executeTakeFirstOrThrow();
    // SCH-022: the revoked installation's pending schedule → refused plugin_unauthorized.
    equal(row.status, "refused");
    equal(row.last_code, "plugin_unauthorized");
    w.clock.advance(10 * 60_000);
    equal((await w.scheduler.tick()).claimed, 0);
  }));

Deno.test("a schedule found more than MAX_LATENESS_MS past its time is refused retry_exhausted without a send (SCH-020)", () =>
  withSchedulingWorld(async (w) => {
    const { groupId, instances } = await w.entry({ en: { title: "Late" } });
    const browser = await w.launch(instances.en);
    await browser.post(`/installations/${w.installationId}/schedules`, {
      kind: "publish",
      locale: "",
      ...BERLIN_NOON,
    });
    // The plugin was down: its first tick after 11:00Z comes at 11:16, past the 15-minute cap.
    w.clock.advance(76 * 60_000);
    const report = await w.scheduler.tick();
    equal(report.refused, 1);
    equal(w.wire.transitions.length, 0);
    const row = await w.scheduler.db.selectFrom("schedules").selectAll()
      .executeTakeFirstOrThrow();
    equal(row.last_code, "retry_exhausted");
    equal((await w.states(groupId)).en, "draft");
  }));

Deno.test("a schedule found exactly MAX_LATENESS_MS past its time still runs: only later is refused (SCH-020 edge)", () =>
  withSchedulingWorld(async (w) => {
    const { groupId, instances } = await w.entry({
      en: { title: "On the edge" },
    });
    const browser = await w.launch(instances.en);
    await browser.post(`/installations/${w.installationId}/schedules`, {
      kind: "publish",
      locale: "",
      ...BERLIN_NOON,
    });
    // 11:15:00Z: due at 11:00Z, exactly the 15-minute cap.
    w.clock.advance(75 * 60_000);
    const report = await w.scheduler.tick();
    equal(report.refused, 0);
    equal(w.wire.transitions.length, 1);
    equal((await w.states(groupId)).en, "published");
  }));

async function scheduledAtNoon(w: SchedulingWorld) {
  const entry = await w.entry({ en: { title: "Faults" } });
  const browser = await w.launch(entry.instances.en);
  const made = await browser.post(
    `/installations/${w.installationId}/schedules`,
    { kind: "publish", locale: "", ...BERLIN_NOON },
  );
  equal(made.status, 303);
  w.clock.advance(60 * 60_000);
  return entry;
}

async function onlySchedule(w: SchedulingWorld) {
  return await w.scheduler.db.selectFrom("schedules").selectAll()
    .executeTakeFirstOrThrow();
}

Deno.test("a requester who lost their authority makes the schedule refuse requester_unauthorized, nothing published", () =>
  withSchedulingWorld(async (w) => {
    const { groupId } = await scheduledAtNoon(w);
    await w.services.db.updateTable("users").set({ status: "deactivated" })
      .where("id", "=", w.adminId).execute();
    equal((await w.scheduler.tick()).refused, 1);
    equal((await onlySchedule(w)).last_code, "requester_unauthorized");
    equal((await w.states(groupId)).en, "draft");
  }));

Deno.test("a token sealed under another TOKEN_KEY refuses token_unreadable without a send (SCH-033, SOP-007)", () =>
  withSchedulingWorld(async (w) => {
    await scheduledAtNoon(w);
    const other = new TokenBox(crypto.getRandomValues(new Uint8Array(32)));
    await w.scheduler.db.updateTable("installations")
      .set({ token_sealed: await other.seal(`svp_${"x".repeat(43)}`) })
      .execute();
    equal((await w.scheduler.tick()).refused, 1);
    equal((await onlySchedule(w)).last_code, "token_unreadable");
    equal(w.wire.transitions.length, 0);
  }));

Deno.test("rate_limited with Retry-After waits exactly that long, then the same key succeeds (SCH-021)", () =>
  withSchedulingWorld(async (w) => {
    const { groupId } = await scheduledAtNoon(w);
    w.wire.intercept = (url) =>
      url.includes("/transitions/")
        ? Response.json({
          outcome: { code: "rate_limited", message: "slow down", retry: true },
        }, { status: 429, headers: { "retry-after": "90" } })
        : undefined;
    equal((await w.scheduler.tick()).retrying, 1);
    const waiting = await onlySchedule(w);
    equal(waiting.last_code, "rate_limited");
    equal(
      waiting.next_attempt_at!.getTime() - w.clock.now().getTime(),
      90_000,
    );
    w.wire.intercept = undefined;
    w.clock.advance(89_000);
    equal((await w.scheduler.tick()).claimed, 0);
    w.clock.advance(1_000);
    equal((await w.scheduler.tick()).completed, 1);
    equal(new Set(w.wire.transitions.map((t) => t.key)).size, 1);
    equal((await w.states(groupId)).en, "published");
  }));

Deno.test("a schedule left running by a process that died is reclaimed after its lease and sent once under the same key (SCH-016, SCH-017)", () =>
  withSchedulingWorld(async (w) => {
    const { groupId } = await scheduledAtNoon(w);
    const row = await onlySchedule(w);
    // Another process claimed it (lease and row), sent the command, and died before recording.
    await w.scheduler.kv.set(["scheduling", "lease", row.id], {
      owner: "dead-process",
      expiresAt: w.clock.now().getTime() + 60_000,
    });
    await w.scheduler.db.updateTable("schedules")
      .set({ status: "running", attempts: 1 }).where("id", "=", row.id)
      .execute();
    const key = `sched:${w.installationId}:${row.id}:r${row.revision}`;
    const first = await w.app.request(
      `http://schedules.test/api/plugin/v1/content/${row.instance_id}/transitions/published`,
      {
        method: "POST",
        headers: {
          host: "schedules.test",
          authorization: `Bearer ${await readToken(
            w.scheduler.db,
            new TokenBox(w.tokenKey),
            w.installationId,
          )}`,
          "content-type": "application/json",
          "idempotency-key": key,
        },
        body: JSON.stringify({
          kind: "publish",
          expected_current_version_id: row.pinned_version_id,
          expected_workflow_revision: row.expected_workflow_revision,
          delegation_id: row.delegation_id,
        }),
      },
    );
    equal(first.status, 200, await first.text());
    // While its lease holds, nobody else sends.
    equal((await w.scheduler.tick()).claimed, 0);
    w.clock.advance(60_001);
    const report = await w.scheduler.tick();
    equal(report.completed, 1);
    const done = await onlySchedule(w);
    // SCH-017: idempotent_replay → completed too.
    equal(done.status, "completed");
    equal(done.last_code, "idempotent_replay");
    equal(done.attempts, 1, "a reclaimed send is the same attempt");
    equal(w.wire.transitions.map((t) => t.key).join(), key);
    equal((await w.states(groupId)).en, "published");
  }));
