// Composition root: settings -> stores -> services -> app -> Deno.serve.
import { openServices } from "./core/boot.ts";
import { type Config, loadConfig } from "./core/config.ts";
import {
  imageLibrariesSettled,
  onImageLibraryChosen,
} from "./core/media/image_library.ts";
import { createServedApp } from "./core/served_app.ts";
import { settledWithin } from "./core/settled_within.ts";
import { runDailyMaintenance } from "./core/maintenance.ts";
import { upkeepIfEmbedded } from "./core/db/embedded_upkeep.ts";
import { startMemoryTrim } from "./core/memory_trim.ts";
import { pluginCallOf } from "./core/plugins/calls.ts";
import type { Companion } from "./core/plugins/companion.ts";
import { drainNotifications } from "./core/plugins/notifications.ts";
import {
  type RendererCompanion,
  startRendererCompanion,
} from "./core/renderer_companion.ts";
import {
  startTemplateCompanion,
  type TemplateCompanion,
} from "./core/templates/companion.ts";
import {
  LOCAL_CREDENTIAL_PATH,
  openLocalControl,
} from "./core/credentials/local_control.ts";
import { causeOf, StartupError, startupMessage } from "./core/startup_error.ts";
import { cronRuns, inSpan } from "./core/telemetry/mod.ts";
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
/** How long stopping waits for the stores to close before exiting anyway. */
const CLOSE_BOUND_MS = 5_000;

const startedAt = performance.now();
const step = stepPrinter((line) => console.log(line));
// Every start-up failure is one line on stderr naming the setting and the cause, then exit 1.
let config: Config;
try {
  config = loadConfig();
} catch (error) {
  console.error(startupMessage(error));
  Deno.exit(1);
}
const shutdown = new AbortController();
// The companion's tick, set once the scheduling plugin beside the demo has started.
let companion: Companion | null = null;
const opening = Promise.withResolvers<Services>();
// Promise.withResolvers leaves a rejection unhandled when no cron has awaited it yet.
opening.promise.catch(() => {});

// Deno Deploy takes cron registrations only from the top level of the entry module, before it
// waits for anything, so they are made here and each tick waits for the stores. Deno.cron runs
// once per deployment on Deploy and once per process elsewhere; the work is idempotent either
// way. The signal ends them with the server, so Ctrl-C exits the process.
cronJob("daily maintenance", "17 3 * * *", async (services) => {
  const done = await runDailyMaintenance(services);
  services.log({ level: "info", msg: "maintenance", ...done });
});
// Lifecycle notifications wait in the database (queued with each effect); a minute's tick
// delivers what is due, so a restart loses nothing (spec 1 parts 6, 7). It stops claiming after
// 45 s, leaving the rest to the next tick; what it claimed is leased, so even a tick that runs
// into the next never has a notification sent twice.
cronJob("plugin notifications", "* * * * *", async (services) => {
  const done = await drainNotifications({
    db: services.db,
    now: () => services.clock.now(),
    call: pluginCallOf(services),
  }, { budgetMs: 45_000 });
  if (done.delivered + done.retrying + done.failed > 0) {
    services.log({ level: "info", msg: "plugin notifications", ...done });
  }
});
// The embedded engine runs no autovacuum: each minute the tables it would have analyzed or
// vacuumed by now are, so plans rest on statistics (core/db/embedded_upkeep.ts).
cronJob("embedded upkeep", "* * * * *", async (services) => {
  const done = await upkeepIfEmbedded(services.db);
  if (done && done.analyzed.length + done.vacuumed.length > 0) {
    services.log({ level: "info", msg: "embedded upkeep", ...done });
  }
});
if (config.schedulerCompanion) {
  cronJob("scheduling tick", "* * * * *", async (services) => {
    if (!companion) return;
    const report = await companion.tick();
    if (report.claimed + report.releases.done + report.releases.failed > 0) {
      services.log({ level: "info", msg: "scheduling tick", ...report });
    }
  });
}

/**
 * Registers a cron job (synchronously, so from the top level) whose work waits for the stores
 * and runs counted by {@link countedRun}.
 */
function cronJob(
  job: string,
  schedule: string,
  work: (services: Services) => Promise<void>,
): void {
  Deno.cron(
    job,
    schedule,
    { signal: shutdown.signal },
    () => countedRun(job, async () => await work(await opening.promise)),
  );
}

/** Runs one cron job in a span and counts it by outcome; a failure is still Deno's to log. */
function countedRun(job: string, run: () => Promise<void>): Promise<void> {
  return inSpan(`cron ${job}`, { "stave.cron.job": job }, async () => {
    try {
      await run();
      cronRuns.add(1, { job, outcome: "ok" });
    } catch (error) {
      cronRuns.add(1, { job, outcome: "error" });
      throw error;
    }
  });
}

