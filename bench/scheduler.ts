// `deno task bench:scheduler`: one scheduler tick against the real service. INSTALLATIONS sites
// (default 100), each with the scheduling plugin installed and 20 due schedules; reports how long
// one tick takes to send all 2,000 pinned publishes through /api/plugin/v1, and memory.
// With DATABASE_URL the service runs as its own process (bench/serve.ts) on a scratch database
// that is dropped afterwards, and the plugin runs in this process: two services on two cores, as
// deployed. Without it both run in this process on PGlite (one session). The plugin reaches the
// service only over HTTP with its tokens.
import { sql } from "kysely";
import { personActor } from "../core/access/actor.ts";
import { openServices } from "../core/boot.ts";
import { systemClock } from "../core/clock.ts";
import { loadConfig } from "../core/config.ts";
import type { Db } from "../core/db/database.ts";
import { modelValidator, saveEntry } from "../core/entries/mod.ts";
import { pluginCallOf } from "../core/plugins/calls.ts";
import { createApp } from "../core/server.ts";
import { startScheduler } from "../plugins/scheduling/server.ts";
import { pluginSite } from "./plugin_sites.ts";
import { openScratchDatabase } from "./scratch_db.ts";
import { cpuTicks } from "./proc.ts";
import { startService } from "./service.ts";

// `deno task bench` runs this after bench/main.ts; a BENCH_ONLY run that names other scenarios
// skips it.
const benchOnly = (Deno.env.get("BENCH_ONLY") ?? "").split(",").filter((w) =>
  w
);
if (
  benchOnly.length > 0 && !benchOnly.some((w) => "scheduler tick".includes(w))
) {
  Deno.exit(0);
}

const INSTALLATIONS = Number(Deno.env.get("BENCH_SCHED_INSTALLATIONS") ?? 100);
const PER_INSTALLATION = 20;
const onPostgres = Deno.env.get("DATABASE_URL") !== undefined;

// The scheduler may call the service's origin once it is known.
const servicePolicy = { development: true, devOrigins: [] as string[] };
const kv = await Deno.openKv(":memory:");
const scheduler = await startScheduler({
  adminSecret: "bench-operator-secret",
  tokenKey: crypto.getRandomValues(new Uint8Array(32)),
  database: { memory: true },
  kv,
  servicePolicy,
});

/**
 * CPU ticks of the PostgreSQL backends serving the scratch database, by process id, when the
 * server runs on this machine (its processes are in /proc); null otherwise.
 */
async function backendTicks(db: Db): Promise<Map<number, number> | null> {
  const host = new URL(Deno.env.get("DATABASE_URL") ?? "").hostname;
  if (!["127.0.0.1", "localhost", "[::1]", ""].includes(host)) return null;
  const rows = await sql<{ pid: number }>`select pid from pg_stat_activity
    where datname = current_database() and pid <> pg_backend_pid()`.execute(db);
  const ticks = new Map<number, number>();
  for (const { pid } of rows.rows) {
    const n = await cpuTicks(pid);
    if (n !== null) ticks.set(pid, n);
  }
  return ticks;
}

/** The service under test, and how this process reaches its database. */
interface Service {
  db: Db;
  origin: string;
  pid: number | null;
  close(): Promise<void>;
}

async function openService(): Promise<Service> {
  if (onPostgres) {
    const scratch = await openScratchDatabase(
      "stave_bench_sched",
      "the scheduler benchmark",
    );
    const process = await startService(scratch.url, {
      ENVIRONMENT: "development",
      PLUGIN_DEV_ORIGINS: scheduler.origin,
    });
    return {
      db: scratch.db,
      origin: process.origin,
      pid: process.pid,
      close: async () => {
        await process.stop();
        await scratch.drop();
      },
    };
  }
  const free = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (free.addr as Deno.NetAddr).port;
  free.close();
  const dir = await Deno.makeTempDir({ prefix: "stave-bench-sched-" });
  const config = loadConfig({
    DATA_DIR: dir,
    DEMO_SITE: "false",
    LOG_REQUESTS: "false",
    PORT: String(port),
    PUBLIC_URL: `http://127.0.0.1:${port}`,
    ENVIRONMENT: "development",
    PLUGIN_DEV_ORIGINS: scheduler.origin,
  });
  const opened = await openServices(config, { buildIslands: false });
  const server = Deno.serve(
    { port, hostname: "127.0.0.1", onListen: () => {} },
    createApp(opened.services).fetch,
  );
  return {
    db: opened.services.db,
    origin: `http://127.0.0.1:${port}`,
    pid: null,
    close: async () => {
      await server.shutdown();
      await opened.close();
      await Deno.remove(dir, { recursive: true });
    },
  };
}

const service = await openService();
servicePolicy.devOrigins.push(service.origin);
const { db } = service;
// This process installs the plugin, so its own outbound policy must reach the plugin.
const call = pluginCallOf({
  config: loadConfig({
    DEMO_SITE: "false",
    ENVIRONMENT: "development",
    PLUGIN_DEV_ORIGINS: scheduler.origin,
  }),
});

