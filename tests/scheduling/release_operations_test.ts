// The scheduling plugin's release operations, run the way people run them: from Stave's admin
// operation runner (a management credential never holds workflow:release), and the automation-
// only timeline preview through the Management API (spec 1 part 4.4; REL, SOP rows).
import { deepEqual, equal, match, ok } from "node:assert/strict";
import { loadAuthority } from "../../core/access/authority.ts";
import { pluginCallOf } from "../../core/plugins/calls.ts";
import { invokeOperation } from "../../core/plugins/invocations.ts";
import {
  type SchedulingWorld,
  SITE_HOST,
  withSchedulingWorld,
} from "./world.ts";

const CSRF = "c".repeat(43);
type Json = Record<string, unknown>;

function decode(text: string): string {
  return text.replaceAll("&lt;", "<").replaceAll("&gt;", ">")
    .replaceAll("&quot;", '"').replaceAll("&#39;", "'").replaceAll(
      "&amp;",
      "&",
    );
}

/** Runs a site operation from the admin runner as the administrator. */
async function runner(
  w: SchedulingWorld,
  operation: string,
  fields: Record<string, string> = {},
): Promise<{ status: number; html: string; json: Json | null }> {
  const res = await w.app.request(
    `http://${SITE_HOST}/admin/plugins/operations`,
    {
      method: "POST",
      headers: {
        host: SITE_HOST,
        accept: "text/html",
        cookie: `stave_session=${w.session}; stave_csrf=${CSRF}`,
        origin: `http://${SITE_HOST}`,
        "content-type": "application/x-www-form-urlencoded",
      },
      body: new URLSearchParams({
        _csrf: CSRF,
        installation_id: w.installationId,
        operation,
        ...Object.fromEntries(
          Object.entries(fields).map((
            [k, v],
          ) => [k === "confirm" ? k : `in.${k}`, v]),
        ),
      }).toString(),
    },
  );
  const html = await res.text();
  const pre = /<pre tabindex="0">([\s\S]*?)<\/pre>/.exec(html);
  return {
    status: res.status,
    html,
    json: pre ? JSON.parse(decode(pre[1])) : null,
  };
}

