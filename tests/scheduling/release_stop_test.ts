// Stopping a running release through the plugin's release page against a real Stave (spec 1
// parts 3.3 and 4.4): a stop while the commit waits to be resent sends nothing more, a command
// already in flight lands and is recorded as it landed, a release that is not running refuses
// the stop, and one release passes through all seven states (REL-004, REL-013, SUI-013).
import { equal, match, ok } from "node:assert/strict";
import { receiptOf } from "../../plugins/scheduling/core/releases.ts";
import type { SchedulingWorld } from "./world.ts";
import { withSchedulingWorld } from "./world.ts";
import {
  addToRelease as add,
  isCommit,
  newRelease,
  refuseFirstCommit,
  releaseAction as act,
  releaseItemRows as items,
  releaseRow,
  staleCommitAnswer,
} from "./release_support.ts";

/** The release's row with its receipt read. */
async function release(w: SchedulingWorld, id: string) {
  const row = await releaseRow(w, id);
  return { ...row, receipt: receiptOf(row) };
}

function unavailable() {
  return Response.json({
    outcome: { code: "temporary_failure", message: "down", retry: true },
  }, { status: 503 });
}

Deno.test("stop while the commit waits to be resent after a 503 sends nothing more; the release and its items are cancelled, and Retry first repeats the command under the same key (REL-013, REL-014, SUI-013)", () =>
  withSchedulingWorld(async (w) => {
    const a = await w.entry({ en: { title: "Halted" } });
    const manage = await w.manage();
    const id = await newRelease(manage, w, "Halted");
    await add(w, a.instances.en, id);
    const path = `/installations/${w.installationId}/releases/${id}`;
    w.wire.intercept = (url) =>
      isCommit(url) && w.wire.commits.length === 1 ? unavailable() : undefined;
    const during: Record<string, unknown> = {};
    // The first send answered 503; while the runner waits to resend, the person stops it.
    w.wire.waiting = async () => {
      w.wire.waiting = undefined;
      during.state = (await release(w, id)).state;
      during.page = await (await manage.get(path)).text();
      // SUI-019: without the session's CSRF token the stop is refused and changes nothing.
      const forged = await act(manage, w, id, "cancel", { _csrf: "" });
      during.forged = forged.status;
      during.forgedText = await forged.text();
      during.afterForged = (await release(w, id)).state;
      const stop = await act(manage, w, id, "cancel");
      during.stop = stop.status;
      during.stopLocation = stop.headers.get("location");
      await stop.body?.cancel();
    };
    const ran = await act(manage, w, id, "run");
    equal(ran.status, 303);
    match(ran.headers.get("location")!, /done=cancelled$/);
    equal(during.state, "running");
    match(
      String(during.page),
      /<button type="submit" class="secondary">Stop<\/button>/,
    );
    equal(during.forged, 403);
    match(String(during.forgedText), /Form expired/);
    equal(during.afterForged, "running");
    equal(during.stop, 303);
    match(String(during.stopLocation), /done=stopped$/);

    // Unsent work is cancelled: the resend never went out, and Stave changed nothing.
    equal(w.wire.commits.length, 1);
    const row = await release(w, id);
    equal(row.state, "cancelled");
    equal(row.last_code, "release_stopped");
    equal(row.receipt?.kind, "stopped");
    equal(row.receipt?.key, `rel:${id}:a1`);
    equal(
      row.receipt?.outcome,
      "unknown",
      "a 503 does not establish the outcome",
    );
    equal(row.receipt?.code, "temporary_failure");
    const [item] = await items(w, id);
    equal(item.status, "cancelled");
    equal(item.last_code, "release_stopped");
    equal((await w.states(a.groupId)).en, "draft");
    const page = await (await manage.get(path)).text();
    match(page, />Cancelled</);
    match(page, /Stopped at 2026-11-23 \d\d:\d\d UTC by admin@schedules\.test/);
    match(page, /\(release_stopped\)/);
    match(page, /<button type="submit">Retry<\/button>/);

    // REL-014: the command may have landed, so Retry repeats it under the same key first.
    const retry = await act(manage, w, id, "retry");
    equal(retry.status, 303);
    equal(w.wire.commits.length, 2);
    equal(w.wire.commits[1].key, `rel:${id}:a1`);
    equal(
      JSON.stringify(w.wire.commits[1].body),
      JSON.stringify(w.wire.commits[0].body),
    );
    equal((await release(w, id)).state, "done");
    equal((await w.states(a.groupId)).en, "published");
  }));

