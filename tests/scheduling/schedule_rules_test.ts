// The scheduling plugin's schedule rules one by one (spec 1 parts 2.10, 3.2, 4.5 and 8): what a
// schedule row keeps, how revisions count, which changes conflict, what each status refuses, the
// pins a command carries, the per-tick claim limit and the retry caps (SCH rows).
import { deepEqual, equal, match, notEqual, ok } from "node:assert/strict";
import {
  type PluginBrowser,
  type SchedulingWorld,
  withSchedulingWorld,
} from "./world.ts";

// The world's clock starts at 2026-11-23T10:00Z.
const UTC_NOON = {
  local: "2026-11-23T12:00",
  timezone: "UTC",
  fold: "later",
};

function schedulesPath(w: SchedulingWorld) {
  return `/installations/${w.installationId}/schedules`;
}

async function rows(w: SchedulingWorld) {
  return await w.scheduler.db.selectFrom("schedules").selectAll()
    .orderBy("created_at").orderBy("revision").execute();
}

async function create(
  w: SchedulingWorld,
  browser: PluginBrowser,
  fields: Record<string, string>,
): Promise<Response> {
  const res = await browser.post(schedulesPath(w), {
    kind: "publish",
    locale: "",
    ...UTC_NOON,
    ...fields,
  });
  return res;
}

/** Saves a new draft of one language as the administrator. */
async function edit(
  w: SchedulingWorld,
  groupId: string,
  locale: string,
  title: string,
) {
  const { saveEntry, modelValidator } = await import(
    "../../core/entries/mod.ts"
  );
  const { personActor } = await import("../../core/access/actor.ts");
  const instance = await w.services.db.selectFrom("entries")
    .select(["current_version_id", "slug"]).where("group_id", "=", groupId)
    .where("locale", "=", locale).executeTakeFirstOrThrow();
  const saved = await saveEntry({
    db: w.services.db,
    clock: w.clock,
    siteId: w.siteId,
    actor: personActor(w.adminId),
    validate: modelValidator(),
  }, {
    group_id: groupId,
    model_id: w.modelId,
    locale,
    slug: instance.slug,
    fields: { title },
    expected_current_version_id: instance.current_version_id,
  });
  ok(saved.ok, JSON.stringify(saved));
}

Deno.test("a schedule row keeps every field, due_at on a whole UTC minute beside the local time (SCH-002, SCH-004)", () =>
  withSchedulingWorld(async (w) => {
    const { groupId, instances } = await w.entry({ en: { title: "Fields" } });
    const browser = await w.launch(instances.en);
    const made = await create(w, browser, {
      local: "2026-11-23T13:30",
      timezone: "Europe/Paris",
    });
    equal(made.status, 303);
    const [row] = await rows(w);
    const group = await w.services.db.selectFrom("entry_groups")
      .select(["current_version_id", "revision"]).where("id", "=", groupId)
      .executeTakeFirstOrThrow();
    const delegation = await w.services.db.selectFrom("plugin_delegations")
      .select("id").where("installation_id", "=", w.installationId)
      .executeTakeFirstOrThrow();
    // SCH-002: installation, content instance, kind, target state, pins, locale, local time,
    // zone, due_at, status, attempts, last code and message, next attempt, revision,
    // delegation and requester email.
    equal(row.installation_id, w.installationId);
    equal(row.instance_id, instances.en);
    equal(row.group_id, groupId);
    equal(row.kind, "publish");
    equal(row.target_state, "published");
    equal(row.pinned_version_id, group.current_version_id);
    equal(row.expected_workflow_revision, group.revision);
    equal(row.locale, "");
    equal(row.status, "pending");
    equal(row.attempts, 0);
    equal(row.last_code, null);
    equal(row.last_message, null);
    equal(row.revision, 1);
    equal(row.delegation_id, delegation.id);
    equal(row.requester_email, "admin@schedules.test");
    // SCH-004: 13:30 in Paris is 12:30Z, on the minute; the local reading is kept as typed.
    equal(row.local_datetime, "2026-11-23T13:30");
    equal(row.timezone, "Europe/Paris");
    equal(row.due_at.toISOString(), "2026-11-23T12:30:00.000Z");
    equal(row.next_attempt_at!.toISOString(), "2026-11-23T12:30:00.000Z");
  }));

