// `deno task bench:notifications`: the lifecycle-notification pump at volume. INSTALLATIONS sites
// (default 20), each with the example plugin installed and PER notifications due (default 100),
// drained through the guarded fetch to the plugin on 127.0.0.1 until none is due; then the same
// again with one more installation whose plugin accepts connections and never answers, queued
// first. Reports drains, time and CPU per notification. With DATABASE_URL on a scratch
// PostgreSQL database (dropped afterwards), else on PGlite in this process.
// BENCH_NOTIFY_LIMIT caps each drain, as a minute's tick once did at 200.
import { openServices } from "../core/boot.ts";
import { loadConfig } from "../core/config.ts";
import type { Db } from "../core/db/database.ts";
import {
  insertActiveInstallation,
  minimalManifest,
} from "../core/plugins/_testing.ts";
import { pluginCallOf } from "../core/plugins/calls.ts";
import { drainNotifications } from "../core/plugins/notifications.ts";
import { startExamplePlugin } from "../plugins/testing/plugin.ts";
import { pluginSite } from "./plugin_sites.ts";
import { cpuTicks, postgresTicks } from "./proc.ts";
import { openScratchDatabase } from "./scratch_db.ts";

const INSTALLATIONS = Number(Deno.env.get("BENCH_NOTIFY_INSTALLATIONS") ?? 20);
const PER = Number(Deno.env.get("BENCH_NOTIFY_PER") ?? 100);
const LIMIT = Deno.env.get("BENCH_NOTIFY_LIMIT");
const onPostgres = Deno.env.get("DATABASE_URL") !== undefined;

const plugin = await startExamplePlugin();
// Accepts connections and never answers: each call to it ends at the call's time limit.
const silent = Deno.listen({ hostname: "127.0.0.1", port: 0 });
const silentOrigin = `http://127.0.0.1:${(silent.addr as Deno.NetAddr).port}`;
const held: Deno.Conn[] = [];
(async () => {
  for await (const conn of silent) held.push(conn);
})();

const config = {
  DEMO_SITE: "false",
  LOG_REQUESTS: "false",
  ENVIRONMENT: "development",
  PLUGIN_DEV_ORIGINS: `${plugin.origin},${silentOrigin}`,
};

async function openDb(): Promise<{ db: Db; close(): Promise<void> }> {
  if (onPostgres) {
    const scratch = await openScratchDatabase(
      "stave_bench_notify",
      "the notification benchmark",
    );
    return { db: scratch.db, close: () => scratch.drop() };
  }
  const dir = await Deno.makeTempDir({ prefix: "stave-bench-notify-" });
  const opened = await openServices(loadConfig({ ...config, DATA_DIR: dir }), {
    buildIslands: false,
  });
  return {
    db: opened.services.db,
    close: async () => {
      await opened.close();
      await Deno.remove(dir, { recursive: true });
    },
  };
}

const { db, close } = await openDb();
const call = pluginCallOf({ config: loadConfig(config) });

/** Queues `count` due notifications for an installation, older than any queued before. */
async function queue(
  siteId: string,
  installationId: string,
  count: number,
  ageMs: number,
): Promise<void> {
  // Every row due already: the last one a millisecond ago.
  const at = Date.now() - ageMs - count;
  for (let from = 0; from < count; from += 500) {
    const rows = Array.from(
      { length: Math.min(500, count - from) },
      (_, i) => ({
        id: crypto.randomUUID(),
        site_id: siteId,
        installation_id: installationId,
        event: "content.changed",
        payload: JSON.stringify({
          event: "content.changed",
          group_id: crypto.randomUUID(),
          model_id: "bench",
          revision: from + i,
          deleted: false,
          trashed: false,
        }),
        status: "pending" as const,
        attempts: 0,
        next_attempt_at: new Date(at + from + i),
        last_code: null,
        created_at: new Date(at + from + i),
        updated_at: new Date(at + from + i),
      }),
    );
    await db.insertInto("plugin_notifications").values(rows).execute();
  }
}

interface Round {
  drains: number;
  ms: number;
  /** Milliseconds until the answering plugin had every one of its notifications. */
  healthyMs: number;
  delivered: number;
  retrying: number;
  failed: number;
  ownTicks: number;
  pgTicks: number | null;
}

