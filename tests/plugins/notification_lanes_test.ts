// The notification pump at volume (spec 1 parts 6, 7; docs/plugins.md "Lifecycle notifications"):
// what a manifest asks for is all that is queued, each installation is served in a lane of its
// own, claims repeat until nothing is due (within a limit and a budget), and finished rows are
// pruned after a week.
import { deepEqual, equal, ok } from "node:assert/strict";
import { sql } from "kysely";
import { pluginCallOf } from "../../core/plugins/calls.ts";
import type { OutboundResult } from "../../core/plugins/outbound.ts";
import {
  DRAIN_CLAIM,
  drainNotifications,
  type DrainOptions,
  FINISHED_KEPT_MS,
  pruneNotifications,
} from "../../core/plugins/notifications.ts";
import type { PluginCall } from "../../core/plugins/calls.ts";
import { setModelFolder } from "../../core/models/mod.ts";
import {
  insertActiveInstallation,
  minimalManifest,
} from "../../core/plugins/_testing.ts";
import { type PluginWorld, withPluginWorld } from "./world.ts";

function drain(w: PluginWorld, options: DrainOptions = {}, call?: PluginCall) {
  return drainNotifications({
    db: w.services.db,
    now: () => w.clock.now(),
    call: call ?? pluginCallOf(w.services),
  }, options);
}

/** Queues `count` content notifications for an installation, one millisecond apart. */
async function queue(
  w: PluginWorld,
  installationId: string,
  count: number,
): Promise<void> {
  const at = w.clock.now().getTime() - count;
  const rows = Array.from({ length: count }, (_, i) => ({
    id: crypto.randomUUID(),
    site_id: w.siteId,
    installation_id: installationId,
    event: "content.changed",
    payload: JSON.stringify({ event: "content.changed", n: i }),
    status: "pending" as const,
    attempts: 0,
    next_attempt_at: new Date(at + i),
    last_code: null,
    created_at: new Date(at + i),
    updated_at: new Date(at + i),
  }));
  await w.services.db.insertInto("plugin_notifications").values(rows)
    .execute();
}

async function statuses(
  w: PluginWorld,
  installationId: string,
): Promise<Record<string, number>> {
  const rows = await w.services.db.selectFrom("plugin_notifications")
    .select("status").where("installation_id", "=", installationId).execute();
  const counts: Record<string, number> = {};
  for (const { status } of rows) counts[status] = (counts[status] ?? 0) + 1;
  return counts;
}

const answered = (status: number): OutboundResult => ({
  ok: true,
  status,
  headers: new Headers(),
  body: new Uint8Array(),
  address: "127.0.0.1",
});

// AUD-014: a plugin subscribes to the kinds it reads; a publish queues one notification for it.
Deno.test("a manifest's events choose what is queued: [] none, a list only its kinds, no key every kind (AUD-014)", () =>
  withPluginWorld(async (w) => {
    const count = async () =>
      (await w.services.db.selectFrom("plugin_notifications")
        .select("event").where("site_id", "=", w.siteId).execute())
        .map((r) => r.event);
    w.plugin.behaviour.subscribes = [];
    const id = await w.install();
    await w.entry({ en: { title: "Nobody listens" } });
    ok((await setModelFolder(modelCtx(w), w.modelId, "Desk")).ok);
    deepEqual(await count(), []);

    // The same installation, upgraded in place to a manifest asking for model changes only.
    await setEvents(w, id, ["model.changed"]);
    await w.entry({ en: { title: "Still nobody" } });
    ok((await setModelFolder(modelCtx(w), w.modelId, "Shelf")).ok);
    deepEqual(await count(), ["model.changed"]);

    await setEvents(w, id, null);
    await w.entry({ en: { title: "Everyone" } });
    deepEqual((await count()).sort(), ["content.changed", "model.changed"]);
  }));

const modelCtx = (w: PluginWorld) => ({
  db: w.services.db,
  clock: w.clock,
  siteId: w.siteId,
});

/** Sets (or, with null, removes) the stored manifest's `events`. */
async function setEvents(
  w: PluginWorld,
  installationId: string,
  events: string[] | null,
): Promise<void> {
  await sql`
    update plugin_installations set manifest = ${
    events === null
      ? sql`manifest - 'events'`
      : sql`jsonb_set(manifest, '{events}', ${JSON.stringify(events)}::jsonb)`
  }
    where id = ${installationId}
  `.execute(w.services.db);
}

