// What a release carries besides its files: the hosting configuration a generated site's runtime
// needs, and only the SEO defaults a site changed; the deploy service (served on 127.0.0.1) keeps
// and answers both, and the renderer reads the SEO defaults of the active release.
import { deepEqual, equal, ok } from "node:assert/strict";
import { sha256HexSync } from "../../core/kv/digest.ts";
import { canonicalJson } from "../../core/pages/mod.ts";
import {
  releaseHosting,
  STRICTLY_PUBLIC_FETCH,
} from "../../core/templates/release_hosting.ts";
import { releaseSeoDefaults } from "../../core/templates/release_seo.ts";
import { releaseSignature } from "../../core/templates/releases.ts";
import { releaseTemplate } from "../../services/renderer/release.ts";
import { builtInTemplate } from "../../services/renderer/template/builtin/mod.tsx";
import { createDeployService } from "../../services/templates/deploy.ts";
import { openAuxWorld } from "../public_aux/helpers.ts";

const KEY = "k".repeat(40);
const HMAC = "h".repeat(40);

/** A prepare body whose digest and signature check out, with `extra` inside the digest. */
function prepared(number: number, extra: Record<string, unknown>) {
  const files = { "template.js": "export default {}" };
  const base = {
    site_id: "6bd0a458-6940-45ff-9f63-969e8c33c787",
    number,
    origin: "https://a.example",
    installation_id: "stave-test",
    candidate_id: "7bd0a458-6940-45ff-9f63-969e8c33c787",
    transform_origins: "",
  };
  const compiled = sha256HexSync(canonicalJson(files));
  const digest = sha256HexSync(canonicalJson({
    site_id: base.site_id,
    number,
    candidate_id: base.candidate_id,
    compiled,
    origin: base.origin,
    installation_id: base.installation_id,
    transform_origins: base.transform_origins,
    ...extra,
  }));
  return {
    ...base,
    digest,
    signature: releaseSignature(HMAC, digest),
    compiled_digest: compiled,
    regions: [],
    ...extra,
    files,
  };
}

async function serveDeploy() {
  const dir = await Deno.makeTempDir({ prefix: "stave-deploy-" });
  const handle = createDeployService({ key: KEY, hmacKey: HMAC, dir });
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    async (request) =>
      await handle(request) ?? new Response("Not found", { status: 404 }),
  );
  const origin = `http://127.0.0.1:${server.addr.port}`;
  const call = async (path: string, body?: unknown) => {
    const res = await fetch(`${origin}${path}`, {
      method: body === undefined ? "GET" : "POST",
      headers: {
        authorization: `Bearer ${KEY}`,
        "content-type": "application/json",
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: await res.json() };
  };
  return {
    origin,
    call,
    close: async () => {
      await server.shutdown();
      await Deno.remove(dir, { recursive: true });
    },
  };
}

Deno.test("SRCH-032: a release runs only under a hosting configuration with the global-fetch-strictly-public setting, which every prepared release carries", async () => {
  deepEqual(releaseHosting().compatibility_flags, [STRICTLY_PUBLIC_FETCH]);
  const deploy = await serveDeploy();
  try {
    const bare = await deploy.call("/releases/prepare", prepared(1, {}));
    equal(bare.status, 400);
    equal(bare.body.error.code, "hosting_config_invalid");
    const other = await deploy.call(
      "/releases/prepare",
      prepared(1, { hosting: { compatibility_flags: ["nodejs_compat"] } }),
    );
    equal(other.body.error.code, "hosting_config_invalid");
    const good = prepared(1, { hosting: releaseHosting() });
    equal((await deploy.call("/releases/prepare", good)).status, 200);
    equal(
      (await deploy.call("/releases/activate", {
        site_id: good.site_id,
        number: 1,
        host: "a.example",
        digest: good.digest,
      })).status,
      200,
    );
    const active = await deploy.call("/releases/active?host=a.example");
    ok(active.body.hosting.compatibility_flags.includes(STRICTLY_PUBLIC_FETCH));
    // The setting is inside the signed digest: a release cannot drop it afterwards.
    const tampered = { ...good, hosting: { compatibility_flags: [] } };
    equal(
      (await deploy.call("/releases/prepare", tampered)).body.error.code,
      "digest_mismatch",
    );
  } finally {
    await deploy.close();
  }
});

Deno.test("DLV-014: a release carries only the SEO defaults that differ from the defaults, and the renderer reads them from the active release", async () => {
  const w = await openAuxWorld(["en"]);
  const deploy = await serveDeploy();
  const workRoot = await Deno.makeTempDir({ prefix: "stave-renderer-" });
  try {
    equal(await releaseSeoDefaults(w.services.db, w.siteId), null);
    const seo = {
      title_template: "{title} | Acme",
      default_description: "",
      robots: { index: true, extra: "" },
      redirects: [],
    };
    await w.settings("seo", seo);
    // Only the changed default travels; the untouched description does not.
    const changed = await releaseSeoDefaults(w.services.db, w.siteId);
    deepEqual(changed, { title_template: "{title} | Acme" });

    const release = prepared(1, { hosting: releaseHosting(), seo: changed });
    equal((await deploy.call("/releases/prepare", release)).status, 200);
    const template = releaseTemplate({
      url: deploy.origin,
      key: KEY,
      host: "a.example",
      fallback: builtInTemplate,
      workRoot,
      clock: () => 0,
    });
    // Nothing active yet: no defaults reach the renderer.
    equal(await template.seoDefaults!(), null);
    await deploy.call("/releases/activate", {
      site_id: release.site_id,
      number: 1,
      host: "a.example",
      digest: release.digest,
    });
    const later = releaseTemplate({
      url: deploy.origin,
      key: KEY,
      host: "a.example",
      fallback: builtInTemplate,
      workRoot,
      clock: () => 0,
    });
    deepEqual(await later.seoDefaults!(), { title_template: "{title} | Acme" });
  } finally {
    await Deno.remove(workRoot, { recursive: true });
    await deploy.close();
    await w.close();
  }
});
