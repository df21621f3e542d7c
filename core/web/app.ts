// Registers the manifest's routes on Hono: middleware chains, per-method handlers, pages and errors.
import { type Context, Hono, type MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";
import type { ComponentType } from "preact";
import type { AppEnv } from "./env.ts";
import { handleError, HttpError } from "./errors.ts";
import type { IslandAssets } from "./islands_build.ts";
import {
  type LayoutProps,
  type Manifest,
  type ManifestEntry,
  type Method,
  METHODS,
  type PageResult,
} from "./manifest.ts";
import { renderPage } from "./render.ts";
import { isWithin } from "./route_paths.ts";

/** Default largest request body: JSON and forms stay small unless a route says otherwise. */
export const DEFAULT_BODY_LIMIT = 1024 * 1024;

/** Options of {@link registerRoutes}. */
export interface RegisterRoutesOptions {
  manifest: Manifest;
  assets: IslandAssets;
  /** App-wide steps that must run after the body limit (CSRF reads form bodies). */
  beforeRoutes?: RouteStep[];
}

/** A step {@link registerRoutes} puts before the routes it applies to. */
export interface RouteStep {
  /**
   * Whether routes of `pattern` need the step. Decided once when the routes are registered: a
   * step that would only pass a request on costs every request of the route a link in the chain.
   */
  appliesTo(pattern: string): boolean;
  handler: MiddlewareHandler<AppEnv>;
}

function tooLarge(maxSize: number, code: string): HttpError {
  return new HttpError(
    413,
    code,
    "Request body is larger than this route accepts",
    code === "payload_too_large" ? {} : { limit_bytes: maxSize },
  );
}

function bodyLimitOf(
  maxSize: number,
  code = "payload_too_large",
): MiddlewareHandler<AppEnv> {
  return bodyLimit({
    maxSize,
    onError: () => {
      throw tooLarge(maxSize, code);
    },
  });
}

/**
 * A body limit that never holds the body: a declared length over `maxSize` is refused at once,
 * and a body sent without one errors while it is read, at the first byte over, with the same
 * 413 (the route sees the error where it reads).
 */
export function streamedBodyLimit(
  maxSize: number,
  code = "payload_too_large",
): MiddlewareHandler<AppEnv> {
  return async function streamedBodyLimit(c, next) {
    const body = c.req.raw.body;
    if (!body) return await next();
    const declared = c.req.raw.headers.get("content-length");
    if (declared !== null && !c.req.raw.headers.has("transfer-encoding")) {
      if (Number(declared) > maxSize) throw tooLarge(maxSize, code);
      return await next();
    }
    let seen = 0;
    const counted = body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          seen += chunk.length;
          if (seen > maxSize) controller.error(tooLarge(maxSize, code));
          else controller.enqueue(chunk);
        },
      }),
    );
    c.req.raw = new Request(c.req.raw, { body: counted });
    await next();
  };
}

/** Methods whose requests carry a body a route may read. */
const BODY_METHODS: readonly Method[] = ["POST", "PUT", "PATCH", "DELETE"];

