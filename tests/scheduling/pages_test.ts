// The scheduling plugin's browser routes over HTTP (spec 1 parts 4.4 and 5.9): the launch
// exchange and its cookie, the stylesheet, the content page and one schedule, the manage views
// (agenda by day, calendar counts, one day), the release list and items, and the CSRF token
// every form needs (SUI rows).
import { deepEqual, equal, match, ok } from "node:assert/strict";
import type { PluginBrowser, SchedulingWorld } from "./world.ts";
import { withSchedulingWorld } from "./world.ts";

async function launchUrl(
  w: SchedulingWorld,
  body: Record<string, unknown>,
): Promise<string> {
  const res = await w.admin(
    "POST",
    `/api/plugins/${w.installationId}/launch`,
    body,
  );
  equal(res.status, 201);
  return (await res.json()).data.url as string;
}

async function schedule(
  browser: PluginBrowser,
  w: SchedulingWorld,
  fields: Record<string, string>,
) {
  const made = await browser.post(
    `/installations/${w.installationId}/schedules`,
    { kind: "publish", locale: "", timezone: "UTC", fold: "later", ...fields },
  );
  equal(made.status, 303, await made.clone().text());
  await made.body?.cancel();
  return /schedules\/([0-9a-f-]{36})/.exec(made.headers.get("location")!)![1];
}

async function text(browser: PluginBrowser, path: string) {
  const res = await browser.get(path);
  return { status: res.status, html: await res.text() };
}

function countOf(w: SchedulingWorld, table: "schedules" | "releases") {
  return w.scheduler.db.selectFrom(table)
    .select((e) => e.fn.countAll().as("n")).executeTakeFirstOrThrow()
    .then((r) => Number(r.n));
}

Deno.test("a launch exchanges its code once, sets the plugin's __Host- Secure cookie and answers 303 to the page or the named view; the stylesheet is served (SUI-001, SUI-002, SUI-017, SUI-018)", () =>
  withSchedulingWorld(async (w) => {
    const { instances } = await w.entry({ en: { title: "Launched" } });
    const url = await launchUrl(w, {
      kind: "content_action",
      action: "schedule",
      instance_id: instances.en,
    });
    ok(new URL(url).searchParams.has("svc_launch"));
    const res = await fetch(url, { redirect: "manual" });
    await res.body?.cancel();
    equal(res.status, 303);
    const location = res.headers.get("location")!;
    equal(location, `/installations/${w.installationId}`);
    equal(location.includes("svc_launch"), false);
    equal(res.headers.get("referrer-policy"), "no-referrer");
    // SUI-018: the plugin's own session cookie, bound to its host and HTTPS (or localhost).
    const cookie = res.headers.get("set-cookie") ?? "";
    match(cookie, /^__Host-scheduling=[^;]+;/);
    match(cookie, /; Secure(;|$)/);
    match(cookie, /; Path=\/(;|$)/);
    match(cookie, /; HttpOnly(;|$)/);
    equal(/Domain=/i.test(cookie), false);
    const page = await fetch(new URL(location, url), {
      headers: { cookie: cookie.split(";")[0] },
    });
    equal(page.status, 200);
    match(await page.text(), /Launched/);
    // The code is exchanged once: the same link opens nothing a second time.
    const reused = await fetch(url, { redirect: "manual" });
    equal(reused.status, 403);
    equal(reused.headers.get("set-cookie"), null);
    await reused.body?.cancel();

    // SUI-002: a manage launch naming a view lands on that view.
    for (const view of ["releases", "calendar"]) {
      const manage = await launchUrl(w, { kind: "manage", view });
      equal(new URL(manage).searchParams.get("svc_view"), view);
      const landed = await fetch(manage, { redirect: "manual" });
      await landed.body?.cancel();
      equal(landed.status, 303);
      equal(
        landed.headers.get("location"),
        `/installations/${w.installationId}/${view}`,
      );
    }

    // SUI-017
    const css = await fetch(`${w.scheduler.origin}/assets/scheduling.css`);
    equal(css.status, 200);
    match(css.headers.get("content-type")!, /^text\/css/);
    ok((await css.text()).length > 0);
  }));

