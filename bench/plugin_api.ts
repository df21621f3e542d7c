// `deno task bench:plugin`: the plugin API under load, beside the public reads of `deno task bench`.
// On a scratch PostgreSQL database (made from DATABASE_URL, dropped afterwards), SITES sites each
// install the protocol test plugin (a real HTTP server on 127.0.0.1) with the whole grant and hold
// ENTRIES published posts; the service runs as its own process (bench/serve.ts). The load
// generator then sends, at concurrency 1 and 32, with each installation's own token:
// - a delegated read of one entry (`GET /api/plugin/v1/content/{instance_id}?delegation_id=`);
// - a pinned transition (`POST …/transitions/draft`, an unpublish with an Idempotency-Key), each
//   request on an entry of its own so every one is a real state change.
// Requests rotate over the installations, so no installation passes the protocol's 120 requests
// per 60 seconds; a refusal counts as an error.
import { personActor } from "../core/access/actor.ts";
import { systemClock } from "../core/clock.ts";
import { loadConfig } from "../core/config.ts";
import {
  modelValidator,
  publishEntry,
  saveEntry,
} from "../core/entries/mod.ts";
import { pluginCallOf } from "../core/plugins/calls.ts";
import { startExamplePlugin } from "../plugins/testing/plugin.ts";
import { runLoad } from "./load.ts";
import { type MeasuredRun, runLoadWithCpu } from "./proc.ts";
import { pluginSite } from "./plugin_sites.ts";
import { openScratchDatabase } from "./scratch_db.ts";
import { startService } from "./service.ts";

// `deno task bench` runs this after bench/main.ts; a BENCH_ONLY run that names other scenarios
// skips it.
const benchOnly = (Deno.env.get("BENCH_ONLY") ?? "").split(",").filter((w) =>
  w
);
if (benchOnly.length > 0 && !benchOnly.some((w) => "plugin API".includes(w))) {
  Deno.exit(0);
}

