// Release states driven through the plugin's release pages against a real Stave (spec 1 parts
// 2.10, 3.3 and 4.5 rules 7-8): schedule, unschedule and run now; versions read at execution,
// a future version frozen at the start, a transient answer resent under the same key, readiness
// that is unknown or unreadable, and the timeline preview's time rules (REL rows).
import { equal, match, ok } from "node:assert/strict";
import { receiptOf } from "../../plugins/scheduling/core/releases.ts";
import { insertMember, insertRole } from "../../core/access/_testing.ts";
import { loadAuthority } from "../../core/access/authority.ts";
import { createSession } from "../../core/auth/session_store.ts";
import { saveTestEntry } from "../support/entries.ts";
import { pluginCallOf } from "../../core/plugins/calls.ts";
import { invokeOperation } from "../../core/plugins/invocations.ts";
import type { SchedulingWorld } from "./world.ts";
import { openLaunch, SITE_HOST, withSchedulingWorld } from "./world.ts";
import {
  addToRelease as add,
  newRelease,
  refuseFirstCommit,
  releaseAction as act,
  releaseRow as release,
} from "./release_support.ts";

/** The entry's latest saved draft and live version as Stave holds them. */
async function versions(w: SchedulingWorld, instanceId: string) {
  return await w.services.db.selectFrom("entries")
    .select(["group_id", "current_version_id", "published_version_id"])
    .where("id", "=", instanceId).executeTakeFirstOrThrow();
}

/** Saves a new draft of the entry in Stave, as an editor would after it was added. */
async function resave(w: SchedulingWorld, instanceId: string, title: string) {
  const { saveEntry, modelValidator } = await import(
    "../../core/entries/mod.ts"
  );
  const { personActor } = await import("../../core/access/actor.ts");
  const before = await versions(w, instanceId);
  const saved = await saveEntry({
    db: w.services.db,
    clock: w.clock,
    siteId: w.siteId,
    actor: personActor(w.adminId),
    validate: modelValidator(),
  }, {
    group_id: before.group_id,
    model_id: w.modelId,
    locale: "en",
    slug: `en-${crypto.randomUUID().slice(0, 8)}`,
    fields: { title },
    expected_current_version_id: before.current_version_id,
  });
  ok(saved.ok, JSON.stringify(saved));
  const after = await versions(w, instanceId);
  ok(after.current_version_id !== before.current_version_id);
  return after.current_version_id!;
}

function sentVersion(w: SchedulingWorld, commit: number): unknown {
  const body = w.wire.commits[commit].body as {
    changes: { expected_current_version_id?: string }[];
  };
  return body.changes[0].expected_current_version_id;
}