Deno.test("a schedule launched from a translation names the group's primary instance; the whole group publishes (SCH-003)", () =>
  withSchedulingWorld(async (w) => {
    const { groupId, instances } = await w.entry({
      en: { title: "Primary" },
      de: { title: "Übersetzung" },
    });
    const browser = await w.launch(instances.de);
    equal((await create(w, browser, {})).status, 303);
    const [row] = await rows(w);
    equal(row.instance_id, instances.en);
    equal(row.locale, "");
    // A one-language schedule names the primary instance too; its locale picks the language.
    equal((await create(w, browser, { locale: "de" })).status, 303);
    const de = (await rows(w)).find((r) => r.locale === "de")!;
    equal(de.instance_id, instances.en);

    w.clock.advance(2 * 60 * 60_000);
    equal((await w.scheduler.tick()).completed, 1);
    equal(
      w.wire.transitions[0].path,
      `/api/plugin/v1/content/${instances.en}/transitions/published`,
    );
    deepEqual(await w.states(groupId), { en: "draft", de: "published" });
  }));

Deno.test("conflicts, revisions and what each status allows: one live row per change, languages coexist, reschedule, running and finished rows refuse (SCH-005, SCH-007, SCH-010, SCH-011, SCH-013, SCH-014, SCH-023, SCH-024)", () =>
  withSchedulingWorld(async (w) => {
    const { instances } = await w.entry({
      en: { title: "Both" },
      de: { title: "Beide" },
    });
    const browser = await w.launch(instances.en);
    const statusOf = async (id: string) =>
      (await rows(w)).find((r) => r.id === id)!.status;

    // SCH-023: two creates of the same change at once leave one live row.
    const both = await Promise.all([
      create(w, browser, {}),
      create(w, browser, {}),
    ]);
    deepEqual(both.map((r) => r.status), [303, 303]);
    let all = await rows(w);
    deepEqual(all.map((r) => r.status).sort(), ["pending", "superseded"]);

    // SCH-024: a one-language schedule replaces the whole-group one; de and en coexist.
    equal((await create(w, browser, { locale: "de" })).status, 303);
    equal((await create(w, browser, { locale: "en" })).status, 303);
    all = await rows(w);
    const de = all.find((r) => r.locale === "de")!;
    const en = all.find((r) => r.locale === "en")!;
    equal(de.status, "pending");
    equal(en.status, "pending");
    equal(
      all.filter((r) => r.locale === "" && r.status === "pending").length,
      0,
    );
    // SCH-005: the revision counts per item and kind across languages.
    deepEqual([de.revision, en.revision], [3, 4]);
    // SCH-024: a whole-group schedule supersedes both languages' schedules.
    equal((await create(w, browser, {})).status, 303);
    all = await rows(w);
    const group = all.find((r) => r.revision === 5)!;
    equal(group.locale, "");
    equal(await statusOf(de.id), "superseded");
    equal(await statusOf(en.id), "superseded");

    // SCH-011: a reschedule is a new pending row with the next revision, the old one superseded;
    // SCH-005: moving it twice counts on (5 → 7).
    const move = (id: string, local: string) =>
      browser.post(`${schedulesPath(w)}/${id}/reschedule`, {
        ...UTC_NOON,
        local,
      });
    const moved = await move(group.id, "2026-11-23T12:10");
    equal(moved.status, 303);
    all = await rows(w);
    const next = all.find((r) => r.revision === 6)!;
    notEqual(next.id, group.id);
    equal(next.status, "pending");
    equal(next.local_datetime, "2026-11-23T12:10");
    equal(next.pinned_version_id, group.pinned_version_id);
    equal(await statusOf(group.id), "superseded");
    equal((await move(next.id, "2026-11-23T12:20")).status, 303);
    const live = (await rows(w)).find((r) => r.revision === 7)!;
    equal(live.status, "pending");
    equal(await statusOf(next.id), "superseded");

    // SCH-010, SCH-013: while a schedule runs, a conflicting create and a cancel are refused
    // execution_in_progress and nothing changes.
    await w.scheduler.db.updateTable("schedules").set({ status: "running" })
      .where("id", "=", live.id).execute();
    const before = await rows(w);
    const blocked = await create(w, browser, { locale: "de" });
    equal(blocked.status, 409);
    match(await blocked.text(), /execution_in_progress/);
    const stop = await browser.post(
      `${schedulesPath(w)}/${live.id}/cancel`,
      {},
    );
    equal(stop.status, 409);
    match(await stop.text(), /execution_in_progress/);
    deepEqual(await rows(w), before);
    equal(await statusOf(live.id), "running");
    await w.scheduler.db.updateTable("schedules").set({ status: "pending" })
      .where("id", "=", live.id).execute();

    // SCH-007: pending → running → completed at its time.
    w.clock.advance(2 * 60 * 60_000 + 20 * 60_000);
    equal((await w.scheduler.tick()).completed, 1);
    equal(await statusOf(live.id), "completed");

    // SCH-014: a completed or superseded schedule cannot be cancelled and stays as it is.
    for (
      const [id, status] of [[live.id, "completed"], [group.id, "superseded"]]
    ) {
      const res = await browser.post(`${schedulesPath(w)}/${id}/cancel`, {});
      equal(res.status, 409);
      match(await res.text(), /schedule_finished/);
      equal(await statusOf(id), status);
    }

    // SCH-007, SCH-012: a pending unpublish cancelled is `cancelled`; nothing is sent at its time.
    const off = await create(w, browser, {
      kind: "unpublish",
      local: "2026-11-23T13:00",
    });
    equal(off.status, 303);
    const unpublish = (await rows(w)).find((r) => r.kind === "unpublish")!;
    equal(unpublish.status, "pending");
    const sent = w.wire.transitions.length;
    equal(
      (await browser.post(`${schedulesPath(w)}/${unpublish.id}/cancel`, {}))
        .status,
      303,
    );
    equal(await statusOf(unpublish.id), "cancelled");
    w.clock.advance(60 * 60_000);
    equal((await w.scheduler.tick()).claimed, 0);
    equal(w.wire.transitions.length, sent);
  }));

