// `deno task bench:scheduler`: one scheduler tick against the real service. 100 installations of
// the scheduling plugin (one per site) with 20 due schedules each; reports how long one tick
// takes to send all 2,000 pinned publishes through /api/plugin/v1 and the process's memory.
// The service runs in this process on PGlite (or DATABASE_URL) behind Deno.serve on 127.0.0.1;
// the plugin runs here too and reaches the service only over HTTP with its tokens.
import { openServices } from "../core/boot.ts";
import { loadConfig } from "../core/config.ts";
import { personActor } from "../core/access/actor.ts";
import { modelValidator, saveEntry } from "../core/entries/mod.ts";
import { createModel } from "../core/models/store.ts";
import { pluginCallOf } from "../core/plugins/calls.ts";
import { createLaunch } from "../core/plugins/delegations.ts";
import { installPlugin } from "../core/plugins/installations.ts";
import { createApp } from "../core/server.ts";
import { createInstallation } from "../core/sites/installation.ts";
import { startScheduler } from "../plugins/scheduling/server.ts";

const INSTALLATIONS = Number(Deno.env.get("BENCH_SCHED_INSTALLATIONS") ?? 100);
const PER_INSTALLATION = 20;

const free = Deno.listen({ hostname: "127.0.0.1", port: 0 });
const port = (free.addr as Deno.NetAddr).port;
free.close();
const serviceOrigin = `http://127.0.0.1:${port}`;
const dir = await Deno.makeTempDir({ prefix: "stave-bench-sched-" });
const config = loadConfig({
  ...Deno.env.toObject(),
  DATA_DIR: dir,
  DEMO_SITE: "false",
  LOG_REQUESTS: "false",
  PORT: String(port),
  PUBLIC_URL: serviceOrigin,
  ENVIRONMENT: "development",
});
const { services, close } = await openServices(config, {
  buildIslands: false,
});
const server = Deno.serve(
  { port, hostname: "127.0.0.1", onListen: () => {} },
  createApp(services).fetch,
);
const kv = await Deno.openKv(":memory:");
const scheduler = await startScheduler({
  adminSecret: "bench-operator-secret",
  tokenKey: crypto.getRandomValues(new Uint8Array(32)),
  database: { memory: true },
  kv,
  servicePolicy: { development: true, devOrigins: [serviceOrigin] },
});
config.pluginDevOrigins.push(scheduler.origin);

console.log(
  `Setting up ${INSTALLATIONS} sites, installations and ${
    INSTALLATIONS * PER_INSTALLATION
  } entries…`,
);
const setupStarted = performance.now();
const dueAt = new Date(Math.floor(Date.now() / 60_000) * 60_000 - 60_000);
for (let i = 0; i < INSTALLATIONS; i++) {
  const created = await createInstallation(services, {
    domain: `s${i}.bench`,
    slug: `bench-${i}`,
    name: `Bench ${i}`,
    locales: ["en"],
    adminEmail: `admin${i}@bench.test`,
  });
  if (!created.ok) throw new Error(created.message);
  const siteId = created.site.id;
  const userId = created.admin.id;
  const ctx = { db: services.db, clock: services.clock, siteId };
  const model = await createModel(ctx, {
    model: { name: "Posts", slug: "posts" },
    fields: [{ key: "title", label: "Title", type: "text" }],
  });
  if (!model.ok) throw new Error(model.code);
  const installed = await installPlugin({
    ...ctx,
    userId,
    call: pluginCallOf(services),
    serviceUrl: serviceOrigin,
  }, {
    manifest_url: scheduler.manifestUrl,
    activation_code: await scheduler.issueCode(),
    grant: {
      capabilities: ["content:read", "workflow:read", "workflow:publish"],
      model_ids: [model.model_id],
    },
  });
  if (!installed.ok) throw new Error(installed.code);
  const installationId = installed.installation.id;
  // One manage delegation per installation reaches every entry of the granted model.
  const launch = await createLaunch(
    { ...ctx, kv: services.kv, userId },
    installationId,
    { kind: "manage" },
  );
  if (!launch.ok) throw new Error(launch.code);
  const opened = await fetch(launch.launch.url, { redirect: "manual" });
  await opened.body?.cancel();
  const delegation = await services.db.selectFrom("plugin_delegations")
    .select(["id", "user_email"]).where("installation_id", "=", installationId)
    .orderBy("created_at", "desc").executeTakeFirstOrThrow();
  for (let n = 0; n < PER_INSTALLATION; n++) {
    const saved = await saveEntry({
      ...ctx,
      actor: personActor(userId),
      validate: modelValidator(),
    }, {
      model_id: model.model_id,
      locale: "en",
      slug: `post-${n}`,
      fields: { title: `Post ${n}` },
      expected_current_version_id: null,
    });
    if (!saved.ok) throw new Error(saved.code);
    const group = await services.db.selectFrom("entry_groups")
      .select(["current_version_id", "revision"])
      .where("id", "=", saved.group_id).executeTakeFirstOrThrow();
    await scheduler.db.insertInto("schedules").values({
      id: crypto.randomUUID(),
      installation_id: installationId,
      instance_id: saved.instances[0].entry_id,
      group_id: saved.group_id,
      model_id: model.model_id,
      title: `Post ${n}`,
      kind: "publish",
      target_state: "published",
      pinned_version_id: group.current_version_id,
      expected_workflow_revision: group.revision,
      locale: "",
      local_datetime: dueAt.toISOString().slice(0, 16),
      timezone: "UTC",
      fold: "later",
      due_at: dueAt,
      status: "pending",
      next_attempt_at: dueAt,
      revision: 1,
      delegation_id: delegation.id,
      requester_email: delegation.user_email,
      created_at: new Date(),
      updated_at: new Date(),
    }).execute();
  }
}
console.log(
  `Set up in ${((performance.now() - setupStarted) / 1000).toFixed(1)} s`,
);

const before = Deno.memoryUsage();
const started = performance.now();
const report = await scheduler.tick();
const tickMs = performance.now() - started;
const after = Deno.memoryUsage();
const published = await services.db.selectFrom("entries")
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
    `  process RSS:        ${mb(before.rss)} MB before, ${
      mb(after.rss)
    } MB after (service and plugin in one process)`,
    `  plugin heap change: ${mb(after.heapUsed - before.heapUsed)} MB`,
    `  engine:             ${config.databaseUrl ? "PostgreSQL" : "PGlite"}`,
  ].join("\n"),
);

await scheduler.close();
kv.close();
await server.shutdown();
await close();
await Deno.remove(dir, { recursive: true });
