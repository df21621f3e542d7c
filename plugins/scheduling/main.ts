// The scheduling plugin's entry point: `deno run -A --unstable-kv --unstable-cron plugins/scheduling/main.ts`.
// On Deno Deploy (its own project, docs/deploy.md) it uses PostgreSQL and the deployment's KV.
import { metrics } from "@opentelemetry/api";
import { loadSchedulerConfig } from "./config.ts";
import { type RunningScheduler, startScheduler } from "./server.ts";
import { openSharedKv } from "../sdk/shared_kv.ts";

let config;
try {
  config = loadSchedulerConfig(Deno.env.toObject());
} catch (error) {
  console.error(`scheduling: ${(error as Error).message}`);
  Deno.exit(2);
}
const deployment = Deno.env.get("DENO_DEPLOYMENT_ID");
if (deployment && !config.databaseUrl) {
  console.error(
    "scheduling: SCHEDULER_DATABASE_URL: required on Deno Deploy (no disk for the embedded database)",
  );
  Deno.exit(2);
}
const started = Promise.withResolvers<RunningScheduler>();
started.promise.catch(() => {});

// Deno Deploy takes cron registrations only from the top level of the entry module, before it
// waits for anything: the tick is registered first and waits for the plugin to have started.
// With OTEL_DENO=true Deno exports this count (and each tick's HTTP calls) over OTLP.
const ticks = metrics.getMeter("stave-scheduling").createCounter(
  "stave.scheduler.ticks",
  { description: "Scheduling ticks by outcome" },
);
Deno.cron("scheduling tick", "* * * * *", async () => {
  const scheduler = await started.promise;
  let report;
  try {
    report = await scheduler.tick();
  } catch (error) {
    ticks.add(1, { outcome: "error" });
    throw error;
  }
  ticks.add(1, { outcome: "ok" });
  if (report.claimed > 0 || Deno.env.get("SCHEDULER_LOG_TICKS") === "true") {
    console.log(
      `scheduling: tick sent ${report.claimed} (done ${report.completed}, refused ${report.refused}, retrying ${report.retrying})`,
    );
  }
});

if (!config.databaseUrl) await Deno.mkdir(config.dataDir, { recursive: true });
// Several plugin processes may share one KV file (and one database): leases keep ticks apart.
// On Deploy the deployment's own KV (no path) is shared by every isolate.
const kv = deployment && !Deno.env.get("SCHEDULER_KV_PATH")
  ? await Deno.openKv()
  : await openSharedKv(config.kvPath);
const scheduler = await startScheduler({
  publicOrigin: config.publicOrigin,
  hostname: config.hostname,
  port: config.port,
  adminSecret: config.adminSecret,
  tokenKey: config.tokenKey,
  database: config.databaseUrl
    ? { url: config.databaseUrl }
    : { dataDir: config.dataDir },
  kv,
  servicePolicy: {
    development: config.development,
    devOrigins: config.svcDevOrigins,
  },
  limits: {
    maxAttempts: config.maxAttempts,
    maxLatenessMs: config.maxLatenessMs,
    leaseMs: config.leaseMs,
    maxRetryAfterMs: config.maxRetryAfterMs,
  },
});
started.resolve(scheduler);
console.log(`scheduling: listening on ${scheduler.origin}`);