Deno.test("each command carries its pins: publish the group's draft, unpublish the live version (one language's own), the group's workflow revision, and locale for one language (SCH-025, SCH-027)", () =>
  withSchedulingWorld(async (w) => {
    const { groupId, instances } = await w.entry({
      en: { title: "Pins" },
      de: { title: "Stifte" },
    });
    const single = await w.entry({ en: { title: "Alone" } });
    const browser = await w.launch(instances.en);
    // SCH-025: with workflow:locale and two languages the form offers all or one language.
    const form = await (await browser.get(`/installations/${w.installationId}`))
      .text();
    match(form, /<select id="locale" name="locale">/);
    match(form, /All languages/);
    match(form, /Only de/);
    match(form, /Only en/);
    const alone = await w.launch(single.instances.en);
    const aloneForm =
      await (await alone.get(`/installations/${w.installationId}`))
        .text();
    equal(aloneForm.includes('name="locale"'), false);

    const facts = async () => {
      const group = await w.services.db.selectFrom("entry_groups")
        .select(["current_version_id", "revision"]).where("id", "=", groupId)
        .executeTakeFirstOrThrow();
      const languages = await w.services.db.selectFrom("entries")
        .select(["locale", "published_version_id"])
        .where("group_id", "=", groupId).execute();
      return {
        ...group,
        published: Object.fromEntries(
          languages.map((l) => [l.locale, l.published_version_id]),
        ),
      };
    };
    // Schedules `fields` a minute ahead, runs it, and answers the command sent.
    const runOne = async (fields: Record<string, string>) => {
      const at = new Date(w.clock.now().getTime() + 60_000);
      const made = await create(w, browser, {
        ...fields,
        local: at.toISOString().slice(0, 16),
      });
      equal(made.status, 303, await made.text());
      w.clock.set(at);
      equal((await w.scheduler.tick()).completed, 1);
      return w.wire.transitions.at(-1)!.body as Record<string, unknown>;
    };

    // A whole-group publish pins the group's current version and revision; no locale.
    let before = await facts();
    const publish = await runOne({});
    equal(publish.expected_current_version_id, before.current_version_id);
    equal(publish.expected_workflow_revision, before.revision);
    equal("locale" in publish, false);
    equal("expected_published_version_id" in publish, false);
    deepEqual(await w.states(groupId), { en: "published", de: "published" });

    // A one-language publish pins the group's current version too, and sends its locale.
    await edit(w, groupId, "de", "Stifte, neu");
    before = await facts();
    const dePublish = await runOne({ locale: "de" });
    equal(dePublish.locale, "de");
    equal(dePublish.expected_current_version_id, before.current_version_id);
    equal(dePublish.expected_workflow_revision, before.revision);

    // A one-language unpublish pins that language's own live version, not the group's.
    before = await facts();
    notEqual(before.published.en, before.published.de);
    const enOff = await runOne({ kind: "unpublish", locale: "en" });
    equal(enOff.locale, "en");
    equal(enOff.expected_published_version_id, before.published.en);
    equal(enOff.expected_workflow_revision, before.revision);
    equal("expected_current_version_id" in enOff, false);
    deepEqual(await w.states(groupId), { en: "draft", de: "published" });

    // A whole-group unpublish pins the group's live version.
    before = await facts();
    const off = await runOne({ kind: "unpublish" });
    equal(off.expected_published_version_id, before.published.de);
    equal(off.expected_workflow_revision, before.revision);
    deepEqual(await w.states(groupId), { en: "draft", de: "draft" });
  }));

