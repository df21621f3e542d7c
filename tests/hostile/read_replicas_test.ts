// Read replicas (issue 47 item 2) against a real streaming replica made on this machine
// (`pg_basebackup -R` into a second cluster, tests/support/replica.ts): public reads run on the
// replica, a replica behind the lag bound is skipped, a sync checkpoint newer than the replica is
// answered by the primary, and a replica that goes away fails no read.
import { deepEqual, equal, ok } from "node:assert/strict";
import { personActor } from "../../core/access/actor.ts";
import { ManualClock } from "../../core/clock.ts";
import { loadConfig } from "../../core/config.ts";
import { openMigratedDatabase } from "../../core/db/open_migrated.ts";
import { ReadReplicas } from "../../core/db/read_replicas.ts";
import { modelValidator } from "../../core/entries/model_validator.ts";
import { publishEntry, saveEntry } from "../../core/entries/mod.ts";
import type { LifecycleContext } from "../../core/entries/types.ts";
import { createApp } from "../../core/server.ts";
import type { Services } from "../../core/services.ts";
import { TEST_CLOCK_START } from "../support/app.ts";
import { siteWithPosts } from "../support/entries.ts";
import { canRunClusters, startStreamingPair } from "../support/replica.ts";

const HOST = "replica.test";

Deno.test({
  name:
    "DATABASE_READ_URL on a real streaming replica: public reads use it, a lagging one is skipped, a newer sync checkpoint reads the primary, a replica that stops fails no read (issue 47 item 2)",
  // A PostgreSQL feature, run in the PostgreSQL run, on a machine that can start clusters.
  ignore: !Deno.env.get("DATABASE_URL") || !canRunClusters(),
  sanitizeResources: false,
  sanitizeOps: false,
  async fn(t) {
    const pair = await startStreamingPair();
    const { db: primary } = await openMigratedDatabase({
      url: pair.primaryUrl,
    });
    const kv = await Deno.openKv(":memory:");
    const clock = new ManualClock(TEST_CLOCK_START);
    const base: Services = {
      config: loadConfig({
        DEMO_SITE: "false",
        DATABASE_URL: pair.primaryUrl,
        // Kept answers would hide which database answered.
        PUBLIC_ANSWER_CACHE_MB: "0",
      }),
      db: primary,
      kv,
      clock,
      log: () => {},
      assets: { boot: "", chunks: {} },
    };
    // Checked before every read, so each step sees the replica as it is now.
    const fresh = new ReadReplicas(primary, [pair.replicaUrl], {
      maxLagMs: 60_000,
      recheckMs: 0,
    });
    const strict = new ReadReplicas(primary, [pair.replicaUrl], {
      maxLagMs: 0,
      recheckMs: 0,
    });
    // Trusts its last check for an hour: a replica stopping in between is met by a read itself.
    const trusting = new ReadReplicas(primary, [pair.replicaUrl], {
      maxLagMs: 60_000,
      recheckMs: 3_600_000,
    });
    const appOf = (reads?: ReadReplicas) => createApp({ ...base, reads });
    const get = async (reads: ReadReplicas | undefined, path: string) => {
      const answer = await appOf(reads).request(path, {
        headers: { host: HOST },
      });
      const body = await answer.json();
      equal(answer.status, 200, JSON.stringify(body));
      return body;
    };
    try {
      const site = await siteWithPosts(base, HOST, "admin@replica.test");
      const ctx: LifecycleContext = {
        db: primary,
        clock,
        siteId: site.siteId,
        actor: personActor(site.adminId),
        validate: modelValidator(),
      };
      let current: { group: string; version: string | null } = {
        group: "",
        version: null,
      };
      const publishTitle = async (title: string) => {
        const saved = await saveEntry(ctx, {
          ...(current.group ? { group_id: current.group } : {}),
          model_id: site.modelId,
          locale: "en",
          slug: "hello",
          fields: { title },
          expected_current_version_id: current.version,
        });
        ok(saved.ok, JSON.stringify(saved));
        const published = await publishEntry(ctx, {
          group_id: saved.group_id,
          expected_current_version_id: saved.current_version_id,
          expected_workflow_revision: saved.revision,
        });
        ok(published.ok, JSON.stringify(published));
        current = { group: saved.group_id, version: saved.current_version_id };
      };
      // Follows the snapshot's cursors to the checkpoint that continues with later changes.
      const checkpointVia = async (reads: ReadReplicas | undefined) => {
        let page = await get(reads, "/v1/_sync?model=posts");
        while (!page.checkpoint) {
          ok(page.next_cursor, JSON.stringify(page));
          page = await get(
            reads,
            `/v1/_sync?cursor=${encodeURIComponent(page.next_cursor)}`,
          );
        }
        return page.checkpoint as string;
      };
      const titleVia = async (reads: ReadReplicas | undefined) =>
        (await get(reads, "/v1/posts/hello")).data.fields.title as string;

      await publishTitle("First");
      await pair.caughtUp();
      // The sync checkpoint a client holds from before the replica falls behind.
      const early = await checkpointVia(fresh);

      await t.step("a public read runs on the replica", async () => {
        equal(await titleVia(fresh), "First");
        deepEqual((await fresh.states()).map((s) => s.reason), ["ok"]);
        await pair.pauseReplay();
        await publishTitle("Second");
        // The primary has the new title; the replica, not replaying, still answers the old one.
        equal(await titleVia(undefined), "Second");
        equal(await titleVia(fresh), "First");
      });

      await t.step(
        "a replica further behind than DATABASE_READ_MAX_LAG_MS is skipped: the primary answers",
        async () => {
          equal(await titleVia(strict), "Second");
          const [state] = await strict.states();
          equal(state.reason, "lagging");
          ok(state.lagMs > 0);
        },
      );

      await t.step(
        "a sync checkpoint newer than the replica is answered by the primary; an older one by the replica",
        async () => {
          // Issued by the primary after "Second": the paused replica has not replayed it.
          const newer = await checkpointVia(undefined);
          await publishTitle("Third");
          const after = await get(
            fresh,
            `/v1/_sync?cursor=${encodeURIComponent(newer)}`,
          );
          deepEqual(
            after.data.map((i: { fields: { title: string } }) =>
              i.fields.title
            ),
            ["Third"],
            "the change after the checkpoint, which only the primary has",
          );
          // The early checkpoint names nothing the replica lacks: it answers what it has.
          const old = await get(
            fresh,
            `/v1/_sync?cursor=${encodeURIComponent(early)}`,
          );
          deepEqual(old.data, [], "the replica has replayed nothing since");
        },
      );

      await t.step(
        "a replica that stops fails no read: reads go to the primary, and back once it returns",
        async () => {
          await pair.resumeReplay();
          await pair.caughtUp();
          equal(await titleVia(trusting), "Third", "checked once, while up");
          await pair.stopReplica();
          // Still trusted as up: each read meets the stopped replica and runs on the primary.
          for (let i = 0; i < 5; i++) equal(await titleVia(trusting), "Third");
          for (let i = 0; i < 5; i++) equal(await titleVia(fresh), "Third");
          deepEqual((await fresh.states()).map((s) => s.reason), ["down"]);
          await publishTitle("Fourth");
          equal(await titleVia(fresh), "Fourth");
          await pair.startReplica();
          await pair.caughtUp();
          deepEqual((await fresh.states()).map((s) => s.reason), ["ok"]);
          await pair.pauseReplay();
          await publishTitle("Fifth");
          equal(await titleVia(fresh), "Fourth", "the replica answers again");
          await pair.resumeReplay();
        },
      );
    } finally {
      await fresh.close();
      await strict.close();
      await trusting.close();
      kv.close();
      await primary.destroy();
      await pair.close();
    }
  },
});
