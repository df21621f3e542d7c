// Composition root: settings -> stores -> services -> app -> Deno.serve.
import { openServices } from "./core/boot.ts";
import { type Config, loadConfig } from "./core/config.ts";
import { createApp } from "./core/server.ts";
import { settledWithin } from "./core/settled_within.ts";
import { runDailyMaintenance } from "./core/maintenance.ts";
import { pluginCallOf } from "./core/plugins/calls.ts";
import {
  type Companion,
  startSchedulerCompanion,
} from "./core/plugins/companion.ts";
import { drainNotifications } from "./core/plugins/notifications.ts";
import {
  type RendererCompanion,
  startRendererCompanion,
} from "./core/renderer_companion.ts";
import {
  LOCAL_CREDENTIAL_PATH,
  openLocalControl,
} from "./core/credentials/local_control.ts";
import { causeOf, StartupError, startupMessage } from "./core/startup_error.ts";
import type { Services } from "./core/services.ts";
import {
  closingBlock,
  closingFacts,
  type DemoFacts,
  demoStep,
  stepPrinter,
} from "./core/startup_report.ts";

/** How long requests in flight may run on after SIGTERM or Ctrl-C before the process ends. */
const SHUTDOWN_GRACE_MS = 10_000;

const startedAt = performance.now();
const step = stepPrinter((line) => console.log(line));
// Every start-up failure is one line on stderr naming the setting and the cause, then exit 1.
let config: Config;
let opened: { services: Services; close: () => Promise<void> };
try {
  config = loadConfig();
  opened = await openServices(config, { step });
} catch (error) {
  console.error(startupMessage(error));
  Deno.exit(1);
}
const { services, close } = opened;

let demo: DemoFacts | null = null;
if (config.demoSite) demo = await demoStep(services, step);

const app = createApp(services);
const shutdown = new AbortController();
services.stopping = shutdown.signal;
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
// Lifecycle notifications wait in the database (queued with each effect); a minute's tick
// delivers what is due, so a restart loses nothing (spec 1 parts 6, 7).
Deno.cron(
  "plugin notifications",
  "* * * * *",
  { signal: shutdown.signal },
  async () => {
    const done = await drainNotifications({
      db: services.db,
      now: () => services.clock.now(),
      call: pluginCallOf(services),
    }, { limit: 200 });
    if (done.delivered + done.retrying + done.failed > 0) {
      services.log({ level: "info", msg: "plugin notifications", ...done });
    }
  },
);
// `deno task svc credential` on this machine reaches the running service here (the store is
// locked while it runs); set once the port is known.
let local: Awaited<ReturnType<typeof openLocalControl>> = null;
let server: Deno.HttpServer<Deno.NetAddr>;
try {
  server = Deno.serve(
    {
      port: config.port,
      hostname: config.host,
      // No signal here: aborting Deno.serve's signal cuts requests in flight, while
      // server.shutdown() (called on SIGTERM below) lets them finish.
      // Printed below, once local commands can reach the service too.
      onListen: () => {},
    },
    (request, info) =>
      local && new URL(request.url).pathname === LOCAL_CREDENTIAL_PATH
        ? local.handle(request)
        : app.fetch(request, info),
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

{
  const host = server.addr.hostname;
  const reach = host === "0.0.0.0" || host === "::"
    ? "127.0.0.1"
    : host.includes(":")
    ? `[${host}]`
    : host;
  local = await openLocalControl(
    services,
    config.dataDir,
    `http://${reach}:${server.addr.port}`,
  );
  // A bare host:port answers no site (a site is chosen by Host): the closing block names
  // the addresses that answer.
  console.log(`✓ Listening on port ${server.addr.port} (${host})`);
}

// The scheduling plugin beside the embedded demo; a failure to start it never stops the service.
let companion: Companion | null = null;
if (config.schedulerCompanion) {
  const { port } = config.schedulerCompanion;
  try {
    companion = await step(
      "Scheduling plugin",
      () => startSchedulerCompanion(services, port),
      // The address is in the closing block: the plugin's own origin answers no page,
      // so it must not be the first address a newcomer reads.
      (c) => `${c.installed} on the demo site`,
    );
    const running = companion;
    Deno.cron(
      "scheduling tick",
      "* * * * *",
      { signal: shutdown.signal },
      async () => {
        const report = await running.tick();
        if (
          report.claimed + report.releases.done + report.releases.failed > 0
        ) {
          services.log({ level: "info", msg: "scheduling tick", ...report });
        }
      },
    );
  } catch (error) {
    console.log(
      `Scheduling plugin: not started (${
        causeOf(error)
      }); set SCHEDULER_PORT or SCHEDULER_COMPANION=false`,
    );
  }
}

// The site renderer beside the demo: its own process reading the public API as visitors' pages do.
let renderer: RendererCompanion | null = null;
if (config.rendererCompanion) {
  const apiUrl = `http://${config.demoDomain}:${server.addr.port}`;
  try {
    renderer = await step(
      "Site renderer",
      () =>
        startRendererCompanion(apiUrl, config.rendererCompanion!.port, {
          forwardingKey: config.rendererForwardingKey,
        }),
      (r) => r.origin,
    );
  } catch (error) {
    console.log(
      `Site renderer: not started (${
        causeOf(error)
      }); set RENDERER_PORT or RENDERER_COMPANION=false`,
    );
  }
}

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  Deno.addSignalListener(signal, () => {
    console.log(`Stopping (${signal})`);
    shutdown.abort();
    // Stops the listener at once; server.finished settles when requests in flight are done.
    server.shutdown().catch(() => {});
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
    scheduler: companion?.origin,
    site: renderer?.origin,
  })
) console.log(line);

// Requests still in flight when the process is told to stop get a bounded grace: the clock
// starts at the signal, not at start-up (started here, it stopped every process after 10 s).
const stopAsked = new Promise<void>((resolve) => {
  if (shutdown.signal.aborted) return resolve();
  shutdown.signal.addEventListener("abort", () => resolve(), { once: true });
});
await Promise.race([server.finished, stopAsked]);
const drained =
  (await settledWithin(server.finished, SHUTDOWN_GRACE_MS)).settled;
if (!drained) {
  console.log(
    `Stopping: requests still running after ${
      SHUTDOWN_GRACE_MS / 1000
    } s are cut off`,
  );
}
await local?.remove();
await companion?.close();
await renderer?.close();
if (drained) await close();
console.log("Stopped");
// A request that outlived the grace may hold a database connection the pool would wait for.
if (!drained) Deno.exit(1);