Deno.test("a schedule is made only from a content launch and only for an offered change; a manage launch lists, previews, moves and cancels (SCH-008, SCH-029)", () =>
  withSchedulingWorld(async (w) => {
    const { instances } = await w.entry({ en: { title: "Agenda item" } });
    const browser = await w.launch(instances.en);
    // SCH-008: an unpublish is not offered for a draft: refused, nothing written.
    const unoffered = await create(w, browser, { kind: "unpublish" });
    equal(unoffered.status, 409);
    match(await unoffered.text(), /transition_unavailable/);
    equal((await rows(w)).length, 0);
    equal((await create(w, browser, {})).status, 303);
    const [made] = await rows(w);

    const manage = await w.manage("calendar");
    // SCH-029: the agenda lists the schedules of the delegation's models, with no create form.
    const agenda =
      await (await manage.get(`/installations/${w.installationId}`))
        .text();
    match(agenda, /Agenda item/);
    match(agenda, new RegExp(`/schedules/${made.id}`));
    equal(agenda.includes(`action="${schedulesPath(w)}"`), false);
    // SCH-029: it previews the entry through the delegation.
    const detail = await manage.get(`${schedulesPath(w)}/${made.id}`);
    equal(detail.status, 200);
    const html = await detail.text();
    match(
      html,
      /<h2 id="preview">Preview<\/h2>\s*<dl><dt>title<\/dt><dd>Agenda item<\/dd>/,
    );
    // The calendar has no form; the detail page's token is the session's.
    const csrf = /name="_csrf" value="([^"]+)"/.exec(html)![1];

    // SCH-008: a manage session cannot create, even with its CSRF token.
    const refused = await create(w, manage, {
      _csrf: csrf,
      local: "2026-11-23T15:00",
    });
    equal(refused.status, 403);
    match(await refused.text(), /Open an entry first/);
    equal((await rows(w)).length, 1);

    // SCH-029: it moves and cancels.
    const moved = await manage.post(
      `${schedulesPath(w)}/${made.id}/reschedule`,
      {
        _csrf: csrf,
        ...UTC_NOON,
        local: "2026-11-23T14:00",
      },
    );
    equal(moved.status, 303);
    const next = (await rows(w)).find((r) => r.status === "pending")!;
    equal(next.local_datetime, "2026-11-23T14:00");
    const cancelled = await manage.post(
      `${schedulesPath(w)}/${next.id}/cancel`,
      {
        _csrf: csrf,
      },
    );
    equal(cancelled.status, 303);
    deepEqual((await rows(w)).map((r) => r.status), [
      "superseded",
      "cancelled",
    ]);
  }));

