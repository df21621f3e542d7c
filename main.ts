// Composition root: settings -> stores -> services -> app -> Deno.serve.
import { openServices } from "./core/boot.ts";
import { ConfigError, loadConfig } from "./core/config.ts";
import { createApp } from "./core/server.ts";
import { runDailyMaintenance } from "./core/maintenance.ts";
import {
  closingBlock,
  closingFacts,
  type DemoFacts,
  demoStep,
  stepPrinter,
} from "./core/startup_report.ts";

let config;
try {
  config = loadConfig();
} catch (error) {
  if (!(error instanceof ConfigError)) throw error;
  console.error(error.message);
  Deno.exit(1);
}

const startedAt = performance.now();
const step = stepPrinter((line) => console.log(line));
const { services, close } = await openServices(config, { step });
let demo: DemoFacts | null = null;
if (config.demoSite) demo = await demoStep(services, step);

const app = createApp(services);
const shutdown = new AbortController();
// Deno.cron runs once per deployment on Deno Deploy and once per process locally; the work
// is idempotent either way. The signal ends it with the server, so Ctrl-C exits the process.
Deno.cron(
  "daily maintenance",
  "17 3 * * *",
  { signal: shutdown.signal },
  async () => {
    const done = await runDailyMaintenance(services);
    services.log({ level: "info", msg: "maintenance", ...done });
  },
);
const server = Deno.serve(
  {
    port: config.port,
    hostname: config.host,
    signal: shutdown.signal,
    onListen: ({ hostname, port }) =>
      console.log(`Stave listening on http://${hostname}:${port}`),
  },
  app.fetch,
);

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  Deno.addSignalListener(signal, () => {
    console.log(`Stopping (${signal})`);
    shutdown.abort();
  });
}
const facts = await closingFacts(
  services.db,
  config.demoSite ? config.demoDomain : null,
);
for (
  const line of closingBlock({
    config,
    port: server.addr.port,
    demo,
    ...facts,
    startedMs: performance.now() - startedAt,
  })
) console.log(line);

await server.finished;
await close();
console.log("Stopped");
