// The template build and preview services over HTTP, each behind its own key: `POST /build` runs
// every check on a candidate and answers its report and, when it passed, the compiled files;
// `POST /preview` draws one view of a compiled candidate. Neither keeps anything.
import { z } from "zod";
import { secretsEqual } from "../../core/auth/secrets.ts";
import type { PageDocument } from "../../core/pages/mod.ts";
import {
  checkPreviewLists,
  viewLists,
} from "../../core/templates/preview_lists.ts";
import { buildCandidate, drawInSandbox } from "./pipeline.ts";
import type { SandboxLimits } from "./sandbox.ts";

/** Options of {@link createTemplateService}. */
export interface TemplateServiceOptions {
  buildKey: string;
  /** The preview service key; without one `/preview` answers 404. */
  previewKey?: string;
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

const previewBody = z.strictObject({
  template: z.string().min(1),
  call: z.strictObject({
    kind: z.enum(["page", "post", "posts", "search", "error"]),
    name: z.string().max(64),
    view: z.record(z.string(), z.unknown()),
  }),
  lists: z.record(z.string(), z.string()),
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

async function keyed(request: Request, key: string): Promise<boolean> {
  const auth = request.headers.get("authorization") ?? "";
  const presented = auth.startsWith("Bearer ") ? auth.slice(7) : "";
  return presented !== "" && await secretsEqual(presented, key);
}

async function bodyOf<T>(
  request: Request,
  schema: z.ZodType<T>,
): Promise<{ ok: true; value: T } | { ok: false; response: Response }> {
  const text = await request.text();
  if (text.length > MAX_BODY) {
    return {
      ok: false,
      response: error(413, "payload_too_large", "The body is too large"),
    };
  }
  let parsed;
  try {
    parsed = schema.safeParse(JSON.parse(text));
  } catch {
    return {
      ok: false,
      response: error(400, "invalid_request", "The body is not JSON"),
    };
  }
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return {
      ok: false,
      response: error(
        400,
        "invalid_request",
        `Invalid ${issue.path.join(".")}: ${issue.message}`,
      ),
    };
  }
  return { ok: true, value: parsed.data };
}

/** Builds the handler `Deno.serve` calls. */
export function createTemplateService(
  options: TemplateServiceOptions,
): (request: Request) => Promise<Response> {
  /**
   * Draws one view of a candidate. Nothing is kept or logged: the page, its lists and the
   * HTML live only in this request and the sandbox's directory, removed when it ends.
   */
  async function preview(
    body: z.infer<typeof previewBody>,
  ): Promise<Response> {
    const limits = checkPreviewLists(body.lists);
    if (!limits.ok) {
      return json({ error: { code: limits.code, limit: limits.limit } }, 413);
    }
    const view = { ...body.call.view };
    if (body.call.kind === "page") {
      const site = view.site as { locale?: string } | undefined;
      view.lists = viewLists(
        view.document as PageDocument,
        site?.locale ?? "en",
        body.lists,
      );
    }
    const drawn = await drawInSandbox(options.workRoot, body.template, [{
      ...body.call,
      view,
    }], options.limits);
    if (!drawn.ok) {
      return json(
        { error: { code: "preview_failed", detail: drawn.error } },
        422,
      );
    }
    const [result] = drawn.results;
    if (!result.ok) {
      return json(
        { error: { code: "preview_failed", detail: result.error } },
        422,
      );
    }
    return json({ html: result.html });
  }

  // One build at a time per process: each one starts a browser.
  let queue: Promise<unknown> = Promise.resolve();
  return async function templateService(request) {
    const url = new URL(request.url);
    if (url.pathname === "/health") return json({ ok: true });
    const route = url.pathname === "/build"
      ? { key: options.buildKey, name: "build" }
      : url.pathname === "/preview" && options.previewKey
      ? { key: options.previewKey, name: "preview" }
      : null;
    if (!route) return error(404, "not_found", "No such route");
    if (request.method !== "POST") {
      return error(405, "method_not_allowed", "Use POST");
    }
    if (!(await keyed(request, route.key))) {
      return error(401, "unauthorized", `Send the ${route.name} service key`);
    }
    if (route.name === "preview") {
      const read = await bodyOf(request, previewBody);
      return read.ok ? await preview(read.value) : read.response;
    }
    const read = await bodyOf(request, buildBody);
    if (!read.ok) return read.response;
    const body = read.value;
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
