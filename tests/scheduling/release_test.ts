// Releases end to end (spec 1 parts 3.3, 4.5 rule 7): items added from entries, a release run
// at its time as one /releases/commit under rel:<id>:a<n>, a definite refusal that changes
// nothing and a retry with fresh versions, an unknown outcome recovered under the same key,
// and a blocked release that is not started again (REL and SUI rows).
import { equal, match, ok } from "node:assert/strict";
import { receiptOf } from "../../plugins/scheduling/core/releases.ts";
import { withSchedulingWorld } from "./world.ts";
import {
  newRelease,
  postReleaseItem as add,
  refuseFirstCommit,
  releaseRow as release,
} from "./release_support.ts";

Deno.test("a three-item release across two languages commits at its time in one command (REL-008, SUI-012)", () =>
  withSchedulingWorld(async (w) => {
    const a = await w.entry({
      en: { title: "Guide" },
      de: { title: "Leitfaden" },
    });
    const b = await w.entry({ en: { title: "Notes" } });
    const manage = await w.manage();
    const id = await newRelease(manage, w, "Autumn launch");
    equal((await add(w, a.instances.en, id, { locale: "en" })).status, 303);
    equal((await add(w, a.instances.en, id, { locale: "de" })).status, 303);
    equal((await add(w, b.instances.en, id)).status, 303);
    // REL-018: a whole-group item overlaps the languages already in the release.
    const overlap = await add(w, a.instances.en, id);
    equal(overlap.status, 409);
    match(await overlap.text(), /already_in_release/);
    // REL-022: only a publish may take a future version.
    const future = await add(w, b.instances.en, id, {
      transition: "unpublish:draft",
      version_mode: "future",
    });
    equal(future.status, 422);
    match(await future.text(), /future_requires_publish/);

    const page = await (await manage.get(
      `/installations/${w.installationId}/releases/${id}`,
    )).text();
    match(page, /Guide/);
    equal((page.match(/>ready</g) ?? []).length, 3);

    const scheduled = await manage.post(
      `/installations/${w.installationId}/releases/${id}/schedule`,
      { local: "2026-11-23T12:00", timezone: "Europe/Berlin", fold: "later" },
    );
    equal(scheduled.status, 303);
    equal((await release(w, id)).state, "scheduled");
    equal((await w.scheduler.tick()).releases.done, 0);
    equal(w.wire.commits.length, 0);

    // REL-008: due and ready, the tick starts it.
    w.clock.advance(60 * 60_000);
    const report = await w.scheduler.tick();
    equal(report.releases.done, 1);
    equal(w.wire.commits.length, 1);
    equal(w.wire.commits[0].key, `rel:${id}:a1`);
    const changes = (w.wire.commits[0].body as { changes: unknown[] }).changes;
    equal(changes.length, 3);
    const done = await release(w, id);
    equal(done.state, "done");
    equal(done.last_code, "release_applied");
    equal((await w.states(a.groupId)).en, "published");
    equal((await w.states(a.groupId)).de, "published");
    equal((await w.states(b.groupId)).en, "published");
    const items = await w.scheduler.db.selectFrom("release_items").selectAll()
      .where("release_id", "=", id).execute();
    ok(items.every((i) => i.status === "done" && i.published_version_id));
    const receipt = await (await manage.get(
      `/installations/${w.installationId}/releases/${id}`,
    )).text();
    // SUI-012: a done release's page shows its time, progress and receipt.
    match(receipt, /Committed at 2026-11-23 11:00 UTC/);
    match(receipt, /2026-11-23 12:00 Europe\/Berlin/);
    match(receipt, /3 of\s*3\s*items done/);
    // A later tick does not run it again.
    await w.scheduler.tick();
    equal(w.wire.commits.length, 1);
  }));

Deno.test("a refused release changes nothing; Retry runs it again with fresh versions (REL-014, SUI-013)", () =>
  withSchedulingWorld(async (w) => {
    const a = await w.entry({ en: { title: "First" } });
    const b = await w.entry({ en: { title: "Second" } });
    const manage = await w.manage();
    const id = await newRelease(manage, w, "Pair");
    await add(w, a.instances.en, id);
    await add(w, b.instances.en, id);
    // Stave refuses the whole command (a stale pin on one change): nothing is published.
    refuseFirstCommit(w);
    const run = await manage.post(
      `/installations/${w.installationId}/releases/${id}/run`,
      {},
    );
    equal(run.status, 303);
    equal((await release(w, id)).state, "failed");
    equal((await w.states(a.groupId)).en, "draft");
    equal((await w.states(b.groupId)).en, "draft");
    const retry = await manage.post(
      `/installations/${w.installationId}/releases/${id}/retry`,
      {},
    );
    equal(retry.status, 303);
    equal(w.wire.commits.length, 2);
    equal(w.wire.commits[1].key, `rel:${id}:a2`);
    equal((await release(w, id)).state, "done");
    equal((await w.states(a.groupId)).en, "published");
    equal((await w.states(b.groupId)).en, "published");
  }));

