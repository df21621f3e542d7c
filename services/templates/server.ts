// The template build service over HTTP: `POST /build` with the build service key runs every check
// on a candidate and answers its report and, when it passed, the compiled files. It keeps
// nothing: the service stores what it answers.
import { z } from "zod";
import { secretsEqual } from "../../core/auth/secrets.ts";
import { buildCandidate } from "./pipeline.ts";
import type { SandboxLimits } from "./sandbox.ts";

/** Options of {@link createTemplateService}. */
export interface TemplateServiceOptions {
  buildKey: string;
  workRoot: string;
  limits?: SandboxLimits;
}

const buildBody = z.strictObject({
  site_id: z.string().min(1).max(64),
  candidate_digest: z.string().regex(/^[0-9a-f]{64}$/),
  contract: z.number().int().min(1),
  sandbox_image: z.string().min(1).max(300),
  manifest: z.unknown(),
  source: z.record(z.string(), z.string()),
});

const MAX_BODY = 6 * 1024 * 1024;

function json(body: unknown, status = 200): Response {
  return Response.json(body, {
    status,
    headers: { "cache-control": "no-store" },
  });
}

function error(status: number, code: string, message: string): Response {
  return json({ error: { code, message } }, status);
}

/** Builds the handler `Deno.serve` calls. */
export function createTemplateService(
  options: TemplateServiceOptions,
): (request: Request) => Promise<Response> {
  // One build at a time per process: each one starts a browser.
  let queue: Promise<unknown> = Promise.resolve();
  return async function templateService(request) {
    const url = new URL(request.url);
    if (url.pathname === "/health") return json({ ok: true });
    if (url.pathname !== "/build") {
      return error(404, "not_found", "No such route");
    }
    if (request.method !== "POST") {
      return error(405, "method_not_allowed", "Use POST");
    }
    const auth = request.headers.get("authorization") ?? "";
    const presented = auth.startsWith("Bearer ") ? auth.slice(7) : "";
    if (!presented || !(await secretsEqual(presented, options.buildKey))) {
      return error(401, "unauthorized", "Send the build service key");
    }
    const text = await request.text();
    if (text.length > MAX_BODY) {
      return error(413, "payload_too_large", "The candidate is too large");
    }
    let parsed;
    try {
      parsed = buildBody.safeParse(JSON.parse(text));
    } catch {
      return error(400, "invalid_request", "The body is not JSON");
    }
    if (!parsed.success) {
      return error(
        400,
        "invalid_request",
        `Invalid ${parsed.error.issues[0].path.join(".")}: ${
          parsed.error.issues[0].message
        }`,
      );
    }
    const body = parsed.data;
    const run = queue.then(() =>
      buildCandidate(body, {
        workRoot: options.workRoot,
        buildId: crypto.randomUUID(),
        limits: options.limits,
      })
    );
    queue = run.catch(() => {});
    return json(await run);
  };
}