Deno.test("retries: Retry-After honoured up to MAX_RETRY_AFTER_MS, else backoff; an attempt row each; refused retry_exhausted at MAX_ATTEMPTS and never sent again (SCH-006, SCH-007, SCH-020, SCH-021)", () =>
  withSchedulingWorld(async (w) => {
    const { groupId, instances } = await w.entry({ en: { title: "Down" } });
    const browser = await w.launch(instances.en);
    equal((await create(w, browser, {})).status, 303);
    w.clock.set(new Date("2026-11-23T12:00:00Z"));
    let answer = (): Response =>
      Response.json({
        outcome: { code: "rate_limited", message: "slow", retry: true },
      }, { status: 429, headers: { "retry-after": "301" } });
    w.wire.intercept = (url) =>
      url.includes("/transitions/") ? answer() : undefined;
    const attempts = async () =>
      await w.scheduler.db.selectFrom("schedule_attempts")
        .select(["attempt", "code", "http_status"]).orderBy("attempt")
        .execute();

    // SCH-021: 301 s is over MAX_RETRY_AFTER_MS: not honoured; the first backoff (15–30 s,
    // jitter 0.5) applies.
    equal((await w.scheduler.tick()).retrying, 1);
    let row = (await rows(w))[0];
    equal(row.status, "retrying");
    equal(row.next_attempt_at!.getTime() - w.clock.now().getTime(), 22_500);
    w.clock.set(row.next_attempt_at!);
    // 300 s is the last value honoured, exactly.
    answer = () =>
      Response.json({
        outcome: { code: "rate_limited", message: "slow", retry: true },
      }, { status: 429, headers: { "retry-after": "300" } });
    equal((await w.scheduler.tick()).retrying, 1);
    row = (await rows(w))[0];
    equal(row.next_attempt_at!.getTime() - w.clock.now().getTime(), 300_000);
    // SCH-006: one attempt row per send, numbered, with code and HTTP status.
    deepEqual(await attempts(), [
      { attempt: 1, code: "rate_limited", http_status: 429 },
      { attempt: 2, code: "rate_limited", http_status: 429 },
    ]);

    // SCH-020: the service keeps failing; the fifth send is the last.
    answer = () =>
      Response.json({
        outcome: { code: "temporary_failure", message: "down", retry: true },
      }, { status: 503 });
    for (const attempt of [3, 4]) {
      w.clock.set(row.next_attempt_at!);
      equal((await w.scheduler.tick()).retrying, 1, `attempt ${attempt}`);
      row = (await rows(w))[0];
      equal(row.attempts, attempt);
    }
    w.clock.set(row.next_attempt_at!);
    equal((await w.scheduler.tick()).refused, 1);
    row = (await rows(w))[0];
    equal(row.status, "refused");
    equal(row.last_code, "retry_exhausted");
    equal(row.attempts, 5);
    equal(row.next_attempt_at, null);
    equal(w.wire.transitions.length, 5);
    equal((await attempts()).length, 5);
    equal((await attempts())[4].code, "retry_exhausted");
    w.clock.advance(60 * 60_000);
    equal((await w.scheduler.tick()).claimed, 0);
    equal(w.wire.transitions.length, 5);
    equal((await w.states(groupId)).en, "draft");
  }));
