// The benchmark's service process: the real app on 127.0.0.1 against the seeded database, no request logs.
import { loadConfig } from "../core/config.ts";
import { openDatabase } from "../core/db/database.ts";
import { systemClock } from "../core/clock.ts";
import { createApp } from "../core/server.ts";
import type { Services } from "../core/services.ts";

const url = Deno.env.get("BENCH_DATABASE_URL");
if (!url) {
  throw new Error("Cannot serve the benchmark: BENCH_DATABASE_URL is not set");
}
const db = await openDatabase({ url });
const kv = await Deno.openKv(":memory:");
const services: Services = {
  config: loadConfig({
    DEMO_SITE: "false",
    LOG_REQUESTS: "false",
    DATABASE_URL: url,
  }),
  db,
  kv,
  clock: systemClock,
  log: () => {},
  assets: { boot: "", chunks: {} },
};
const app = createApp(services);
Deno.serve({
  hostname: "127.0.0.1",
  port: 0,
  onListen: ({ port }) => console.log(`listening ${port}`),
}, app.fetch);