Deno.test("a command in flight when the release is stopped commits anyway: the release stays cancelled with the commit's receipt, and Retry has nothing left to run (REL-013, SUI-012, SUI-013)", () =>
  withSchedulingWorld(async (w) => {
    const a = await w.entry({ en: { title: "Landed" } });
    const manage = await w.manage();
    const id = await newRelease(manage, w, "Landed");
    await add(w, a.instances.en, id);
    const path = `/installations/${w.installationId}/releases/${id}`;
    const during: Record<string, unknown> = {};
    // Stave has committed; its answer is held until the person has stopped the release.
    w.wire.answered = async (url) => {
      if (!isCommit(url)) return;
      w.wire.answered = undefined;
      during.live = (await w.states(a.groupId)).en;
      const stop = await act(manage, w, id, "cancel");
      during.stop = stop.status;
      await stop.body?.cancel();
      during.stopped = (await release(w, id)).state;
    };
    const ran = await act(manage, w, id, "run");
    equal(ran.status, 303);
    match(ran.headers.get("location")!, /done=cancelled$/);
    equal(during.live, "published");
    equal(during.stop, 303);
    equal(during.stopped, "cancelled");

    // What really happened is recorded, and not claimed to be reversed.
    equal(w.wire.commits.length, 1);
    const row = await release(w, id);
    equal(row.state, "cancelled");
    equal(row.last_code, "release_applied");
    equal(row.receipt?.kind, "applied");
    equal(row.receipt?.key, `rel:${id}:a1`);
    ok(row.receipt?.stopped_at);
    const [item] = await items(w, id);
    equal(item.status, "done");
    const live = await w.services.db.selectFrom("entries")
      .select("published_version_id").where("id", "=", a.instances.en)
      .executeTakeFirstOrThrow();
    ok(live.published_version_id);
    equal(item.published_version_id, live.published_version_id);
    equal(
      (row.receipt?.items as { published_version_id: string }[])[0]
        .published_version_id,
      live.published_version_id,
    );
    const page = await (await manage.get(path)).text();
    match(page, />Cancelled</);
    match(
      page,
      /Committed at 2026-11-23 \d\d:\d\d UTC, after the stop at 2026-11-23 \d\d:\d\d UTC: the command was already in flight and a stop cannot reverse it/,
    );
    match(page, /\(release_applied\)/);
    equal(/>Retry</.test(page), false, "nothing is left to run");
    match(
      await (await manage.get(`/installations/${w.installationId}/releases`))
        .text(),
      /committed before the stop/,
    );
    const retry = await act(manage, w, id, "retry");
    equal(retry.status, 409);
    match(await retry.text(), /release_empty/);
    equal(w.wire.commits.length, 1);
    equal((await release(w, id)).state, "cancelled");
  }));

Deno.test("stop is refused by name for a release that is not running: a draft, a failed and a done release stay as they are (REL-013, SUI-013)", () =>
  withSchedulingWorld(async (w) => {
    const a = await w.entry({ en: { title: "Settled" } });
    const manage = await w.manage();
    const id = await newRelease(manage, w, "Settled");
    await add(w, a.instances.en, id);
    const refusedIn = async (state: string) => {
      const before = await release(w, id);
      equal(before.state, state);
      const stop = await act(manage, w, id, "cancel");
      equal(stop.status, 409, state);
      match(await stop.text(), /release_locked/);
      const after = await release(w, id);
      equal(after.state, state);
      equal(after.last_code, before.last_code);
      equal(JSON.stringify(after.receipt), JSON.stringify(before.receipt));
    };
    await refusedIn("draft");
    refuseFirstCommit(w);
    equal((await act(manage, w, id, "run")).status, 303);
    await refusedIn("failed");
    equal((await act(manage, w, id, "retry")).status, 303);
    await refusedIn("done");
    equal(w.wire.commits.length, 2);
    equal((await items(w, id))[0].status, "done");
    const missing = await act(
      manage,
      w,
      "00000000-0000-4000-8000-000000000000",
      "cancel",
    );
    equal(missing.status, 404);
    match(await missing.text(), /not_found/);
  }));

Deno.test("one release passes through all seven states: draft, scheduled, running, cancelled, failed, unknown and done (REL-004, REL-013, SUI-013)", () =>
  withSchedulingWorld(async (w) => {
    const a = await w.entry({ en: { title: "Journey" } });
    const manage = await w.manage();
    const id = await newRelease(manage, w, "Journey");
    await add(w, a.instances.en, id);
    const seen: string[] = [];
    const note = async () => {
      seen.push((await release(w, id)).state);
    };
    await note(); // draft
    equal(
      (await act(manage, w, id, "schedule", {
        local: "2026-11-24T09:00",
        timezone: "UTC",
        fold: "later",
      })).status,
      303,
    );
    await note(); // scheduled

    // Run now sends once (503); while it waits to resend it is running, and is stopped.
    w.wire.intercept = (url) =>
      isCommit(url) && w.wire.commits.length === 1 ? unavailable() : undefined;
    w.wire.waiting = async () => {
      w.wire.waiting = undefined;
      await note(); // running
      const stop = await act(manage, w, id, "cancel");
      equal(stop.status, 303);
      await stop.body?.cancel();
    };
    equal((await act(manage, w, id, "run")).status, 303);
    await note(); // cancelled
    equal(w.wire.commits.length, 1);

    // Retry repeats the stopped command; Stave refuses it whole.
    w.wire.intercept = (url) => isCommit(url) ? staleCommitAnswer() : undefined;
    equal((await act(manage, w, id, "retry")).status, 303);
    await note(); // failed

    // Retry starts attempt 2; Stave commits it but every answer is lost.
    w.wire.intercept = undefined;
    w.wire.loseAnswer = isCommit;
    equal((await act(manage, w, id, "retry")).status, 303);
    await note(); // unknown
    equal((await w.states(a.groupId)).en, "published");

    // Retry recovers the unknown outcome under the same key.
    w.wire.loseAnswer = undefined;
    equal((await act(manage, w, id, "retry")).status, 303);
    await note(); // done
    equal(
      seen.join(),
      "draft,scheduled,running,cancelled,failed,unknown,done",
    );
    equal(
      w.wire.commits.map((c) => c.key).join(),
      [
        `rel:${id}:a1`,
        `rel:${id}:a1`,
        `rel:${id}:a2`,
        `rel:${id}:a2`,
        `rel:${id}:a2`,
      ].join(),
    );
    equal((await release(w, id)).last_code, "idempotent_replay");
  }));
