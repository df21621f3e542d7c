// Outbound lifecycle notifications (spec 1 parts 2.9, 6, 7): queued in the database with each
// effect, delivered through the guarded fetch to the test plugin, retried by the part 7 rules,
// never sent twice by two drains at once.
import { deepEqual, equal, ok } from "node:assert/strict";
import { pluginCallOf } from "../../core/plugins/calls.ts";
import { drainNotifications } from "../../core/plugins/notifications.ts";
import { type PluginWorld, withPluginWorld } from "./world.ts";

function drain(w: PluginWorld) {
  return drainNotifications({
    db: w.services.db,
    now: () => w.clock.now(),
    call: pluginCallOf(w.services),
  });
}

async function rows(w: PluginWorld) {
  return await w.services.db.selectFrom("plugin_notifications").select([
    "status",
    "attempts",
    "last_code",
    "next_attempt_at",
  ]).where("site_id", "=", w.siteId).orderBy("created_at").execute();
}

Deno.test("a saved entry queues content.changed in its own transaction; a drain delivers it once, and again nothing", () =>
  withPluginWorld(async (w) => {
    const id = await w.install();
    const { groupId } = await w.entry({ en: { title: "Hello" } });
    // AUD-014: a content save queues one notification with the effect.
    const queued = await rows(w);
    equal(queued.length, 1);
    equal(queued[0].status, "pending");
    // Two drains at once: each row is claimed by one of them.
    const [a, b] = await Promise.all([drain(w), drain(w)]);
    equal(a.delivered + b.delivered, 1);
    equal(w.plugin.events.length, 1);
    const event = w.plugin.events[0] as Record<string, unknown>;
    deepEqual(
      [event.event, event.installation_id, event.group_id],
      ["content.changed", id, groupId],
    );
    ok(typeof event.notification_id === "string");
    equal((await rows(w))[0].status, "delivered");
    deepEqual(await drain(w), { delivered: 0, retrying: 0, failed: 0 });
    equal(w.plugin.events.length, 1);
  }));

Deno.test("a 503 is retried after its backoff and delivered later; a 400 fails for good (spec 1 part 7)", () =>
  withPluginWorld(async (w) => {
    await w.install();
    await w.entry({ en: { title: "Hello" } });
    w.plugin.behaviour.events = 503;
    deepEqual(await drain(w), { delivered: 0, retrying: 1, failed: 0 });
    const [waiting] = await rows(w);
    deepEqual([waiting.status, waiting.attempts, waiting.last_code], [
      "pending",
      1,
      "http_503",
    ]);
    ok(new Date(waiting.next_attempt_at) > w.clock.now());
    // Not due yet: nothing is sent.
    deepEqual(await drain(w), { delivered: 0, retrying: 0, failed: 0 });
    equal(w.plugin.events.length, 1);
    w.plugin.behaviour.events = 204;
    w.clock.advance(10_000);
    deepEqual(await drain(w), { delivered: 1, retrying: 0, failed: 0 });
    equal(w.plugin.events.length, 2);

    await w.entry({ en: { title: "Another" } });
    w.plugin.behaviour.events = 400;
    deepEqual(await drain(w), { delivered: 0, retrying: 0, failed: 1 });
    const last = (await rows(w)).at(-1)!;
    deepEqual([last.status, last.last_code], ["failed", "http_400"]);
  }));

Deno.test("retries stop at five attempts (retry_exhausted); a disabled installation's notifications fail as plugin_unauthorized", () =>
  withPluginWorld(async (w) => {
    const id = await w.install();
    await w.entry({ en: { title: "Hello" } });
    w.plugin.behaviour.events = 503;
    for (let attempt = 1; attempt < 5; attempt++) {
      equal((await drain(w)).retrying, 1, `attempt ${attempt}`);
      w.clock.advance(60_000);
    }
    deepEqual(await drain(w), { delivered: 0, retrying: 0, failed: 1 });
    deepEqual(
      [(await rows(w))[0].status, (await rows(w))[0].last_code],
      ["failed", "retry_exhausted"],
    );
    await w.entry({ en: { title: "Later" } });
    equal(
      (await w.admin("POST", `/api/plugins/${id}/disable`, {})).status,
      200,
    );
    w.plugin.behaviour.events = 204;
    const sent = w.plugin.events.length;
    deepEqual(await drain(w), { delivered: 0, retrying: 0, failed: 1 });
    equal((await rows(w)).at(-1)!.last_code, "plugin_unauthorized");
    equal(w.plugin.events.length, sent);
  }));