Deno.test("the content page shows the form and the entry's schedules; a schedule's page previews it; cancel and reschedule change only live schedules (SUI-003, SUI-007, SUI-008, SUI-009, SUI-010)", () =>
  withSchedulingWorld(async (w) => {
    const { instances } = await w.entry({ en: { title: "Harvest notes" } });
    const browser = await w.launch(instances.en);
    const home = `/installations/${w.installationId}`;
    let page = await text(browser, home);
    equal(page.status, 200);
    match(
      page.html,
      new RegExp(`<form method="post" action="${home}/schedules"`),
    );
    match(page.html, /No schedules yet/);

    // SUI-008: with the session's CSRF token the POST creates one.
    const first = await schedule(browser, w, { local: "2026-11-24T09:00" });
    equal(await countOf(w, "schedules"), 1);
    page = await text(browser, home);
    match(page.html, new RegExp(`href="${home}/schedules/${first}"`));
    match(page.html, /Publish, all languages/);
    match(page.html, />Pending</);

    // SUI-007: the schedule's page with the entry read through the delegation.
    const detail = await text(browser, `${home}/schedules/${first}`);
    equal(detail.status, 200);
    match(detail.html, /<h2 id="preview">Preview<\/h2>/);
    match(detail.html, /<dt>title<\/dt><dd>Harvest notes<\/dd>/);

    // SUI-010: cancel a pending schedule.
    const cancelled = await browser.post(
      `${home}/schedules/${first}/cancel`,
      {},
    );
    equal(cancelled.status, 303);
    equal(cancelled.headers.get("location"), `${home}?done=cancelled`);
    const row = await w.scheduler.db.selectFrom("schedules").selectAll()
      .where("id", "=", first).executeTakeFirstOrThrow();
    equal(row.status, "cancelled");
    match((await text(browser, home)).html, />Cancelled</);

    // SUI-009: a pending schedule moves; a completed one refuses and stays as it was.
    const second = await schedule(browser, w, { local: "2026-11-23T11:00" });
    const moved = await browser.post(`${home}/schedules/${second}/reschedule`, {
      local: "2026-11-23T10:30",
      timezone: "UTC",
      fold: "later",
    });
    equal(moved.status, 303);
    await moved.body?.cancel();
    const live = await w.scheduler.db.selectFrom("schedules").selectAll()
      .where("status", "=", "pending").executeTakeFirstOrThrow();
    equal(live.due_at.toISOString(), "2026-11-23T10:30:00.000Z");
    w.clock.advance(30 * 60_000);
    equal((await w.scheduler.tick()).completed, 1);
    const before = await w.scheduler.db.selectFrom("schedules").selectAll()
      .orderBy("id").execute();
    const refused = await browser.post(
      `${home}/schedules/${live.id}/reschedule`,
      { local: "2026-11-25T10:00", timezone: "UTC", fold: "later" },
    );
    equal(refused.status, 409);
    match(await refused.text(), /schedule_finished/);
    deepEqual(
      await w.scheduler.db.selectFrom("schedules").selectAll().orderBy("id")
        .execute(),
      before,
    );
  }));

