// Builds the whole HTTP application: every route file, the Management API, MCP and OAuth.
import type { Hono } from "hono";
import { manifest } from "../routes.gen.ts";
import type { Services } from "./services.ts";
import type { AppEnv } from "./web/env.ts";
import { buildApp } from "./build_app.ts";
import { createManagementApi } from "./manage/api.ts";
import { createMcpEndpoint } from "./manage/mcp/endpoint.ts";
import { createOAuthEndpoints } from "./oauth/endpoints.ts";
import { CHECKED_DOCUMENTS } from "./openapi/checked_documents.ts";

export { PROJECT_ROOT } from "./project_root.ts";

/** Creates the application for `services`; tests call `app.request()` on it without a port. */
export function createApp(services: Services): Hono<AppEnv> {
  return buildApp(services, {
    manifest,
    checkedDocuments: () => CHECKED_DOCUMENTS,
    mount(app) {
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
    },
  });
}