async function pendingCount(w: PluginWorld): Promise<number> {
  return (await rows(w)).length;
}

Deno.test("a plugin publish and a release each queue one notification per changed item; a refusal and a replay queue none (AUD-014, AUD-015)", () =>
  withPluginWorld(async (w) => {
    const id = await w.install();
    const { groupId, instances } = await w.entry({ en: { title: "Hello" } });
    const other = await w.entry({ en: { title: "Other" } });
    const delegation = await w.delegate(id);
    const read = async (instance: string) =>
      (await (await w.plugin.api(
        id,
        `/content/${instance}?delegation_id=${delegation}`,
      )).json()).data;
    const first = await read(instances.en);
    const saved = await pendingCount(w);
    const command = {
      kind: "publish",
      expected_current_version_id: first.current_version_id,
      expected_workflow_revision: first.workflow.revision,
      delegation_id: delegation,
    };
    const path = `/content/${instances.en}/transitions/published`;
    // AUD-015: a refused command (stale revision) queues nothing.
    const refused = await w.plugin.api(id, path, {
      body: { ...command, expected_workflow_revision: 99 },
      key: "refused",
    });
    equal((await refused.json()).outcome.code, "workflow_conflict");
    equal(await pendingCount(w), saved);
    // AUD-014: the applied publish queues one content.changed for the group.
    const applied = await w.plugin.api(id, path, { body: command, key: "k" });
    equal((await applied.json()).outcome.code, "transition_applied");
    const afterPublish = await w.services.db.selectFrom("plugin_notifications")
      .select("payload").where("site_id", "=", w.siteId)
      .orderBy("created_at").execute();
    equal(afterPublish.length, saved + 1);
    const payload = afterPublish.at(-1)!.payload as Record<string, unknown>;
    const parsed = typeof payload === "string" ? JSON.parse(payload) : payload;
    deepEqual([parsed.event, parsed.group_id], ["content.changed", groupId]);
    // AUD-015: the replay answers the first result and queues nothing.
    const replay = await w.plugin.api(id, path, { body: command, key: "k" });
    equal((await replay.json()).outcome.code, "idempotent_replay");
    equal(await pendingCount(w), saved + 1);
    // AUD-014: a release queues one per item it moved.
    const next = await read(other.instances.en);
    const release = await w.plugin.api(id, "/releases/commit", {
      body: {
        delegation_id: delegation,
        changes: [{
          instance_id: other.instances.en,
          kind: "publish",
          expected_current_version_id: next.current_version_id,
          expected_workflow_revision: next.workflow.revision,
        }],
      },
      key: "release",
    });
    equal((await release.json()).outcome.code, "release_applied");
    equal(await pendingCount(w), saved + 2);
  }));

Deno.test("notifications are delivered after the commit: the publish answers without calling the plugin, and a failing endpoint leaves it published (AUD-016)", () =>
  withPluginWorld(async (w) => {
    const id = await w.install();
    const { groupId, instances } = await w.entry({ en: { title: "Hello" } });
    const delegation = await w.delegate(id, instances.en);
    await drain(w);
    const sent = w.plugin.events.length;
    w.plugin.behaviour.events = 400;
    const read = (await (await w.plugin.api(
      id,
      `/content/${instances.en}?delegation_id=${delegation}`,
    )).json()).data;
    const applied = await w.plugin.api(
      id,
      `/content/${instances.en}/transitions/published`,
      {
        body: {
          kind: "publish",
          expected_current_version_id: read.current_version_id,
          expected_workflow_revision: read.workflow.revision,
          delegation_id: delegation,
        },
        key: "k",
      },
    );
    equal((await applied.json()).outcome.code, "transition_applied");
    equal(w.plugin.events.length, sent, "nothing sent inside the command");
    deepEqual(await drain(w), { delivered: 0, retrying: 0, failed: 1 });
    equal(w.plugin.events.length, sent + 1, "the endpoint was called");
    const published = await w.services.db.selectFrom("entries")
      .select("published_version_id").where("group_id", "=", groupId)
      .executeTakeFirstOrThrow();
    equal(published.published_version_id, read.current_version_id);
  }));