Deno.test("a release page schedules (past_time refused), unschedules and runs now in one commit, keeping every record field (REL-002, REL-003, REL-005, REL-006, REL-007, SUI-013)", () =>
  withSchedulingWorld(async (w) => {
    const a = await w.entry({
      en: { title: "Guide" },
      de: { title: "Leitfaden" },
    });
    const manage = await w.manage();
    const id = await newRelease(manage, w, "Draft name");
    await add(w, a.instances.en, id, { locale: "en" });

    // SUI-013: rename, then a name one character too long changes nothing.
    equal((await act(manage, w, id, "rename", { name: "Autumn" })).status, 303);
    const long = await act(manage, w, id, "rename", { name: "x".repeat(81) });
    equal(long.status, 422);
    match(await long.text(), /invalid_request/);
    equal((await release(w, id)).name, "Autumn");

    // REL-005: the single-schedule time rules; a past time refuses and leaves the draft alone.
    const past = await act(manage, w, id, "schedule", {
      local: "2026-11-23T10:59",
      timezone: "Europe/Berlin",
      fold: "later",
    });
    equal(past.status, 422);
    match(await past.text(), /past_time/);
    const zone = await act(manage, w, id, "schedule", {
      local: "2026-11-24T10:00",
      timezone: "Mars/Olympus",
      fold: "later",
    });
    equal(zone.status, 422);
    match(await zone.text(), /unknown_timezone/);
    let row = await release(w, id);
    equal(row.state, "draft");
    equal(row.due_at, null);

    const scheduled = await act(manage, w, id, "schedule", {
      local: "2026-11-23T12:00",
      timezone: "Europe/Berlin",
      fold: "earlier",
    });
    equal(scheduled.status, 303);
    // REL-002: the record keeps the local date-time, its zone and fold.
    row = await release(w, id);
    equal(row.state, "scheduled");
    equal(row.local_datetime, "2026-11-23T12:00");
    equal(row.timezone, "Europe/Berlin");
    equal(row.fold, "earlier");
    equal(row.due_at!.toISOString(), "2026-11-23T11:00:00.000Z");
    equal(row.blocked_at, null);

    // REL-006: unschedule moves a scheduled release back to draft; a draft has nothing to
    // unschedule.
    equal((await act(manage, w, id, "cancel")).status, 303);
    row = await release(w, id);
    equal(row.state, "draft");
    equal(row.due_at, null);
    const again = await act(manage, w, id, "cancel");
    equal(again.status, 409);
    match(await again.text(), /release_locked/);
    equal((await release(w, id)).state, "draft");

    // REL-007: run now from a draft sends exactly one /releases/commit.
    const ran = await act(manage, w, id, "run");
    equal(ran.status, 303);
    match(ran.headers.get("location")!, /done=done$/);
    equal(w.wire.commits.length, 1);
    equal(w.wire.commits[0].key, `rel:${id}:a1`);
    row = await release(w, id);
    equal(row.state, "done");
    equal(row.attempt, 1);
    equal(row.last_code, "release_applied");
    const receipt = receiptOf(row) as { kind: string; key: string };
    equal(receipt.kind, "applied");
    equal(receipt.key, `rel:${id}:a1`);
    equal((await w.states(a.groupId)).en, "published");
    equal((await w.states(a.groupId)).de, "draft");

    // REL-003: the item keeps its entry, scope, change, mode, outcome and published version.
    const [item] = await w.scheduler.db.selectFrom("release_items").selectAll()
      .where("release_id", "=", id).execute();
    equal(item.instance_id, a.instances.en);
    equal(item.group_id, a.groupId);
    equal(item.locale, "en");
    equal(item.kind, "publish");
    equal(item.target_state, "published");
    equal(item.version_mode, "ordinary");
    equal(item.status, "done");
    equal(Number(item.attempt), 1);
    equal(item.last_code, "release_applied");
    equal(
      item.published_version_id,
      (await versions(w, a.instances.en)).published_version_id,
    );
    const page = await (await manage.get(
      `/installations/${w.installationId}/releases/${id}`,
    )).text();
    match(page, /Guide/);
    match(page, /Publish en/);
    match(page, />done</);
  }));

Deno.test("an ordinary item is pinned only at execution, and a retry after a refusal sends fresh versions (REL-014, REL-020)", () =>
  withSchedulingWorld(async (w) => {
    const a = await w.entry({ en: { title: "Original" } });
    const manage = await w.manage();
    const id = await newRelease(manage, w, "Edits");
    await add(w, a.instances.en, id);
    const second = await resave(w, a.instances.en, "Edited after adding");
    refuseFirstCommit(w);
    equal((await act(manage, w, id, "run")).status, 303);
    equal((await release(w, id)).state, "failed");
    // REL-020: the draft saved after the entry was added is the one the command names.
    equal(sentVersion(w, 0), second);
    // REL-014: a definite refusal starts a new attempt that reads the versions again.
    const third = await resave(w, a.instances.en, "Edited after the refusal");
    equal((await act(manage, w, id, "retry")).status, 303);
    equal(w.wire.commits.length, 2);
    equal(w.wire.commits[1].key, `rel:${id}:a2`);
    equal(sentVersion(w, 1), third);
    equal((await release(w, id)).state, "done");
    equal((await versions(w, a.instances.en)).published_version_id, third);
  }));

Deno.test("a future item's version is frozen when the release first starts; a retry sends that same version (REL-022)", () =>
  withSchedulingWorld(async (w) => {
    const a = await w.entry({ en: { title: "Frozen" } });
    const manage = await w.manage();
    const id = await newRelease(manage, w, "Future");
    await add(w, a.instances.en, id, { version_mode: "future" });
    const first = (await versions(w, a.instances.en)).current_version_id;
    refuseFirstCommit(w);
    equal((await act(manage, w, id, "run")).status, 303);
    equal((await release(w, id)).state, "failed");
    equal(sentVersion(w, 0), first);
    const item = await w.scheduler.db.selectFrom("release_items")
      .select("frozen_version_id").where("release_id", "=", id)
      .executeTakeFirstOrThrow();
    equal(item.frozen_version_id, first);
    const later = await resave(w, a.instances.en, "Saved after the start");
    ok(later !== first);
    await act(manage, w, id, "retry");
    equal(w.wire.commits.length, 2);
    equal(w.wire.commits[1].key, `rel:${id}:a2`);
    equal(sentVersion(w, 1), first, "the frozen version, not the later draft");
  }));