const SITES = Number(Deno.env.get("BENCH_PLUGIN_SITES") ?? 80);
const ENTRIES = Number(Deno.env.get("BENCH_PLUGIN_ENTRIES") ?? 40);
const scratch = await openScratchDatabase(
  "stave_bench_plugin",
  "the plugin API benchmark",
);
const { db } = scratch;
const plugin = await startExamplePlugin();
let service: Awaited<ReturnType<typeof startService>> | null = null;
try {
  service = await startService(scratch.url, {
    ENVIRONMENT: "development",
    PLUGIN_DEV_ORIGINS: plugin.origin,
  });
  const serviceOrigin = service.origin;
  // The bench installs from this process: its own outbound policy lets it reach the plugin.
  const config = loadConfig({
    DEMO_SITE: "false",
    DATABASE_URL: scratch.url,
    ENVIRONMENT: "development",
    PLUGIN_DEV_ORIGINS: plugin.origin,
  });
  const call = pluginCallOf({ config });

  interface Target {
    token: string;
    delegationId: string;
    /** Published entry languages: read ones, and ones each unpublished once. */
    instances: { id: string; revision: number; publishedId: string }[];
  }
  const targets: Target[] = [];
  console.log(`Setting up ${SITES} sites × ${ENTRIES} published posts…`);
  const setupStarted = performance.now();
  for (let s = 0; s < SITES; s++) {
    const site = await pluginSite(db, {
      name: "plugin",
      n: s,
      call,
      serviceUrl: serviceOrigin,
      manifestUrl: plugin.manifestUrl,
      activationCode: await plugin.issueCode(),
      capabilities: [
        "content:read",
        "workflow:read",
        "workflow:publish",
        "workflow:unpublish",
      ],
    });
    const { installationId, delegationId } = site;
    const ctx = { db, clock: systemClock, siteId: site.siteId };
    const lifecycle = {
      ...ctx,
      actor: personActor(site.userId),
      validate: modelValidator(),
    };
    const instances: Target["instances"] = [];
    for (let n = 0; n < ENTRIES; n++) {
      const saved = await saveEntry(lifecycle, {
        model_id: site.modelId,
        locale: "en",
        slug: `post-${n}`,
        fields: { title: `Post ${n} of site ${s}` },
        expected_current_version_id: null,
      });
      if (!saved.ok) throw new Error(saved.code);
      const published = await publishEntry(lifecycle, {
        group_id: saved.group_id,
        locale: "en",
        expected_current_version_id: saved.instances[0].current_version_id,
        expected_workflow_revision: saved.revision,
      });
      if (!published.ok) throw new Error(published.code);
      instances.push({
        id: published.instances[0].entry_id,
        revision: published.revision,
        publishedId: published.instances[0].published_version_id!,
      });
    }
    const held = plugin.installations.get(installationId);
    if (!held) {
      throw new Error("The plugin holds no token for its installation");
    }
    targets.push({ token: held.token, delegationId, instances });
  }
  console.log(
    `Set up in ${((performance.now() - setupStarted) / 1000).toFixed(1)} s`,
  );

  const api = (target: Target, path: string, init: RequestInit = {}) =>
    fetch(`${serviceOrigin}/api/plugin/v1${path}`, {
      ...init,
      headers: {
        authorization: `Bearer ${target.token}`,
        ...(init.headers as Record<string, string> ?? {}),
      },
    });
  const read = async (i: number) => {
    const target = targets[i % targets.length];
    const entry = target.instances[
      Math.floor(i / targets.length) % target.instances.length
    ];
    const res = await api(
      target,
      `/content/${entry.id}?delegation_id=${target.delegationId}`,
    );
    await res.body?.cancel();
    return res.status === 200;
  };
  // Each transition takes the next entry not yet unpublished, so every one changes state.
  let nextTransition = 0;
  const transition = async () => {
    const i = nextTransition++;
    const target = targets[i % targets.length];
    const entry = target.instances[Math.floor(i / targets.length)];
    if (!entry) return false;
    const res = await api(target, `/content/${entry.id}/transitions/draft`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "idempotency-key": crypto.randomUUID(),
      },
      body: JSON.stringify({
        kind: "unpublish",
        expected_published_version_id: entry.publishedId,
        expected_workflow_revision: entry.revision,
        delegation_id: target.delegationId,
      }),
    });
    await res.body?.cancel();
    return res.status === 200;
  };

  const results: (MeasuredRun & { scenario: string; concurrency: number })[] =
    [];
  const measure = async (
    scenario: string,
    fn: (i: number) => Promise<boolean>,
    per: Record<number, number>,
  ) => {
    for (const c of [1, 32]) {
      const run = await runLoadWithCpu(service!.pid, c, per[c], fn);
      const { stats: s, service_cpu_ms_per_request: cpu } = run;
      results.push({ scenario, concurrency: c, ...run });
      console.log(
        `c=${String(c).padStart(2)} ${scenario}: ${JSON.stringify(s)}${
          cpu === undefined ? "" : ` service CPU ${cpu} ms/request`
        }`,
      );
    }
  };
  // Warm-up reads; the budget per installation is what matters, so it stays small.
  await runLoad(4, 10, read);
  await measure("plugin API: delegated read of one entry", read, {
    1: 200,
    32: 40,
  });
  // Transitions use the entries in order: c=1 takes the first, c=32 the next ones.
  const available = SITES * ENTRIES;
  const one = Math.min(200, Math.floor(available / 4));
  const many = Math.floor((available - one) / 32);
  await measure("plugin API: pinned unpublish", transition, {
    1: one,
    32: many,
  });
  console.log(JSON.stringify(
    {
      sites: SITES,
      entries_per_site: ENTRIES,
      engine: "PostgreSQL",
      results,
    },
    null,
    2,
  ));
} finally {
  await service?.stop();
  await plugin.close();
  await scratch.drop();
}