/** Adds every route of the manifest to `app`, most specific pattern first. */
export function registerRoutes(
  app: Hono<AppEnv>,
  options: RegisterRoutesOptions,
): void {
  const { manifest, assets } = options;
  const appShell = manifest.app?.module.default as
    | ComponentType<LayoutProps>
    | undefined;
  for (const route of manifest.routes) {
    const mod = route.module;
    const isPage = typeof mod.default === "function";
    const handlers = { ...mod.handler };
    if (isPage && !handlers.GET) {
      handlers.GET = () => ({ kind: "page", data: undefined, status: 200 });
    }
    const methods = Object.keys(handlers) as Method[];
    for (const method of methods) {
      if (!METHODS.includes(method)) {
        throw new Error(
          `Cannot register "${route.file}": unknown method "${method}" in handler`,
        );
      }
    }
    const chain = [
      ...ancestors(manifest.middlewares, route.folder).flatMap((m) =>
        toArray(m.module.middleware, m.file)
      ),
      // A route file may add middleware of its own, run after its folders'.
      ...(mod.middleware ? toArray(mod.middleware, route.file) : []),
    ];
    const layouts = ancestors(manifest.layouts, route.folder)
      .map((l) => l.module.default as unknown as ComponentType<LayoutProps>);
    // A route that answers only GET and HEAD never reads a body: any other method is 405.
    const readsBody = methods.some((m) => BODY_METHODS.includes(m));
    const configured = mod.config?.bodyLimit ?? DEFAULT_BODY_LIMIT;
    const tooLargeCode = mod.config?.tooLargeCode;
    const limitOf = (max: number) =>
      mod.config?.streamsBody
        ? streamedBodyLimit(max, tooLargeCode)
        : bodyLimitOf(max, tooLargeCode);
    const limit: MiddlewareHandler<AppEnv> = typeof configured === "number"
      ? limitOf(configured)
      // A limit read from the settings (the plan's upload limit) is applied per request.
      : function settingsBodyLimit(c, next) {
        return limitOf(configured(c.var.services.config))(c, next);
      };
    const markKind: MiddlewareHandler<AppEnv> = async function markResponseKind(
      c,
      next,
    ) {
      c.set(
        "responseKind",
        isPage ? "html" : route.pattern.startsWith("/v1") ? "text" : "json",
      );
      await next();
    };
    const final = async function routeHandler(
      c: Context<AppEnv>,
    ): Promise<Response> {
      const method = (c.req.method === "HEAD" && !handlers.HEAD
        ? "GET"
        : c.req.method) as Method;
      const handle = handlers[method];
      if (!handle) {
        throw new HttpError(
          405,
          "method_not_allowed",
          `Method "${c.req.method}" is not allowed here`,
          {},
          {
            Allow: methods.join(", "),
          },
        );
      }
      const result = await handle(c);
      if (result instanceof Response) {
        return result;
      }
      if (!isPage) {
        throw new Error(
          `Route "${route.file}" answered page data but has no page component`,
        );
      }
      const html = renderPage({
        component: mod.default!,
        props: {
          data: (result as PageResult).data,
          params: c.req.param() as Record<string, string>,
          url: new URL(c.req.url),
        },
        layouts,
        app: appShell ?? null,
        assets,
      });
      return c.html(
        html,
        (result as PageResult).status as 200,
        (result as PageResult).headers as Record<string, string>,
      );
    };
    // The plugin API's door must refuse a disabled or revoked installation before the body is
    // read (spec 1 part 5 item 4), and a body limit reads a chunked body to count it; there the
    // limit runs after the door. The app-wide CSRF check skips the plugin API (it reads no cookie).
    const limitLast = route.pattern.startsWith("/api/plugin/v1/");
    const limits = readsBody ? [limit] : [];
    app.all(
      route.pattern,
      markKind,
      ...(limitLast ? [] : limits),
      ...(options.beforeRoutes ?? [])
        .filter((step) =>
          step.appliesTo(route.pattern)
        )
        .map((step) => step.handler),
      ...chain,
      ...(limitLast ? limits : []),
      final,
    );
  }
  app.notFound((c) => {
    const wantsHtml = (c.req.header("accept") ?? "").includes("text/html");
    c.set("responseKind", wantsHtml ? "html" : "json");
    return handleError(
      new HttpError(404, "not_found", "Not found"),
      c as Context<AppEnv>,
    );
  });
  app.onError((error, c) => handleError(error, c as Context<AppEnv>));
}

function ancestors(entries: ManifestEntry[], folder: string): ManifestEntry[] {
  return entries.filter((e) => isWithin(folder, e.folder))
    .sort((a, b) => a.folder.length - b.folder.length);
}

function toArray(
  middleware: unknown,
  file: string,
): MiddlewareHandler<AppEnv>[] {
  const list = Array.isArray(middleware) ? middleware : [middleware];
  for (const m of list) {
    if (typeof m !== "function") {
      throw new Error(
        `Cannot use "${file}": expected "export const middleware" to be a function or an array of them`,
      );
    }
  }
  return list as MiddlewareHandler<AppEnv>[];
}