Deno.test("a transient 503 on the commit is resent as the same command under the same key (REL-023)", () =>
  withSchedulingWorld(async (w) => {
    const a = await w.entry({ en: { title: "Flaky" } });
    const manage = await w.manage();
    const id = await newRelease(manage, w, "Flaky");
    await add(w, a.instances.en, id);
    w.wire.intercept = (url) =>
      url.endsWith("/releases/commit") && w.wire.commits.length === 1
        ? Response.json({
          outcome: { code: "temporary_failure", message: "down", retry: true },
        }, { status: 503 })
        : undefined;
    equal((await act(manage, w, id, "run")).status, 303);
    equal(w.wire.commits.length, 2);
    equal(w.wire.commits[0].key, `rel:${id}:a1`);
    equal(w.wire.commits[1].key, `rel:${id}:a1`);
    equal(
      JSON.stringify(w.wire.commits[1].body),
      JSON.stringify(w.wire.commits[0].body),
    );
    const row = await release(w, id);
    equal(row.state, "done");
    equal(row.attempt, 1);
    equal((await w.states(a.groupId)).en, "published");
  }));

Deno.test("an unreachable readiness check is unknown, not blocked; an unreadable item is counted without its title (REL-025, REL-026)", () =>
  withSchedulingWorld(async (w) => {
    const a = await w.entry({ en: { title: "Reachable" } });
    const b = await w.entry({ en: { title: "Confidential plan" } });
    const manage = await w.manage();
    const id = await newRelease(manage, w, "Mixed");
    await add(w, a.instances.en, id);
    await add(w, b.instances.en, id);
    const path = `/installations/${w.installationId}/releases/${id}`;

    // REL-025: Stave cannot be reached for one item's check.
    w.wire.intercept = (url) =>
      url.includes(`/content/${a.instances.en}`)
        ? Response.json({
          outcome: { code: "temporary_failure", message: "down", retry: true },
        }, { status: 503 })
        : undefined;
    let page = await (await manage.get(path)).text();
    match(page, />unknown</);
    equal(/>blocked</.test(page), false);
    match(page, /<button type="submit">Run now<\/button>/);
    equal(/is off while/.test(page), false);
    const run = await act(manage, w, id, "run");
    equal(run.status, 503);
    match(await run.text(), /temporary_failure/);
    equal(w.wire.commits.length, 0);
    equal((await release(w, id)).state, "draft");

    // REL-026: Stave answers that the person cannot read the other item.
    w.wire.intercept = (url) =>
      url.includes(`/content/${b.instances.en}`)
        ? Response.json({
          outcome: {
            code: "content_not_found",
            message: "No such content",
            retry: false,
          },
        }, { status: 404 })
        : undefined;
    page = await (await manage.get(path)).text();
    match(page, /1 item\(s\) you cannot read are part of this release/);
    match(page, /Reachable/);
    equal(/Confidential plan/.test(page), false);
    equal(/No such content/.test(page), false);
  }));