Deno.test("manage views: the agenda groups a month by day, the calendar counts per day, a day lists by time then id; a content session may not open them (SUI-004, SUI-005, SUI-006, SUI-016)", () =>
  withSchedulingWorld(async (w) => {
    const made: { id: string; title: string }[] = [];
    for (
      const [title, local] of [
        ["Alpha", "2026-11-24T09:00"],
        ["Bravo", "2026-11-24T09:00"],
        ["Charlie", "2026-11-25T10:00"],
        ["Delta", "2026-12-02T10:00"],
      ]
    ) {
      const { instances } = await w.entry({ en: { title } });
      const browser = await w.launch(instances.en);
      made.push({ id: await schedule(browser, w, { local }), title });
    }
    // The releases view carries a form, so the browser holds the session's CSRF token.
    const manage = await w.manage();
    const home = `/installations/${w.installationId}`;

    // SUI-004: November only, one heading per day, each day's schedules under it.
    const agenda = (await text(manage, `${home}?month=2026-11&zone=UTC`)).html;
    match(agenda, /Agenda, 2026-11/);
    const days = [...agenda.matchAll(/<h2 id="day-([\d-]+)">/g)].map((m) =>
      m[1]
    );
    deepEqual(days, ["2026-11-24", "2026-11-25"]);
    const on24 = agenda.slice(
      agenda.indexOf('id="day-2026-11-24"'),
      agenda.indexOf('id="day-2026-11-25"'),
    );
    match(on24, /Alpha/);
    match(on24, /Bravo/);
    equal(/Charlie/.test(on24), false);
    equal(/Delta/.test(agenda), false);
    // Grouped in the viewer's zone, each time reads in that zone and names the schedule's own
    // (the page says "Times in Europe/Berlin", so no row may show another zone's clock).
    const berlin =
      (await text(manage, `${home}?month=2026-11&zone=Europe/Berlin`))
        .html;
    match(berlin, /Times in Europe\/Berlin/);
    match(berlin, /2026-11-24 10:00 Europe\/Berlin/);
    match(berlin, /2026-11-24 09:00 UTC; set in UTC/);
    equal(/2026-11-24 09:00 UTC<span/.test(berlin), false);

    // SUI-005: a count per day equal to that day's schedules.
    const counts = (html: string) =>
      Object.fromEntries(
        [...html.matchAll(
          /calendar\/2026-11-(\d\d)\?zone=UTC">\d+<span class="count">(\d+)/g,
        )].map((m) => [m[1], Number(m[2])]),
      );
    const calendar = (await text(
      manage,
      `${home}/calendar?month=2026-11&zone=UTC`,
    )).html;
    deepEqual(counts(calendar), { "24": 2, "25": 1 });
    // Filters: a cancelled schedule leaves the pending count.
    const charlie = made.find((m) => m.title === "Charlie")!;
    const cancelled = await manage.post(
      `${home}/schedules/${charlie.id}/cancel`,
      {},
    );
    equal(cancelled.status, 303);
    await cancelled.body?.cancel();
    deepEqual(
      counts(
        (await text(
          manage,
          `${home}/calendar?month=2026-11&zone=UTC&state=pending`,
        )).html,
      ),
      { "24": 2 },
    );

    // SUI-006: two schedules due the same minute are listed in id order.
    const day = (await text(manage, `${home}/calendar/2026-11-24?zone=UTC`))
      .html;
    const expected = made.slice(0, 2).sort((a, b) => a.id < b.id ? -1 : 1)
      .map((m) => m.title);
    const listed = [...day.matchAll(/<td>(Alpha|Bravo)<\/td>/g)].map((m) =>
      m[1]
    );
    deepEqual(listed, expected);
    equal((await text(manage, `${home}/calendar/2026-02-30`)).status, 404);

    // SUI-016: a content session opens its entry, never the manage views.
    const { instances } = await w.entry({ en: { title: "Echo" } });
    const content = await w.launch(instances.en);
    for (
      const path of [
        `${home}/calendar?month=2026-11&zone=UTC`,
        `${home}/calendar/2026-11-24?zone=UTC`,
        `${home}/releases`,
      ]
    ) {
      const res = await text(content, path);
      equal(res.status, 403, path);
      equal(/Alpha/.test(res.html), false, path);
    }
    const own = (await text(content, `${home}?month=2026-11&zone=UTC`)).html;
    match(own, /<h1>Echo<\/h1>/);
    equal(/Alpha/.test(own), false);
  }));