Deno.test("an unknown outcome is recovered by the same command under the same key (REL-012, REL-014)", () =>
  withSchedulingWorld(async (w) => {
    const a = await w.entry({ en: { title: "Maybe" } });
    const manage = await w.manage();
    const id = await newRelease(manage, w, "Unsure");
    await add(w, a.instances.en, id);
    // The commit goes through, but every answer is lost on the way back.
    w.wire.loseAnswer = (url) => url.endsWith("/releases/commit");
    const run = await manage.post(
      `/installations/${w.installationId}/releases/${id}/run`,
      {},
    );
    equal(run.status, 303);
    const unknown = await release(w, id);
    equal(unknown.state, "unknown");
    // REL-012: the page says so in words.
    match(
      await (await manage.get(
        `/installations/${w.installationId}/releases/${id}`,
      )).text(),
      /Outcome unknown/,
    );
    // Stave committed it: the entry is live although the plugin could not know.
    equal((await w.states(a.groupId)).en, "published");
    w.wire.loseAnswer = undefined;
    const retry = await manage.post(
      `/installations/${w.installationId}/releases/${id}/retry`,
      {},
    );
    equal(retry.status, 303);
    const keys = new Set(w.wire.commits.map((c) => c.key));
    equal(keys.size, 1, "every send of the attempt carries rel:<id>:a1");
    equal([...keys][0], `rel:${id}:a1`);
    const recovered = await release(w, id);
    equal(recovered.state, "done");
    equal(recovered.last_code, "idempotent_replay");
  }));

Deno.test("a due release with a blocked item is marked blocked, sends nothing and is not started again (REL-005, REL-009, REL-025)", () =>
  withSchedulingWorld(async (w) => {
    const a = await w.entry({ en: { title: "Live" } });
    const manage = await w.manage();
    const id = await newRelease(manage, w, "Withdraw");
    // Publish it first through Stave, then plan its unpublish.
    const pub = await w.launch(a.instances.en);
    await pub.post(`/installations/${w.installationId}/schedules`, {
      kind: "publish",
      locale: "",
      local: "2026-11-23T10:30",
      timezone: "UTC",
      fold: "later",
    });
    w.clock.advance(30 * 60_000);
    await w.scheduler.tick();
    equal((await w.states(a.groupId)).en, "published");
    equal(
      (await add(w, a.instances.en, id, { transition: "unpublish:draft" }))
        .status,
      303,
    );
    await manage.post(
      `/installations/${w.installationId}/releases/${id}/schedule`,
      { local: "2026-11-23T11:00", timezone: "UTC", fold: "later" },
    );
    // Someone unpublishes it by hand before the release time: the unpublish is no longer offered.
    const { unpublishEntry } = await import("../../core/entries/mod.ts");
    const { personActor } = await import("../../core/access/actor.ts");
    const off = await unpublishEntry({
      db: w.services.db,
      clock: w.clock,
      siteId: w.siteId,
      actor: personActor(w.adminId),
    }, {
      group_id: a.groupId,
      expected_published_version_id: (await w.services.db.selectFrom("entries")
        .select("published_version_id").where("id", "=", a.instances.en)
        .executeTakeFirstOrThrow()).published_version_id,
      expected_workflow_revision: (await w.services.db
        .selectFrom("entry_groups").select("revision")
        .where("id", "=", a.groupId).executeTakeFirstOrThrow()).revision,
    });
    ok(off.ok, JSON.stringify(off));
    w.clock.advance(30 * 60_000);
    const report = await w.scheduler.tick();
    equal(report.releases.blocked, 1);
    equal(w.wire.commits.length, 0);
    const blocked = await release(w, id);
    equal(blocked.state, "scheduled");
    ok(blocked.blocked_at);
    // REL-009: a Blocked attempts receipt names the blocked item.
    const receipt = receiptOf(blocked) as {
      kind: string;
      items: { readiness: string }[];
    };
    equal(receipt.kind, "blocked");
    equal(
      receipt.items.map((i) => i.readiness).join(),
      "blocked",
    );
    w.clock.advance(5 * 60_000);
    equal((await w.scheduler.tick()).releases.blocked, 0);
    const page = await (await manage.get(
      `/installations/${w.installationId}/releases/${id}`,
    )).text();
    match(page, /blocked at its time/);
    match(page, /Blocked attempt at 2026-11-23 11:00 UTC/);
    // REL-025: Run now is disabled while the item is blocked.
    match(page, /<button type="submit" disabled>Run now<\/button>/);
    match(page, /Run now is off while 1\s*item\(s\) are blocked/);
    // REL-005: scheduling it again clears the blocked mark.
    const again = await manage.post(
      `/installations/${w.installationId}/releases/${id}/schedule`,
      { local: "2026-11-23T12:00", timezone: "UTC", fold: "later" },
    );
    equal(again.status, 303);
    const moved = await release(w, id);
    equal(moved.state, "scheduled");
    equal(moved.blocked_at, null);
    equal(moved.due_at!.toISOString(), "2026-11-23T12:00:00.000Z");
  }));