Deno.test("releases from the admin runner: create, add two entries, read readiness, schedule (confirmed), preview the timeline, run now (REL, SOP-015, SOP-016, SOP-017)", () =>
  withSchedulingWorld(async (w) => {
    const first = await w.entry({ en: { title: "First" } });
    const second = await w.entry({ en: { title: "Second" } });

    // The site page lists the interactive release operations, not the automation-only one.
    const list = await w.app.request(
      `http://${SITE_HOST}/admin/plugins/operations`,
      {
        headers: {
          host: SITE_HOST,
          accept: "text/html",
          cookie: `stave_session=${w.session}; stave_csrf=${CSRF}`,
        },
      },
    );
    const page = await list.text();
    for (const label of ["Releases", "Edit a release", "Run a release"]) {
      match(page, new RegExp(`>${label}`));
    }
    equal(/Timeline preview/.test(page), false);

    const none = await runner(w, "releases");
    equal(none.status, 200);
    deepEqual(none.json, []);

    const made = await runner(w, "release-edit", {
      action: "create",
      name: "Winter launch",
    });
    equal(made.status, 200, made.html.slice(0, 300));
    const releaseId = String(made.json!.release_id);
    equal(made.json!.state, "draft");

    for (const entry of [first, second]) {
      const added = await runner(w, "release-edit", {
        action: "add",
        release_id: releaseId,
        instance_id: entry.instances.en,
        kind: "publish",
      });
      equal(added.status, 200, added.html.slice(0, 300));
    }
    const twice = await runner(w, "release-edit", {
      action: "add",
      release_id: releaseId,
      instance_id: first.instances.en,
      kind: "publish",
    });
    equal(twice.status, 422);
    match(twice.html, /<code>already_in_release<\/code>/);

    // SOP-015: without release_id the releases are listed (rows and releases.json) ...
    const listed = await runner(w, "releases");
    equal(listed.status, 200);
    match(listed.html, /<code>releases\.json<\/code>/);
    deepEqual(
      (listed.json as unknown as Json[]).map((r) => [r.name, r.items]),
      [["Winter launch", 2]],
    );
    // ... and with it, that release's items with their readiness.
    const read = await runner(w, "releases", { release_id: releaseId });
    match(read.html, /Winter launch: draft, 2 item\(s\)/);
    const items = read.json!.items as Json[];
    deepEqual(items.map((i) => i.title), ["First", "Second"]);
    match(read.html, /<td>ready<\/td>/);

    // Destructive: nothing is sent until the person confirms.
    const unconfirmed = await runner(w, "release-run", {
      action: "schedule",
      release_id: releaseId,
      due_at: "2026-11-24T08:00",
      timezone: "Europe/Berlin",
    });
    equal(unconfirmed.status, 422);
    // SOP-017: due_at is a whole UTC minute: seconds are refused.
    const seconds = await runner(w, "release-run", {
      action: "schedule",
      release_id: releaseId,
      due_at: "2026-11-24T08:00:30Z",
      timezone: "Europe/Berlin",
      confirm: "1",
    });
    equal(seconds.status, 422);
    match(seconds.html, /<code>invalid_instant<\/code>/);
    const past = await runner(w, "release-run", {
      action: "schedule",
      release_id: releaseId,
      due_at: "2026-11-20T08:00",
      timezone: "Europe/Berlin",
      confirm: "1",
    });
    equal(past.status, 422);
    match(past.html, /<code>past_time<\/code>/);
    const scheduled = await runner(w, "release-run", {
      action: "schedule",
      release_id: releaseId,
      due_at: "2026-11-24T08:00",
      timezone: "Europe/Berlin",
      confirm: "1",
    });
    equal(scheduled.status, 200, scheduled.html.slice(0, 300));
    equal(scheduled.json!.state, "scheduled");
    equal(scheduled.json!.local_datetime, "2026-11-24T09:00");
    // SOP-017: cancel unschedules it; scheduled again for the preview and the run below.
    const unscheduled = await runner(w, "release-run", {
      action: "cancel",
      release_id: releaseId,
      confirm: "1",
    });
    equal(unscheduled.status, 200, unscheduled.html.slice(0, 300));
    equal(unscheduled.json!.state, "draft");
    equal(unscheduled.json!.due_at, null);
    const rescheduled = await runner(w, "release-run", {
      action: "schedule",
      release_id: releaseId,
      due_at: "2026-11-24T08:00:00Z",
      timezone: "Europe/Berlin",
      confirm: "1",
    });
    equal(rescheduled.json!.state, "scheduled");
    equal(rescheduled.json!.due_at, "2026-11-24T08:00:00.000Z");

    // The automation-only timeline preview is absent from the Management API (SOP-018) and
    // refused there; a session caller of the invocation service gets it.
    const secret = await w.credential(["content:read", "plugins:use"]);
    const manage = (path: string, body?: unknown) =>
      w.app.request(`http://${SITE_HOST}/api/manage/v1${path}`, {
        method: body === undefined ? "GET" : "POST",
        headers: {
          host: SITE_HOST,
          authorization: `Bearer ${secret}`,
          "content-type": "application/json",
          "idempotency-key": crypto.randomUUID(),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    const offered = await (await manage("/plugins/operations")).json();
    const ids = (offered.data as { id: string }[]).map((o) => o.id);
    equal(ids.includes("timeline-preview"), false, JSON.stringify(ids));
    equal(ids.includes("releases"), true);
    const viaApi = await manage(
      `/plugins/${w.installationId}/operations/timeline-preview/invoke`,
      { input: { release_id: releaseId } },
    );
    equal(viaApi.ok, false);
    await viaApi.body?.cancel();
    const loaded = await loadAuthority(w.services.db, {
      siteId: w.siteId,
      actor: { kind: "person", userId: w.adminId },
    });
    ok(loaded.ok);
    const preview = await invokeOperation(
      {
        db: w.services.db,
        kv: w.services.kv,
        clock: w.clock,
        call: pluginCallOf(w.services),
        siteId: w.siteId,
        caller: {
          userId: w.adminId,
          via: "session",
          authority: loaded.authority,
        },
      },
      w.installationId,
      "timeline-preview",
      { input: { release_id: releaseId } },
    );
    ok(preview.ok, JSON.stringify(preview));
    const timeline = preview.result.blocks[0] as { data: Json };
    const steps = timeline.data.steps as Json[];
    equal(steps.length, 1);
    equal(steps[0].kind, "release");
    equal((steps[0].changes as Json[]).length, 2);

    // Run now: one commit, both entries published together.
    const ran = await runner(w, "release-run", {
      action: "run_now",
      release_id: releaseId,
      confirm: "1",
    });
    equal(ran.status, 200, ran.html.slice(0, 400));
    match(ran.html, /Committed: every item changed together/);
    equal(ran.json!.state, "done");
    equal(w.wire.commits.length, 1);
    equal((await w.states(first.groupId)).en, "published");
    equal((await w.states(second.groupId)).en, "published");
    // Each item as the spec's release item: the attempt that sent it and the version it
    // published (spec 1 part 2).
    const after = await runner(w, "releases", { release_id: releaseId });
    const outcomes = after.json!.items as Json[];
    const published = await w.scheduler.db.selectFrom("release_items")
      .select(["instance_id", "published_version_id"]).orderBy("position")
      .execute();
    deepEqual(
      outcomes.map((i) => [i.status, i.attempt, i.published_version_id]),
      published.map((row) => {
        equal(typeof row.published_version_id, "string");
        return ["done", 1, row.published_version_id];
      }),
    );

    // A finished release takes no more items.
    const third = await w.entry({ en: { title: "Third" } });
    const locked = await runner(w, "release-edit", {
      action: "add",
      release_id: releaseId,
      instance_id: third.instances.en,
      kind: "publish",
    });
    equal(locked.status, 422);
    match(locked.html, /<code>release_locked<\/code>/);
  }));

Deno.test("release edits and times refused by name: a bad action's fields, an unknown release, a removal then re-add, a rename at its edge, release_time_required, release_time_ambiguous (REL, SOP-016)", () =>
  withSchedulingWorld(async (w) => {
    const entry = await w.entry({ en: { title: "Only" } });
    const bad = await runner(w, "release-edit", { action: "rename" });
    equal(bad.status, 422);
    match(bad.html, /<code>invalid_request<\/code>/);
    const unknown = await runner(w, "release-edit", {
      action: "add",
      release_id: crypto.randomUUID(),
      instance_id: entry.instances.en,
      kind: "publish",
    });
    match(unknown.html, /<code>not_found<\/code>/);
    const made = await runner(w, "release-edit", {
      action: "create",
      name: "Spring",
    });
    const releaseId = String(made.json!.release_id);
    const tooLong = await runner(w, "release-edit", {
      action: "rename",
      release_id: releaseId,
      name: "x".repeat(81),
    });
    equal(tooLong.status, 400, "the declared max_length refuses it in Stave");
    const renamed = await runner(w, "release-edit", {
      action: "rename",
      release_id: releaseId,
      name: "x".repeat(80),
    });
    equal(renamed.json!.name, "x".repeat(80));
    const add = {
      action: "add",
      release_id: releaseId,
      instance_id: entry.instances.en,
      kind: "publish",
    };
    equal((await runner(w, "release-edit", add)).status, 200);
    const removed = await runner(w, "release-edit", {
      ...add,
      action: "remove",
    });
    equal(removed.status, 200);
    deepEqual(removed.json!.items, []);
    const again = await runner(w, "release-edit", add);
    equal((again.json!.items as Json[]).length, 1);
    const future = await runner(w, "release-edit", {
      ...add,
      action: "add_future",
      kind: "unpublish",
      release_id: releaseId,
    });
    match(future.html, /<code>future_requires_publish<\/code>/);
    // SOP-016: add_future of a publish adds the item with a frozen future version.
    const other = await w.entry({ en: { title: "Later" } });
    const frozen = await runner(w, "release-edit", {
      action: "add_future",
      release_id: releaseId,
      instance_id: other.instances.en,
      kind: "publish",
    });
    equal(frozen.status, 200, frozen.html.slice(0, 300));
    deepEqual(
      (frozen.json!.items as Json[]).map((i) => i.version_mode),
      ["ordinary", "future"],
    );

    // A release's time: none, a local time the clocks show twice, then that time with its fold.
    const schedule = {
      action: "schedule",
      release_id: releaseId,
      timezone: "Europe/Berlin",
      confirm: "1",
    };
    const noTime = await runner(w, "release-run", schedule);
    match(noTime.html, /<code>release_time_required<\/code>/);
    const twiceShown = await runner(w, "release-run", {
      ...schedule,
      local_datetime: "2027-10-31T02:30",
    });
    match(twiceShown.html, /<code>release_time_ambiguous<\/code>/);
    const earlier = await runner(w, "release-run", {
      ...schedule,
      local_datetime: "2027-10-31T02:30",
      fold: "earlier",
    });
    equal(earlier.status, 200, earlier.html.slice(0, 300));
    equal(earlier.json!.due_at, "2027-10-31T00:30:00.000Z");
    equal(earlier.json!.local_datetime, "2027-10-31T02:30");
  }));

Deno.test("the entry list shows the plugin's Scheduled column: a badge for the entry with a live schedule, none for the others (SOP-010)", () =>
  withSchedulingWorld(async (w) => {
    const scheduled = await w.entry({ en: { title: "Scheduled one" } });
    await w.entry({ en: { title: "Plain one" } });
    const current = (await w.services.db.selectFrom("entry_groups")
      .select("current_version_id").where("id", "=", scheduled.groupId)
      .executeTakeFirstOrThrow()).current_version_id!;
    const secret = await w.credential([
      "content:read",
      "lifecycle:publish",
      "plugins:use",
    ]);
    const made = await w.app.request(
      `http://${SITE_HOST}/api/manage/v1/plugins/${w.installationId}/operations/schedule-draft/invoke`,
      {
        method: "POST",
        headers: {
          host: SITE_HOST,
          authorization: `Bearer ${secret}`,
          "content-type": "application/json",
          "idempotency-key": crypto.randomUUID(),
        },
        body: JSON.stringify({
          instance_id: scheduled.instances.en,
          input: {
            transition: "publish:published",
            due_at: "2026-11-24T08:00:00Z",
            timezone: "Europe/Berlin",
            version_id: current,
          },
        }),
      },
    );
    equal(made.status, 200, await made.clone().text());
    await made.body?.cancel();
    const list = await w.app.request(
      `http://${SITE_HOST}/admin/content/posts?lang=en`,
      {
        headers: {
          host: SITE_HOST,
          accept: "text/html",
          cookie: `stave_session=${w.session}; stave_csrf=${CSRF}`,
        },
      },
    );
    equal(list.status, 200);
    const html = await list.text();
    match(html, /<th scope="col" title="From Scheduling">Scheduled<\/th>/);
    const badges = [
      ...html.matchAll(/<span class="badge tone-info">([^<]+)<\/span>/g),
    ]
      .map((m) => m[1]);
    deepEqual(badges, ["Publish 2026-11-24 09:00"]);
    const row = html.slice(html.indexOf("Scheduled one"));
    match(row.slice(0, row.indexOf("</tr>")), /Publish 2026-11-24 09:00/);
    // Never a tool or an API listing entry meant for people: the column is only the list's.
    const offered = await (await w.app.request(
      `http://${SITE_HOST}/api/manage/v1/plugins`,
      {
        headers: { host: SITE_HOST, authorization: `Bearer ${secret}` },
      },
    )).json();
    const column = offered.data[0].operations.find((o: { id: string }) =>
      o.id === "schedule-column"
    );
    equal(column.audience, "column");
    deepEqual(column.mcp_tool, { name: null, omitted_because: "list_column" });
  }));

Deno.test("release-run cancel stops a release that is running, as the release page's /cancel does: cancelled, with a stop receipt (REL-013)", () =>
  withSchedulingWorld(async (w) => {
    const made = await runner(w, "release-edit", {
      action: "create",
      name: "In flight",
    });
    const releaseId = String(made.json!.release_id);
    // The runner holds it: state running, as between its lease and its commit.
    await w.scheduler.db.updateTable("releases").set({ state: "running" })
      .where("id", "=", releaseId).execute();
    const stopped = await runner(w, "release-run", {
      action: "cancel",
      release_id: releaseId,
      confirm: "1",
    });
    equal(stopped.status, 200, stopped.html.slice(0, 300));
    match(stopped.html, /Stopped: nothing more is sent/);
    equal(stopped.json!.state, "cancelled");
    equal((stopped.json!.receipt as Json).kind, "stopped");
    // A stopped release is not stopped twice: the second cancel is refused by name.
    const again = await runner(w, "release-run", {
      action: "cancel",
      release_id: releaseId,
      confirm: "1",
    });
    equal(again.status, 422);
    match(again.html, /<code>release_locked<\/code>/);
  }));
