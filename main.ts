// Composition root: settings -> stores -> services -> app -> Deno.serve.
import { openServices } from "./core/boot.ts";
import { ConfigError, loadConfig } from "./core/config.ts";
import { createApp } from "./core/server.ts";
import { runDailyMaintenance } from "./core/maintenance.ts";
import { ensureDemoSite } from "./core/sites/demo_site.ts";

let config;
try {
  config = loadConfig();
} catch (error) {
  if (!(error instanceof ConfigError)) throw error;
  console.error(error.message);
  Deno.exit(1);
}

const { services, close } = await openServices(config);
if (config.demoSite) {
  const demo = await ensureDemoSite(services);
  console.log(
    `Demo site "${demo.slug}" answers on http://${config.demoDomain}:${config.port}`,
  );
  if (demo.createdAdmin) {
    console.log(
      `Sign in at ${config.publicUrl}/admin as ${demo.createdAdmin.email} with password ${demo.createdAdmin.password}`,
    );
    console.log(
      `This password is shown once; it is also written to ${config.dataDir}/demo-admin.txt for local use.`,
    );
  } else {
    console.log(
      `Sign in at ${config.publicUrl}/admin with the demo admin (see ${config.dataDir}/demo-admin.txt)`,
    );
  }
}

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
await server.finished;
await close();
console.log("Stopped");
