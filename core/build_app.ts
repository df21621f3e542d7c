// Assembles an application from a route manifest: app-wide middleware, static files, the routes.
import { Hono } from "hono";
import type { HonoOptions } from "hono/hono-base";
import { secureHeaders } from "hono/secure-headers";
import { CONTENT_SECURITY_POLICY, publicApiHeaders } from "./web/csp.ts";
import type { Manifest } from "./web/manifest.ts";
import type { Services } from "./services.ts";
import { registerRoutes } from "./web/app.ts";
import type { AppEnv } from "./web/env.ts";
import { requestLog } from "./web/request_log.ts";
import { requestTelemetry } from "./telemetry/request.ts";
import { serveStaticFile } from "./web/static_files.ts";
import { refuseUnsafeUrlText } from "./web/request_text.ts";
import { frontAnswers } from "./public/front_answers.ts";
import { frontReads } from "./public/front_reads.ts";
import { csrfProtection } from "./auth/csrf.ts";
import {
  answerCheck,
  answerCheckOn,
  type CheckedDocument,
} from "./openapi/answer_check.ts";
import { PROJECT_ROOT } from "./project_root.ts";

/** Options of {@link buildApp}. */
export interface BuildAppOptions {
  manifest: Manifest;
  /**
   * What answers are checked against when the answer check is on (test runs only); the caller
   * loads them only then.
   */
  checkedDocuments: () => CheckedDocument[];
  /** Mounts what is not a route file, after the static files and before the routes. */
  mount?: (app: Hono<AppEnv>) => void;
  /** Hono's router; its default (a trie for these routes) when absent. */
  router?: HonoOptions<AppEnv>["router"];
}

/**
 * The whole app (core/server.ts) and the public app (core/served_app.ts) are both built here, so
 * a request either one answers meets the same steps in the same order.
 */
export function buildApp(
  services: Services,
  options: BuildAppOptions,
): Hono<AppEnv> {
  // `/admin/` and `/admin` are one page.
  const app = new Hono<AppEnv>({ strict: false, router: options.router });
  app.use("*", async function provideServices(c, next) {
    c.set("services", services);
    c.set("log", services.log);
    c.set("responseKind", "json");
    await next();
  });
  // Test runs only (the test task sets STAVE_CHECK_ANSWERS=1): outermost but for the services, so
  // it sees each answer exactly as a client would, after every other step has had its say.
  if (answerCheckOn((name) => Deno.env.get(name))) {
    app.use("*", answerCheck(options.checkedDocuments(), services.log));
  }
  // Before the request log, so its line carries the request id.
  app.use("*", requestTelemetry());
  // Off (LOG_REQUESTS=false), the step is left out: every request would pay for it.
  if (services.config.logRequests) app.use("*", requestLog(services.clock));
  // Public parameters are checked once here: no route sees NUL, lone surrogates or bad UTF-8.
  app.use("*", refuseUnsafeUrlText);
  // A public read answered before as kept is answered again here, ahead of routing.
  app.use("/v1/*", frontAnswers);
  // A list or single read whose site, token and model are known current is read before routing.
  const reserved = reservedReadSegments(options.manifest);
  if (reserved) app.use("/v1/*", frontReads(reserved));
  const pageHeaders = secureHeaders({
    // Same-origin form posts must carry their real Origin for the CSRF check; other
    // origins still get no referrer.
    referrerPolicy: "same-origin",
    contentSecurityPolicy: CONTENT_SECURITY_POLICY,
    crossOriginResourcePolicy: false,
    // A route that sets one of these itself keeps it: plugin launches answer
    // `Referrer-Policy: no-referrer` (spec 1 part 5 item 6).
    overwrite: false,
  });
  app.use("*", function securityHeaders(c, next) {
    return c.req.path.startsWith("/v1/")
      ? publicApiHeaders(c, next)
      : pageHeaders(c, next);
  });
  app.on(["GET", "HEAD"], "/_static/*", async function staticFiles(c, next) {
    const answer = await serveStaticFile(c, `${PROJECT_ROOT}/static`);
    if (answer) return answer;
    await next();
  });
  options.mount?.(app);
  registerRoutes(app, {
    manifest: options.manifest,
    assets: services.assets,
    beforeRoutes: [csrfProtection(services.config)],
  });
  return app;
}

/**
 * The first path segments under `/v1/` that routes other than the list and single reads own
 * (`_search`, `interactions`, ...); null when the manifest has no list and single read routes.
 */
function reservedReadSegments(manifest: Manifest): Set<string> | null {
  const patterns = manifest.routes.map((r) => r.pattern);
  if (
    !patterns.includes("/v1/:model") || !patterns.includes("/v1/:model/:slug")
  ) return null;
  const reserved = new Set<string>();
  for (const pattern of patterns) {
    const first = pattern.startsWith("/v1/") ? pattern.split("/")[2] : "";
    if (first !== "" && !first.startsWith(":")) reserved.add(first);
  }
  return reserved;
}
