// The benchmark's service process: the real app on 127.0.0.1 against the seeded database (migrated
// first), no request logs.
import { loadConfig } from "../core/config.ts";
import { openDatabase } from "../core/db/database.ts";
import { migrateToLatest } from "../core/db/migrate.ts";
import { systemClock } from "../core/clock.ts";
import { openKvStore } from "../core/kv/open.ts";
import { keptAnswersOf } from "../core/public/kept_shelf.ts";
import { startMemoryTrim } from "../core/memory_trim.ts";
import { createServedApp } from "../core/served_app.ts";
import type { Services } from "../core/services.ts";
import { buildIslands } from "../core/web/islands_build.ts";
import { PROJECT_ROOT } from "../core/project_root.ts";
// The public part of the manifest lists every island, without importing the admin pages.
import { manifest } from "../routes_public.gen.ts";

const url = Deno.env.get("BENCH_DATABASE_URL");
if (!url) {
  throw new Error("Cannot serve the benchmark: BENCH_DATABASE_URL is not set");
}
const config = loadConfig({
  DEMO_SITE: "false",
  LOG_REQUESTS: "false",
  DATABASE_URL: url,
  DATABASE_POOL_MAX: Deno.env.get("DATABASE_POOL_MAX"),
  DATABASE_PIPELINE_CONNECTIONS: Deno.env.get("DATABASE_PIPELINE_CONNECTIONS"),
  PUBLIC_ANSWER_CACHE_MB: Deno.env.get("PUBLIC_ANSWER_CACHE_MB"),
  MEMORY_TRIM_SECONDS: Deno.env.get("MEMORY_TRIM_SECONDS"),
  // The plugin API bench installs a plugin served over plain http on 127.0.0.1.
  ENVIRONMENT: Deno.env.get("ENVIRONMENT"),
  PLUGIN_DEV_ORIGINS: Deno.env.get("PLUGIN_DEV_ORIGINS"),
});
const db = await openDatabase({
  url,
  poolMax: config.databasePoolMax,
  pipeline: config.databasePipelineConnections,
});
// A database seeded before the latest migrations (kept with BENCH_KEEP=1, or the side-by-side
// harness's `stave_bench` that bench:cpu and profiles use) is brought up to date first, as
// main.ts does; Kysely's migration lock keeps two servers starting at once from both applying them.
await migrateToLatest(db);
// A KV file, as deployed (bench/service.ts makes its folder); in memory with BENCH_KV=memory.
const kvPath = Deno.env.get("BENCH_KV_PATH");
const kv = await openKvStore(kvPath ?? null);
const services: Services = {
  config,
  db,
  kv,
  clock: systemClock,
  log: () => {},
  // The admin bench (BENCH_ISLANDS=1) loads pages in a browser: their islands must be built.
  assets: Deno.env.get("BENCH_ISLANDS") === "1"
    ? await buildIslands({ root: PROJECT_ROOT, islands: manifest.islands })
    : { boot: "", chunks: {} },
};
// Served as main.ts serves: the public app at once, the whole app on the first other request.
const app = await createServedApp(services);
startMemoryTrim(config.memoryTrimSeconds);
// The bench stops the service with SIGTERM: say how many reads kept answers served.
Deno.addSignalListener("SIGTERM", () => {
  const shelf = keptAnswersOf(db, services.config.publicAnswerCacheBytes);
  console.error(
    `service (PUBLIC_ANSWER_CACHE_MB=${
      services.config.publicAnswerCacheBytes / 1024 / 1024
    }): ${shelf.hits} reads served from kept answers, ${shelf.misses} computed`,
  );
  Deno.exit(0);
});
Deno.serve({
  hostname: "127.0.0.1",
  port: 0,
  onListen: ({ port }) => console.log(`listening ${port}`),
}, app.fetch);
