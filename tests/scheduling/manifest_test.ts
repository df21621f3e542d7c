// The scheduling plugin's served manifest: manifest v1 as the published JSON Schema describes it,
// the reference plugin's version, its two manage views, and every URL on its public origin
// (spec 1 parts 2.1, 4.4 and 9).
import { deepEqual, equal, ok } from "node:assert/strict";
import { Ajv2020 } from "ajv/dist/2020.js";
import { parseManifest } from "../../core/plugins/manifest.ts";
import { startScheduler } from "../../plugins/scheduling/server.ts";

const root = new URL("../..", import.meta.url).pathname.replace(/\/$/, "");

/** Every string in `value` that reads as an absolute http(s) address, with its path. */
function addresses(value: unknown, path = "$"): [string, string][] {
  if (typeof value === "string") {
    return /^https?:/i.test(value) ? [[path, value]] : [];
  }
  if (Array.isArray(value)) {
    return value.flatMap((v, i) => addresses(v, `${path}[${i}]`));
  }
  if (value !== null && typeof value === "object") {
    return Object.entries(value).flatMap(([k, v]) =>
      addresses(v, `${path}.${k}`)
    );
  }
  return [];
}

Deno.test("GET /svc/manifest.json validates against manifest-v1.schema.json, is version 0.1.0 with the calendar and releases views, every URL on the public origin (SOP-001)", async () => {
  const kv = await Deno.openKv(":memory:");
  const scheduler = await startScheduler({
    adminSecret: "operator-secret-16",
    tokenKey: crypto.getRandomValues(new Uint8Array(32)),
    database: { memory: true },
    kv,
    servicePolicy: { development: true, devOrigins: [] },
  });
  try {
    const res = await fetch(scheduler.manifestUrl);
    equal(res.status, 200);
    const manifest = await res.json() as {
      manifest_version: number;
      protocol_version: number;
      version: string;
      id: string;
      manage_views: { id: string }[];
    };
    const ajv = new Ajv2020({ strict: false });
    const validate = ajv.compile(
      JSON.parse(
        await Deno.readTextFile(`${root}/generated/manifest-v1.schema.json`),
      ),
    );
    ok(validate(manifest), JSON.stringify(validate.errors));
    // The service's own reading of a manifest agrees with the schema.
    const parsed = parseManifest(manifest, {
      manifestUrl: scheduler.manifestUrl,
    });
    ok(parsed.ok, JSON.stringify(!parsed.ok && parsed.issues));
    equal(manifest.manifest_version, 1);
    equal(manifest.protocol_version, 1);
    equal(manifest.version, "0.1.0");
    equal(manifest.id, "dev.stave.scheduling");
    deepEqual(
      manifest.manage_views.map((v) => v.id),
      ["calendar", "releases"],
    );
    const urls = addresses(manifest);
    ok(urls.length >= 5, "the manifest declares its URLs");
    for (const [path, url] of urls) {
      ok(
        url.startsWith(`${scheduler.origin}/`),
        `${path} (${url}) is on ${scheduler.origin}`,
      );
    }
  } finally {
    await scheduler.close();
    kv.close();
  }
});
