// The Deno Deploy entry (issue 47 item 1): the service started as Deploy starts it (DENO_DEPLOYMENT_ID,
// no write, run or FFI permission, the path-less KV, PostgreSQL, S3-compatible media, prebuilt
// bundles) serves /health, readiness, /v1 with its media, /admin and the prebuilt scripts. The
// scheduling plugin's minute tick is proved by `deno task deploy:check` (it waits for the clock).
import { deepEqual, ok } from "node:assert/strict";
import { PROJECT_ROOT } from "../../core/server.ts";
import { buildPrebuiltIslands } from "../../core/web/islands_prebuilt.ts";
import { manifest } from "../../routes.gen.ts";
import { deployCheck } from "../../scripts/deploy_check.ts";

const BASE_URL = Deno.env.get("DATABASE_URL");

Deno.test({
  name:
    "deploy:check: the service started as Deno Deploy starts it, with no write permission, serves /health, readiness, /v1 and its media from S3, /admin and the prebuilt bundles (issue 47 item 1)",
  // Deploy has no disk for the embedded store: PostgreSQL only.
  ignore: !BASE_URL,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    // What a deploy step runs first; the check refuses stale bundles.
    await buildPrebuiltIslands({
      root: PROJECT_ROOT,
      islands: manifest.islands,
    });
    const report = await deployCheck({ databaseUrl: BASE_URL!, tick: false });
    for (
      const claim of [
        "the island bundles of deno task build match the code",
        "the service started with DENO_DEPLOYMENT_ID, no write permission and the path-less KV",
        "/health answers 200 for the site",
        "/health/ready checks PostgreSQL, KV and S3 storage",
        "an image variant is made without FFI by the WebAssembly codecs",
        "/admin/sign-in renders",
        "nothing asked for write access",
      ]
    ) {
      ok(
        report.proved.includes(claim),
        `${claim}\n${report.proved.join("\n")}`,
      );
    }
    deepEqual(
      report.proved.filter((p) =>
        /is served from S3-compatible storage$/.test(p)
      ).length,
      1,
    );
  },
});