let opened: Awaited<ReturnType<typeof openServices>>;
try {
  opened = await openServices(config, { step, demoAdminPassword: true });
} catch (error) {
  console.error(startupMessage(error));
  Deno.exit(1);
}
const { services, close, demoAdminPassword } = opened;
services.stopping = shutdown.signal;
opening.resolve(services);

let demo: DemoFacts | null = null;
if (config.demoSite) {
  demo = await demoStep(services, step, {
    copiedAdminPassword: demoAdminPassword,
  });
}

const app = await createServedApp(services);
// Memory freed after a burst of requests goes back to the system instead of staying resident.
const stopMemoryTrim = startMemoryTrim(config.memoryTrimSeconds);

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
  // Nothing was served, so the stores are left as a crash would leave them: closing embedded
  // PGlite right after it opened has been seen to spin in its shutdown checkpoint and hold the
  // process for good. The next start recovers the folder from its log; the lock goes with us.
  Deno.exit(1);
}

{
  const host = server.addr.hostname;
  const reach = host === "0.0.0.0" || host === "::"
    ? "127.0.0.1"
    : host.includes(":")
    ? `[${host}]`
    : host;
  // On Deno Deploy nothing is written to disk, and no command runs beside the service.
  if (config.deployment === null) {
    local = await openLocalControl(
      services,
      config.dataDir,
      `http://${reach}:${server.addr.port}`,
    );
  }
  // A bare host:port answers no site (a site is chosen by Host): the closing block names
  // the addresses that answer.
  console.log(`✓ Listening on port ${server.addr.port} (${host})`);
}

// The image library (sharp, else the WebAssembly codecs where native add-ons cannot load) is
// chosen by the first request that makes or reads an image, not at start: a process serving
// public reads never needs it. The choice is logged when made.
onImageLibraryChosen((images) =>
  services.log({
    level: "info",
    msg: "image library",
    library: images?.name ?? "none",
  })
);

// Registered as soon as the server listens: a stop asked while the companions start is still graceful.
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  Deno.addSignalListener(signal, () => {
    console.log(`Stopping (${signal})`);
    shutdown.abort();
    // Stops the listener at once; server.finished settles when requests in flight are done.
    server.shutdown().catch(() => {});
  });
}

// The scheduling plugin beside the embedded demo; a failure to start it never stops the service.
if (config.schedulerCompanion) {
  const { port } = config.schedulerCompanion;
  try {
    companion = await step(
      "Scheduling plugin",
      // Imported here: a service without the demo's plugin never loads the code that installs it.
      async () =>
        (await import("./core/plugins/companion.ts")).startSchedulerCompanion(
          services,
          port,
        ),
      // The address is in the closing block: the plugin's own origin answers no page,
      // so it must not be the first address a newcomer reads.
      (c) => `${c.installed} on the demo site`,
    );
  } catch (error) {
    console.log(
      `Scheduling plugin: not started (${
        causeOf(error)
      }); set SCHEDULER_PORT or SCHEDULER_COMPANION=false`,
    );
  }
}

// The template services beside the demo: settings left unset are filled to reach them.
let templates: TemplateCompanion | null = null;
if (
  config.rendererCompanion && Deno.env.get("TEMPLATES_COMPANION") !== "false"
) {
  const port = config.port === 0 ? 0 : config.port + 3;
  try {
    templates = await step(
      "Template services",
      () => startTemplateCompanion(port, config.dataDir),
      // No address here: these services answer the admin and the renderer, not a visitor, and
      // the first address a newcomer reads must open the site.
      (t) => `build, preview and deploy on port ${new URL(t.origin).port}`,
    );
    config.templateSettings = {
      ...templates.settings,
      ...config.templateSettings,
    };
  } catch (error) {
    console.log(
      `Template services: not started (${
        causeOf(error)
      }); set TEMPLATES_COMPANION=false to skip them`,
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
stopMemoryTrim();
await imageLibrariesSettled();
await local?.remove();
await companion?.close();
await renderer?.close();
await templates?.close();
const closed = drained &&
  (await settledWithin(close(), CLOSE_BOUND_MS)).settled;
if (drained && !closed) {
  console.log(
    `Stopping: the stores did not close within ${CLOSE_BOUND_MS / 1000} s`,
  );
}
console.log("Stopped");
// A request that outlived the grace may hold a database connection the pool would wait for, and
// a store that did not close may hold the process.
if (!closed) Deno.exit(1);
