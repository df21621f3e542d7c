// Composition root: settings -> stores -> services -> app -> Deno.serve.
import { openServices } from "./core/boot.ts";
import { type Config, loadConfig } from "./core/config.ts";
import { createApp } from "./core/server.ts";
import { runDailyMaintenance } from "./core/maintenance.ts";
import { ensureDemoSite } from "./core/sites/demo_site.ts";
import { causeOf, StartupError, startupMessage } from "./core/startup_error.ts";
import type { Services } from "./core/services.ts";

// Every start-up failure is one line on stderr naming the setting and the cause, then exit 1.
let config: Config;
let opened: { services: Services; close: () => Promise<void> };
try {
  config = loadConfig();
  opened = await openServices(config);
} catch (error) {
  console.error(startupMessage(error));
  Deno.exit(1);
}
const { services, close } = opened;

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
let server: Deno.HttpServer;
try {
  server = Deno.serve(
    {
      port: config.port,
      hostname: config.host,
      signal: shutdown.signal,
      onListen: ({ hostname, port }) =>
        console.log(`Stave listening on http://${hostname}:${port}`),
    },
    app.fetch,
  );
} catch (error) {
  const setting = error instanceof Deno.errors.AddrInUse ? "PORT" : "HOST";
  console.error(startupMessage(
    new StartupError(
      `setting ${setting}: cannot listen on ${config.host}:${config.port}: ${
        causeOf(error)
      }`,
    ),
  ));
  shutdown.abort();
  await close();
  Deno.exit(1);
}

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  Deno.addSignalListener(signal, () => {
    console.log(`Stopping (${signal})`);
    shutdown.abort();
  });
}
await server.finished;
await close();
console.log("Stopped");