Deno.test("the timeline preview needs a release time and refuses two changes of one entry at one instant (REL-024)", () =>
  withSchedulingWorld(async (w) => {
    const x = await w.entry({ en: { title: "Shared" } });
    const manage = await w.manage();
    const first = await newRelease(manage, w, "First");
    const second = await newRelease(manage, w, "Second");
    await add(w, x.instances.en, first);
    await add(w, x.instances.en, second);
    const loaded = await loadAuthority(w.services.db, {
      siteId: w.siteId,
      actor: { kind: "person", userId: w.adminId },
    });
    ok(loaded.ok);
    const preview = (releaseId: string) =>
      invokeOperation(
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
    const code = (r: Awaited<ReturnType<typeof preview>>) =>
      r.ok
        ? "ok"
        : (r.details as { plugin: { code: string } } | undefined)?.plugin
          .code;

    equal(code(await preview(first)), "release_time_required");
    const at = (local: string) => ({
      local,
      timezone: "UTC",
      fold: "later",
    });
    equal(
      (await act(manage, w, first, "schedule", at("2026-11-24T09:00"))).status,
      303,
    );
    equal(
      (await act(manage, w, second, "schedule", at("2026-11-24T09:00")))
        .status,
      303,
    );
    equal(code(await preview(second)), "release_time_ambiguous");
    // One minute apart, the two have an order again.
    await act(manage, w, second, "schedule", at("2026-11-24T09:01"));
    const ordered = await preview(second);
    ok(ordered.ok, JSON.stringify(ordered));
    const timeline = ordered.result.blocks[0] as { data: unknown };
    const steps = (timeline.data as { steps: { name: string }[] }).steps;
    equal(steps.map((s) => s.name).join(), "First,Second");
  }));

Deno.test("Retry is disabled while an item of a failed release is blocked, and a forced retry sends nothing (REL-025)", () =>
  withSchedulingWorld(async (w) => {
    const a = await w.entry({ en: { title: "Withdrawn" } });
    const manage = await w.manage();
    const publish = await newRelease(manage, w, "Publish");
    await add(w, a.instances.en, publish);
    equal((await act(manage, w, publish, "run")).status, 303);
    equal((await w.states(a.groupId)).en, "published");
    const id = await newRelease(manage, w, "Withdraw");
    await add(w, a.instances.en, id, { transition: "unpublish:draft" });
    // Stave refuses the withdrawal once: the release fails and may be retried.
    w.wire.intercept = (url) =>
      url.endsWith("/releases/commit") && w.wire.commits.length === 2
        ? Response.json({
          outcome: {
            code: "workflow_conflict",
            message: "Change 1: revision moved",
            retry: false,
          },
        }, { status: 409 })
        : undefined;
    equal((await act(manage, w, id, "run")).status, 303);
    equal((await release(w, id)).state, "failed");
    const path = `/installations/${w.installationId}/releases/${id}`;
    match(
      await (await manage.get(path)).text(),
      /<button type="submit">Retry<\/button>/,
    );
    // Someone unpublishes it by hand: the unpublish is no longer offered.
    const { unpublishEntry } = await import("../../core/entries/mod.ts");
    const { personActor } = await import("../../core/access/actor.ts");
    const live = await versions(w, a.instances.en);
    const off = await unpublishEntry({
      db: w.services.db,
      clock: w.clock,
      siteId: w.siteId,
      actor: personActor(w.adminId),
    }, {
      group_id: a.groupId,
      expected_published_version_id: live.published_version_id,
      expected_workflow_revision: (await w.services.db
        .selectFrom("entry_groups").select("revision")
        .where("id", "=", a.groupId).executeTakeFirstOrThrow()).revision,
    });
    ok(off.ok, JSON.stringify(off));
    const page = await (await manage.get(path)).text();
    match(page, /<button type="submit" disabled>Retry<\/button>/);
    match(page, /Retry is off while 1\s*item\(s\) are blocked/);
    const forced = await act(manage, w, id, "retry");
    equal(forced.status, 409);
    match(await forced.text(), /release_blocked/);
    equal(w.wire.commits.length, 2);
    equal((await release(w, id)).state, "failed");
  }));

Deno.test("a viewer who reads only their own entries sees the release count an item they cannot read, without its title (REL-026)", () =>
  withSchedulingWorld(async (w) => {
    const roleId = await insertRole(w.services.db, w.siteId, {
      models: { "*": ["read:own", "create", "update:own"] },
      system: [],
    }, w.clock);
    const viewerId = await insertMember(w.services.db, w.siteId, {
      roleId,
      clock: w.clock,
    });
    const mine = await saveTestEntry({
      db: w.services.db,
      clock: w.clock,
      siteId: w.siteId,
      userId: viewerId,
      modelId: w.modelId,
    }, { en: { title: "Viewer's own note" } });
    const theirs = await w.entry({ en: { title: "Board minutes" } });
    const manage = await w.manage();
    const id = await newRelease(manage, w, "Shared");
    await add(w, mine.instances.en, id);
    await add(w, theirs.instances.en, id);

    const session = (await createSession(
      { db: w.services.db, clock: w.clock },
      viewerId,
    )).token;
    const csrf = "v".repeat(43);
    const launched = await w.app.request(
      `http://${SITE_HOST}/api/plugins/${w.installationId}/launch`,
      {
        method: "POST",
        headers: {
          host: SITE_HOST,
          cookie: `stave_session=${session}; stave_csrf=${csrf}`,
          "x-csrf-token": csrf,
          origin: `http://${SITE_HOST}`,
          "content-type": "application/json",
        },
        body: JSON.stringify({ kind: "manage", view: "releases" }),
      },
    );
    const body = await launched.json();
    equal(launched.status, 201, JSON.stringify(body));
    const viewer = await openLaunch(body.data.url);
    const page = await (await viewer.get(
      `/installations/${w.installationId}/releases/${id}`,
    )).text();
    match(page, /Viewer&#39;s own note|Viewer's own note/);
    match(page, /1 item\(s\) you cannot read are part of this release/);
    equal(/Board minutes/.test(page), false);
    // The administrator reads both.
    const full = await (await manage.get(
      `/installations/${w.installationId}/releases/${id}`,
    )).text();
    match(full, /Board minutes/);
    equal(/you cannot read/.test(full), false);
  }));
