// The deploy service: keeps prepared releases and which release each host serves, behind
// MANAGED_RENDER_DEPLOY_SERVICE_KEY. It checks each release's digest (which covers its origin)
// and HMAC signature before keeping it, and answers a renderer the active release of its host.
import { createHmac } from "node:crypto";
import { z } from "zod";
import { secretsEqual } from "../../core/auth/secrets.ts";
import { sha256HexSync } from "../../core/kv/digest.ts";
import { canonicalJson } from "../../core/pages/mod.ts";
import { hostingIsStrictlyPublic } from "../../core/templates/release_hosting.ts";

/** Options of {@link createDeployService}. */
export interface DeployServiceOptions {
  key: string;
  hmacKey: string;
  dir: string;
}

const prepareBody = z.strictObject({
  site_id: z.string().uuid(),
  number: z.number().int().min(1),
  origin: z.string().regex(/^https:\/\/[a-z0-9.-]+$/),
  installation_id: z.string().regex(/^[a-z0-9-]{3,63}$/),
  digest: z.string().regex(/^[0-9a-f]{64}$/),
  signature: z.string().regex(/^[0-9a-f]{64}$/),
  candidate_id: z.string().uuid(),
  compiled_digest: z.string().regex(/^[0-9a-f]{64}$/),
  transform_origins: z.string(),
  regions: z.array(z.strictObject({ key: z.string(), label: z.string() })),
  /** The hosting configuration the release runs under (SRCH-032). */
  hosting: z.strictObject({
    compatibility_flags: z.array(z.string().max(100)).max(32),
  }).optional(),
  /** SEO defaults the site changed (absent: the defaults), DLV-014. */
  seo: z.strictObject({
    title_template: z.string().max(200).optional(),
    default_description: z.string().max(500).optional(),
  }).optional(),
  files: z.record(z.string(), z.string()),
});
const activateBody = z.strictObject({
  site_id: z.string().uuid(),
  number: z.number().int().min(1),
  host: z.string().regex(/^[a-z0-9.-]+$/),
  digest: z.string().regex(/^[0-9a-f]{64}$/),
});
const forgetBody = z.strictObject({
  site_id: z.string().uuid(),
  host: z.string().regex(/^[a-z0-9.-]+$/),
});

/** A kept release. */
export type KeptRelease = z.infer<typeof prepareBody>;

function json(body: unknown, status = 200): Response {
  return Response.json(body, {
    status,
    headers: { "cache-control": "no-store" },
  });
}

async function readJson<T>(path: string): Promise<T | null> {
  try {
    return JSON.parse(await Deno.readTextFile(path)) as T;
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return null;
    throw e;
  }
}

/** Answers the deploy routes, or null when the path is not one of them. */
export function createDeployService(
  options: DeployServiceOptions,
): (request: Request) => Promise<Response | null> {
  const releasePath = (site: string, n: number) =>
    `${options.dir}/releases/${site}/${n}.json`;
  const hostPath = (host: string) => `${options.dir}/hosts/${host}.json`;
  return async function deployService(request) {
    const url = new URL(request.url);
    if (!url.pathname.startsWith("/releases/")) return null;
    const auth = request.headers.get("authorization") ?? "";
    const presented = auth.startsWith("Bearer ") ? auth.slice(7) : "";
    if (!presented || !(await secretsEqual(presented, options.key))) {
      return json({ error: { code: "unauthorized" } }, 401);
    }
    if (request.method === "GET" && url.pathname === "/releases/active") {
      const host = url.searchParams.get("host") ?? "";
      const pointer = /^[a-z0-9.-]+$/.test(host)
        ? await readJson<{ site_id: string; number: number }>(hostPath(host))
        : null;
      const release = pointer
        ? await readJson<KeptRelease>(
          releasePath(pointer.site_id, pointer.number),
        )
        : null;
      return release
        ? json(release)
        : json({ error: { code: "no_release" } }, 404);
    }
    if (request.method !== "POST") {
      return json({ error: { code: "method_not_allowed" } }, 405);
    }
    let raw: unknown;
    try {
      raw = await request.json();
    } catch {
      return json({ error: { code: "invalid_request" } }, 400);
    }
    if (url.pathname === "/releases/prepare") {
      const body = prepareBody.safeParse(raw);
      if (!body.success) {
        return json({ error: { code: "invalid_request" } }, 400);
      }
      const r = body.data;
      const compiled = sha256HexSync(canonicalJson(r.files));
      const digest = sha256HexSync(canonicalJson({
        site_id: r.site_id,
        number: r.number,
        candidate_id: r.candidate_id,
        compiled,
        origin: r.origin,
        installation_id: r.installation_id,
        transform_origins: r.transform_origins,
        ...(r.hosting ? { hosting: r.hosting } : {}),
        ...(r.seo ? { seo: r.seo } : {}),
      }));
      if (compiled !== r.compiled_digest || digest !== r.digest) {
        return json({ error: { code: "digest_mismatch" } }, 400);
      }
      const expected = createHmac("sha256", options.hmacKey).update(digest)
        .digest("hex");
      if (!(await secretsEqual(expected, r.signature))) {
        return json({ error: { code: "signature_invalid" } }, 400);
      }
      // A generated site's server-side reads must reach public hosts only: no release runs
      // without the hosting setting that says so.
      if (!hostingIsStrictlyPublic(r.hosting)) {
        return json({ error: { code: "hosting_config_invalid" } }, 400);
      }
      await Deno.mkdir(`${options.dir}/releases/${r.site_id}`, {
        recursive: true,
      });
      await Deno.writeTextFile(
        releasePath(r.site_id, r.number),
        JSON.stringify(r),
      );
      return json({ ok: true });
    }
    if (url.pathname === "/releases/activate") {
      const body = activateBody.safeParse(raw);
      if (!body.success) {
        return json({ error: { code: "invalid_request" } }, 400);
      }
      const { site_id, number, host, digest } = body.data;
      const release = await readJson<KeptRelease>(releasePath(site_id, number));
      if (!release || release.digest !== digest) {
        return json({ error: { code: "no_release" } }, 404);
      }
      // A release serves only the host its digest was made for.
      if (new URL(release.origin).hostname !== host) {
        return json({ error: { code: "origin_mismatch" } }, 409);
      }
      const owner = await readJson<{ site_id: string }>(hostPath(host));
      if (owner && owner.site_id !== site_id) {
        return json({ error: { code: "host_taken" } }, 409);
      }
      await Deno.mkdir(`${options.dir}/hosts`, { recursive: true });
      await Deno.writeTextFile(
        hostPath(host),
        JSON.stringify({ site_id, number }),
      );
      return json({ ok: true });
    }
    if (url.pathname === "/releases/forget") {
      const body = forgetBody.safeParse(raw);
      if (!body.success) {
        return json({ error: { code: "invalid_request" } }, 400);
      }
      const owner = await readJson<{ site_id: string }>(
        hostPath(body.data.host),
      );
      if (owner?.site_id === body.data.site_id) {
        await Deno.remove(hostPath(body.data.host));
      }
      return json({ ok: true });
    }
    return json({ error: { code: "not_found" } }, 404);
  };
}