/** Drains until nothing is due, as ticks would, and measures. */
async function drainAll(expectHealthy: number): Promise<Round> {
  const seen = plugin.events.length;
  const own0 = await cpuTicks(Deno.pid) ?? 0;
  const pg0 = onPostgres ? await postgresTicks() : null;
  const started = performance.now();
  let healthyMs = NaN;
  const watch = setInterval(() => {
    if (
      Number.isNaN(healthyMs) && plugin.events.length - seen >= expectHealthy
    ) {
      healthyMs = performance.now() - started;
    }
  }, 50);
  const round: Round = {
    drains: 0,
    ms: 0,
    healthyMs: 0,
    delivered: 0,
    retrying: 0,
    failed: 0,
    ownTicks: 0,
    pgTicks: null,
  };
  for (;;) {
    const done = await drainNotifications({ db, now: () => new Date(), call }, {
      limit: LIMIT === undefined ? undefined : Number(LIMIT),
    });
    round.drains++;
    round.delivered += done.delivered;
    round.retrying += done.retrying;
    round.failed += done.failed;
    if (done.delivered + done.retrying + done.failed === 0) break;
    const due = await db.selectFrom("plugin_notifications").select("id")
      .where("status", "=", "pending").where(
        "next_attempt_at",
        "<=",
        new Date(),
      )
      .limit(1).execute();
    if (due.length === 0) break;
  }
  clearInterval(watch);
  round.ms = performance.now() - started;
  round.healthyMs = Number.isNaN(healthyMs) ? round.ms : healthyMs;
  round.ownTicks = (await cpuTicks(Deno.pid) ?? 0) - own0;
  if (pg0) {
    const pg1 = await postgresTicks();
    round.pgTicks = [...pg1].reduce(
      (s, [pid, n]) => s + n - (pg0.get(pid) ?? 0),
      0,
    );
  }
  return round;
}

function report(title: string, round: Round, sent: number): string {
  const per = (ticks: number) => (ticks * 10 / sent).toFixed(2);
  return [
    title,
    `  drains:          ${round.drains}${
      LIMIT === undefined ? "" : ` (at most ${LIMIT} each)`
    }`,
    `  delivered:       ${round.delivered}, retrying ${round.retrying}, failed ${round.failed}`,
    `  time:            ${
      (round.ms / 1000).toFixed(2)
    } s; the answering plugin had all of its in ${
      (round.healthyMs / 1000).toFixed(2)
    } s (${(sent / (round.healthyMs / 1000)).toFixed(0)} a second)`,
    `  this process:    ${per(round.ownTicks)} ms of CPU per notification`,
    ...(round.pgTicks === null ? [] : [
      `  PostgreSQL:      ${per(round.pgTicks)} ms of CPU per notification`,
    ]),
  ].join("\n");
}

try {
  console.log(
    `Setting up ${INSTALLATIONS} sites with the example plugin and ${
      INSTALLATIONS * PER
    } notifications…`,
  );
  const sites = [];
  for (let n = 0; n < INSTALLATIONS; n++) {
    sites.push(
      await pluginSite(db, {
        name: "notify",
        n,
        call,
        serviceUrl: "http://127.0.0.1:9",
        manifestUrl: plugin.manifestUrl,
        activationCode: await plugin.issueCode(),
        capabilities: ["content:read"],
      }),
    );
  }
  for (const site of sites) {
    await queue(site.siteId, site.installationId, PER, 0);
  }
  const healthy = INSTALLATIONS * PER;
  const first = await drainAll(healthy);
  console.log(`\n${report("Every plugin answers (204):", first, healthy)}`);

  // A second plugin on the first site that never answers, its notifications the oldest due.
  const stuck = await insertActiveInstallation(
    db,
    sites[0].siteId,
    minimalManifest(silentOrigin),
  );
  await queue(sites[0].siteId, stuck, 20, 60_000);
  for (const site of sites) {
    await queue(site.siteId, site.installationId, PER, 0);
  }
  const second = await drainAll(healthy);
  console.log(
    `\n${
      report(
        "One more plugin never answers (20 notifications, queued first):",
        second,
        healthy,
      )
    }`,
  );
  console.log(
    `\nengine: ${onPostgres ? "PostgreSQL" : "PGlite, in this process"}`,
  );
} finally {
  silent.close();
  for (const conn of held) conn.close();
  await plugin.close();
  await close();
}