// D18: the delivery pump, here and in the tests below.
Deno.test("a plugin that never answers holds back only its own notifications: each installation has a lane (D18)", () =>
  withPluginWorld(async (w) => {
    const stuck = await w.install();
    const other = await insertActiveInstallation(
      w.services.db,
      w.siteId,
      minimalManifest("http://other.test"),
    );
    // The stuck plugin's rows are the older ones: a drain in order of age alone would wait on them.
    await queue(w, stuck, 6);
    await queue(w, other, 30);
    let delivered = 0;
    const { promise: otherDone, resolve: release } = Promise.withResolvers<
      void
    >();
    let stuckCalls = 0;
    const call: PluginCall = async (request) => {
      if (request.url.startsWith("http://other.test/")) {
        if (++delivered === 30) release();
        return answered(204);
      }
      // Answers (as a timeout) only once the other plugin has all of its notifications.
      stuckCalls++;
      await otherDone;
      return { ok: false, code: "plugin_timeout", message: "no answer" };
    };
    // Guards the test against a pump that serves installations one after another: it would wait
    // on the stuck plugin for ever.
    let guard: ReturnType<typeof setTimeout> | undefined;
    const report = await Promise.race([
      drain(w, {}, call),
      new Promise<never>((_, reject) => {
        guard = setTimeout(
          () => reject(new Error("the stuck plugin held back the other")),
          30_000,
        );
      }),
    ]).finally(() => clearTimeout(guard));
    deepEqual(report, { delivered: 30, retrying: 6, failed: 0 });
    equal(stuckCalls, 6);
    deepEqual(await statuses(w, other), { delivered: 30 });
    deepEqual(await statuses(w, stuck), { pending: 6 });
  }));

Deno.test("a drain claims until nothing is due, within its limit; two drains at once send each notification once", () =>
  withPluginWorld(async (w) => {
    const id = await w.install();
    const many = DRAIN_CLAIM * 2 + 5;
    await queue(w, id, many);
    const [a, b] = await Promise.all([drain(w), drain(w)]);
    equal(a.delivered + b.delivered, many);
    equal(w.plugin.events.length, many);
    equal(
      new Set(w.plugin.events.map((e) => (e as { n: number }).n)).size,
      many,
    );
    // Oldest first within a claim.
    const first = w.plugin.events.slice(0, 3).map((e) =>
      (e as { n: number }).n
    );
    ok(first[0] < first[1] && first[1] < first[2], String(first));

    await queue(w, id, 30);
    deepEqual(await drain(w, { limit: 25 }), {
      delivered: 25,
      retrying: 0,
      failed: 0,
    });
    deepEqual(await drain(w, { limit: 25 }), {
      delivered: 5,
      retrying: 0,
      failed: 0,
    });
    deepEqual(await drain(w), { delivered: 0, retrying: 0, failed: 0 });
  }));

Deno.test("a drain stops claiming once its budget is spent, and leaves the rest due for the next", () =>
  withPluginWorld(async (w) => {
    const id = await w.install();
    await queue(w, id, DRAIN_CLAIM + 10);
    // Each send takes ten seconds of the clock; the first claim spends the 30 s budget.
    const call: PluginCall = (request) => {
      w.clock.advance(10_000);
      return pluginCallOf(w.services)(request);
    };
    deepEqual(await drain(w, { budgetMs: 30_000 }, call), {
      delivered: DRAIN_CLAIM,
      retrying: 0,
      failed: 0,
    });
    deepEqual(await statuses(w, id), { delivered: DRAIN_CLAIM, pending: 10 });
    deepEqual(await drain(w, { budgetMs: 30_000 }), {
      delivered: 10,
      retrying: 0,
      failed: 0,
    });
  }));

Deno.test("finished notifications are pruned a week after their last change, in batches; pending ones never", () =>
  withPluginWorld(async (w) => {
    const id = await w.install();
    await queue(w, id, 3);
    w.plugin.behaviour.events = 400;
    await drain(w, { limit: 1 });
    w.plugin.behaviour.events = 204;
    await drain(w, { limit: 1 });
    deepEqual(await statuses(w, id), { failed: 1, delivered: 1, pending: 1 });
    const finishedAt = w.clock.now().getTime();
    // The last moment they are kept, then the first they are not.
    equal(
      await pruneNotifications(
        w.services.db,
        new Date(finishedAt + FINISHED_KEPT_MS),
      ),
      0,
    );
    // A batch of one: the pruning goes on until a batch comes back short.
    equal(
      await pruneNotifications(
        w.services.db,
        new Date(finishedAt + FINISHED_KEPT_MS + 1),
        1,
      ),
      2,
    );
    deepEqual(await statuses(w, id), { pending: 1 });
  }));