try {
  console.log(
    `Setting up ${INSTALLATIONS} sites, installations and ${
      INSTALLATIONS * PER_INSTALLATION
    } entries…`,
  );
  const setupStarted = performance.now();
  const dueAt = new Date(Math.floor(Date.now() / 60_000) * 60_000 - 60_000);
  for (let i = 0; i < INSTALLATIONS; i++) {
    const site = await pluginSite(db, {
      name: "sched",
      n: i,
      call,
      serviceUrl: service.origin,
      manifestUrl: scheduler.manifestUrl,
      activationCode: await scheduler.issueCode(),
      capabilities: ["content:read", "workflow:read", "workflow:publish"],
    });
    const ctx = { db, clock: systemClock, siteId: site.siteId };
    for (let n = 0; n < PER_INSTALLATION; n++) {
      const saved = await saveEntry({
        ...ctx,
        actor: personActor(site.userId),
        validate: modelValidator(),
      }, {
        model_id: site.modelId,
        locale: "en",
        slug: `post-${n}`,
        fields: { title: `Post ${n}` },
        expected_current_version_id: null,
      });
      if (!saved.ok) throw new Error(saved.code);
      await scheduler.db.insertInto("schedules").values({
        id: crypto.randomUUID(),
        installation_id: site.installationId,
        instance_id: saved.instances[0].entry_id,
        group_id: saved.group_id,
        model_id: site.modelId,
        title: `Post ${n}`,
        kind: "publish",
        target_state: "published",
        pinned_version_id: saved.current_version_id,
        expected_workflow_revision: saved.revision,
        locale: "",
        local_datetime: dueAt.toISOString().slice(0, 16),
        timezone: "UTC",
        fold: "later",
        due_at: dueAt,
        status: "pending",
        next_attempt_at: dueAt,
        revision: 1,
        delegation_id: site.delegationId,
        requester_email: site.email,
        created_at: new Date(),
        updated_at: new Date(),
      }).execute();
    }
  }
  console.log(
    `Set up in ${((performance.now() - setupStarted) / 1000).toFixed(1)} s`,
  );

  const before = Deno.memoryUsage();
  const pg0 = onPostgres ? await backendTicks(db) : null;
  const cpu0 = service.pid === null ? null : await cpuTicks(service.pid);
  const own0 = await cpuTicks(Deno.pid);
  const started = performance.now();
  const report = await scheduler.tick();
  const tickMs = performance.now() - started;
  const cpu1 = service.pid === null ? null : await cpuTicks(service.pid);
  const own1 = await cpuTicks(Deno.pid);
  const pg1 = pg0 && await backendTicks(db);
  // A backend opened during the tick spent all its CPU in it.
  const pgTicks = pg1 &&
    [...pg1].reduce((sum, [pid, n]) => sum + n - (pg0?.get(pid) ?? 0), 0);
  const after = Deno.memoryUsage();
  const published = await db.selectFrom("entries")
    .select((e) => e.fn.countAll().as("n"))
    .where("published_version_id", "is not", null).executeTakeFirstOrThrow();

  const mb = (n: number) => (n / 1024 / 1024).toFixed(0);
  console.log(
    [
      "",
      `Scheduler tick: ${INSTALLATIONS} installations × ${PER_INSTALLATION} due schedules`,
      `  sent and completed: ${report.completed} (refused ${report.refused}, retrying ${report.retrying})`,
      `  published in Stave: ${published.n}`,
      `  one tick:           ${(tickMs / 1000).toFixed(2)} s (${
        (report.claimed / (tickMs / 1000)).toFixed(0)
      } schedules/s)`,
      ...(cpu0 !== null && cpu1 !== null && report.claimed > 0
        ? [
          `  service CPU:        ${
            ((cpu1 - cpu0) * 10 / report.claimed).toFixed(2)
          } ms per publish (its own process)`,
        ]
        : []),
      ...(own0 !== null && own1 !== null && report.claimed > 0
        ? [
          `  this process's CPU: ${
            ((own1 - own0) * 10 / report.claimed).toFixed(2)
          } ms per publish (${
            onPostgres ? "the plugin" : "service and plugin"
          })`,
        ]
        : []),
      ...(pgTicks !== null && report.claimed > 0
        ? [
          `  PostgreSQL CPU:     ${
            (pgTicks * 10 / report.claimed).toFixed(2)
          } ms per publish (the scratch database's backends)`,
        ]
        : []),
      `  process RSS:        ${mb(before.rss)} MB before, ${
        mb(after.rss)
      } MB after (${
        onPostgres ? "the plugin and this bench" : "service and plugin together"
      })`,
      `  plugin heap change: ${mb(after.heapUsed - before.heapUsed)} MB`,
      `  engine:             ${
        onPostgres
          ? "PostgreSQL, the service in its own process"
          : "PGlite, one process"
      }`,
    ].join("\n"),
  );
} finally {
  await scheduler.close();
  kv.close();
  await service.close();
}