Deno.test("releases list newest first and take names of 1 to 80 characters; a content session adds its entry to a new release and removes only its own entry's items (SUI-011, SUI-014, SUI-015)", () =>
  withSchedulingWorld(async (w) => {
    const manage = await w.manage();
    const list = `/installations/${w.installationId}/releases`;
    for (const name of ["", " ", "x".repeat(81)]) {
      const refused = await manage.post(list, { name });
      equal(refused.status, 422, JSON.stringify(name));
      match(await refused.text(), /invalid_request/);
    }
    equal(await countOf(w, "releases"), 0);
    const older = await manage.post(list, { name: "x".repeat(80) });
    equal(older.status, 303);
    await older.body?.cancel();
    w.clock.advance(60_000);
    const newer = await manage.post(list, { name: "Beta" });
    equal(newer.status, 303);
    await newer.body?.cancel();
    const html = (await text(manage, list)).html;
    const names = [...html.matchAll(/releases\/[0-9a-f-]{36}">([^<]+)</g)]
      .map((m) => m[1]);
    deepEqual(names, ["Beta", "x".repeat(80)]);

    // SUI-015: a content session creates "Launch" with its entry as the first item.
    const a = await w.entry({ en: { title: "First entry" } });
    const b = await w.entry({ en: { title: "Second entry" } });
    const contentA = await w.launch(a.instances.en);
    const added = await contentA.post(
      `/installations/${w.installationId}/release-items`,
      { release: "", new_release: "Launch", transition: "publish:published" },
    );
    equal(added.status, 303);
    equal(
      added.headers.get("location"),
      `/installations/${w.installationId}?done=added`,
    );
    const launch = await w.scheduler.db.selectFrom("releases").selectAll()
      .where("name", "=", "Launch").executeTakeFirstOrThrow();
    equal(launch.state, "draft");
    const itemsOf = () =>
      w.scheduler.db.selectFrom("release_items").selectAll()
        .where("release_id", "=", launch.id).orderBy("position").execute();
    const [itemA] = await itemsOf();
    equal(itemA.group_id, a.groupId);
    equal(itemA.kind, "publish");
    equal(itemA.locale, "");
    equal(itemA.version_mode, "ordinary");
    const contentB = await w.launch(b.instances.en);
    const addB = await contentB.post(
      `/installations/${w.installationId}/release-items`,
      { release: launch.id, transition: "publish:published" },
    );
    equal(addB.status, 303);
    await addB.body?.cancel();
    const [, itemB] = await itemsOf();

    // SUI-014: B's session cannot remove A's item; it removes its own.
    const foreign = await contentB.post(
      `${list}/${launch.id}/items/${itemA.id}/remove`,
      {},
    );
    equal(foreign.status, 404);
    match(await foreign.text(), /not_found/);
    equal((await itemsOf()).length, 2);
    const mine = await contentB.post(
      `${list}/${launch.id}/items/${itemB.id}/remove`,
      {},
    );
    equal(mine.status, 303);
    await mine.body?.cancel();
    deepEqual((await itemsOf()).map((i) => i.id), [itemA.id]);
    // Once the release has run, even the manage session removes nothing.
    equal(
      (await manage.post(`${list}/${launch.id}/run`, {})).status,
      303,
    );
    const late = await manage.post(
      `${list}/${launch.id}/items/${itemA.id}/remove`,
      {},
    );
    equal(late.status, 409);
    match(await late.text(), /release_locked/);
    equal((await itemsOf()).length, 1);
  }));

Deno.test("every form POST without the session's CSRF token is refused 403 and changes nothing (SUI-008, SUI-019)", () =>
  withSchedulingWorld(async (w) => {
    const { instances } = await w.entry({ en: { title: "Guarded" } });
    const content = await w.launch(instances.en);
    const manage = await w.manage();
    const home = `/installations/${w.installationId}`;
    const scheduleId = await schedule(content, w, {
      local: "2026-11-24T09:00",
    });
    const made = await manage.post(`${home}/releases`, { name: "Guarded" });
    await made.body?.cancel();
    const releaseId = /releases\/([0-9a-f-]{36})/.exec(
      made.headers.get("location")!,
    )![1];
    const added = await content.post(`${home}/release-items`, {
      release: releaseId,
      transition: "publish:published",
    });
    equal(added.status, 303);
    await added.body?.cancel();
    const item = await w.scheduler.db.selectFrom("release_items").select("id")
      .executeTakeFirstOrThrow();
    const snapshot = async () => ({
      schedules: await w.scheduler.db.selectFrom("schedules").selectAll()
        .orderBy("id").execute(),
      releases: await w.scheduler.db.selectFrom("releases").selectAll()
        .orderBy("id").execute(),
      items: await w.scheduler.db.selectFrom("release_items").selectAll()
        .orderBy("id").execute(),
    });
    const before = await snapshot();
    const time = { local: "2026-11-25T09:00", timezone: "UTC", fold: "later" };
    const forms: [PluginBrowser, string, Record<string, string>][] = [
      [content, `${home}/schedules`, { kind: "publish", locale: "", ...time }],
      [content, `${home}/schedules/${scheduleId}/reschedule`, time],
      [content, `${home}/schedules/${scheduleId}/cancel`, {}],
      [content, `${home}/release-items`, {
        new_release: "Sneaky",
        transition: "publish:published",
      }],
      [content, `${home}/releases/${releaseId}/items/${item.id}/remove`, {}],
      [manage, `${home}/releases`, { name: "Sneaky" }],
      [manage, `${home}/releases/${releaseId}/rename`, { name: "Sneaky" }],
      [manage, `${home}/releases/${releaseId}/schedule`, time],
      [manage, `${home}/releases/${releaseId}/run`, {}],
      [manage, `${home}/releases/${releaseId}/cancel`, {}],
      [manage, `${home}/releases/${releaseId}/retry`, {}],
    ];
    for (const [browser, path, fields] of forms) {
      for (const token of ["", "forged"]) {
        const res = await browser.post(path, { ...fields, _csrf: token });
        equal(res.status, 403, `${path} with "${token}"`);
        match(await res.text(), /Form expired/);
      }
    }
    deepEqual(await snapshot(), before);
    equal(w.wire.commits.length, 0);
    // The same session's token is accepted (the page forms carry it).
    const renamed = await manage.post(`${home}/releases/${releaseId}/rename`, {
      name: "Renamed",
    });
    equal(renamed.status, 303);
    await renamed.body?.cancel();
  }));
