// The scheduling plugin's entry point: `deno run -A --unstable-kv --unstable-cron plugins/scheduling/main.ts`.
import { loadSchedulerConfig } from "./config.ts";
import { startScheduler } from "./server.ts";
import { openSharedKv } from "../sdk/shared_kv.ts";

let config;
try {
  config = loadSchedulerConfig(Deno.env.toObject());
} catch (error) {
  console.error(`scheduling: ${(error as Error).message}`);
  Deno.exit(2);
}
if (!config.databaseUrl) await Deno.mkdir(config.dataDir, { recursive: true });
// Several plugin processes may share one KV file (and one database): leases keep ticks apart.
const kv = await openSharedKv(config.kvPath);
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
console.log(`scheduling: listening on ${scheduler.origin}`);

Deno.cron("scheduling tick", "* * * * *", async () => {
  const report = await scheduler.tick();
  if (report.claimed > 0) {
    console.log(
      `scheduling: tick sent ${report.claimed} (done ${report.completed}, refused ${report.refused}, retrying ${report.retrying})`,
    );
  }
});
