// Shared steps of the admin-side plugin routes (`/api/plugins…`): the acting person's context and refusal statuses.
import type { Context, MiddlewareHandler } from "hono";
import { loadSession } from "../auth/session_middleware.ts";
import { resolveSiteByHost } from "../sites/resolve_site.ts";
import type { AppEnv } from "../web/env.ts";
import { HttpError } from "../web/errors.ts";
import { pluginCallOf } from "./calls.ts";
import type { CatalogueContext } from "./catalogues.ts";
import type { PluginAdminContext } from "./installations.ts";
import { outboundPolicyFromConfig } from "./outbound.ts";

const STATUS: Record<string, number> = {
  missing_permission: 403,
  site_access_denied: 403,
  model_not_granted: 403,
  not_found: 404,
  invalid_request: 400,
  url_not_https: 400,
  url_destination_refused: 400,
  audit_unavailable: 503,
  installation_state: 409,
  already_installed: 409,
  manifest_identity_changed: 409,
  activation_refused: 502,
  remote_redirect_refused: 502,
  plugin_unreachable: 502,
  plugin_response_invalid: 502,
  plugin_timeout: 504,
};

/** Throws the refusal of an administrative plugin act with its status. */
export function refuseAdmin(
  refusal: { code: string; message: string; issues?: unknown },
): never {
  const status = STATUS[refusal.code] ?? 400;
  throw new HttpError(
    status as 400,
    refusal.code,
    refusal.message,
    refusal.issues ? { issues: refusal.issues } : {},
  );
}

/** The signed-in person on the Host's site; a plugin token here is just "not signed in". */
const requireSessionJson: MiddlewareHandler<AppEnv> =
  async function requireSessionJson(c, next) {
    c.header("Cache-Control", "no-store");
    if (!c.var.user) {
      throw new HttpError(401, "unauthenticated", "Sign in first");
    }
    await next();
  };

/** Middleware of every `/api/plugins` route: site by Host, session cookie, signed in (CSRF runs app-wide). */
export const adminPluginMiddleware = [
  resolveSiteByHost,
  loadSession,
  requireSessionJson,
];

/** The context of an administrative act by the signed-in person. */
export function adminContext(c: Context<AppEnv>): PluginAdminContext {
  const services = c.var.services;
  return {
    db: services.db,
    clock: services.clock,
    siteId: c.var.site.id,
    userId: c.var.user!.id,
    call: pluginCallOf(services),
    serviceUrl: services.config.publicUrl,
  };
}

/** The context of reading the configured plugin catalogues for the signed-in person. */
export function catalogueContext(c: Context<AppEnv>): CatalogueContext {
  const services = c.var.services;
  return {
    db: services.db,
    siteId: c.var.site.id,
    userId: c.var.user!.id,
    call: pluginCallOf(services),
    policy: outboundPolicyFromConfig(services.config),
    catalogues: services.config.pluginCatalogues,
  };
}

/** An installation as the admin API answers it: no digests, ever. */
export function installationJson(
  installation: import("./installation_store.ts").Installation,
) {
  return {
    id: installation.id,
    plugin_id: installation.pluginId,
    name: installation.name,
    version: installation.version,
    protocol_version: installation.protocolVersion,
    state: installation.state,
    grant: {
      capabilities: installation.capabilities,
      model_ids: installation.modelIds,
    },
    manifest_url: installation.manifestUrl,
    manifest: installation.manifest,
    rotation_overlap: installation.overlapping,
    policy_modes: installation.policyModes,
    created_at: installation.createdAt.toISOString(),
    updated_at: installation.updatedAt.toISOString(),
  };
}
