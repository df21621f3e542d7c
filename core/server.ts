// Builds the HTTP application: app-wide middleware, the generated routes and static files.
import { Hono } from "hono";
import { secureHeaders } from "hono/secure-headers";
import { CONTENT_SECURITY_POLICY, publicApiHeaders } from "./web/csp.ts";
import { manifest } from "../routes.gen.ts";
import type { Services } from "./services.ts";
import { registerRoutes } from "./web/app.ts";
import type { AppEnv } from "./web/env.ts";
import { requestLog } from "./web/request_log.ts";
import { requestTelemetry } from "./telemetry/request.ts";
import { serveStaticFile } from "./web/static_files.ts";
import { refuseUnsafeUrlText } from "./web/request_text.ts";
import { frontAnswers } from "./public/front_answers.ts";
import { csrfProtection } from "./auth/csrf.ts";
import { createManagementApi } from "./manage/api.ts";
import { createMcpEndpoint } from "./manage/mcp/endpoint.ts";
import { createOAuthEndpoints } from "./oauth/endpoints.ts";
import { answerCheck, answerCheckOn } from "./openapi/answer_check.ts";
import managementDocument from "../generated/openapi-v1.json" with {
  type: "json",
};
import publicDocument from "../generated/openapi-public-v1.json" with {
  type: "json",
};

/** The project root, where static/ and the island sources live. */
export const PROJECT_ROOT = new URL("..", import.meta.url).pathname.replace(
  /\/$/,
  "",
);

/** Creates the application for `services`; tests call `app.request()` on it without a port. */
export function createApp(services: Services): Hono<AppEnv> {
  // `/admin/` and `/admin` are one page.
  const app = new Hono<AppEnv>({ strict: false });
  app.use("*", async function provideServices(c, next) {
    c.set("services", services);
    c.set("log", services.log);
    c.set("responseKind", "json");
    await next();
  });
  // Test runs only (the test task sets STAVE_CHECK_ANSWERS=1): outermost but for the services, so
  // it sees each answer exactly as a client would, after every other step has had its say.
  if (answerCheckOn((name) => Deno.env.get(name))) {
    app.use(
      "*",
      answerCheck([
        { base: "/v1", document: publicDocument },
        { base: "/api/manage/v1", document: managementDocument },
      ], services.log),
    );
  }
  // Before the request log, so its line carries the request id.
  app.use("*", requestTelemetry());
  // Off (LOG_REQUESTS=false), the step is left out: every request would pay for it.
  if (services.config.logRequests) app.use("*", requestLog(services.clock));
  // Public parameters are checked once here: no route sees NUL, lone surrogates or bad UTF-8.
  app.use("*", refuseUnsafeUrlText);
  // A public read answered before as kept is answered again here, ahead of routing.
  app.use("/v1/*", frontAnswers);
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
  app.route("/api/manage/v1", createManagementApi(services));
  // Tool calls go through the whole app, so they meet every rule an HTTP request meets.
  app.route(
    "/api/manage/mcp",
    createMcpEndpoint(services, {
      dispatch: (request) => Promise.resolve(app.fetch(request)),
    }),
  );
  // Token, registration and revocation take form and JSON posts from programs, not pages: no CSRF cookie.
  app.route("/", createOAuthEndpoints(services));
  registerRoutes(app, {
    manifest,
    assets: services.assets,
    beforeRoutes: [csrfProtection(services.config)],
  });
  return app;
}
