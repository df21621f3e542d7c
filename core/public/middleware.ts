// Middleware of every /v1 route: CORS for the site's browser origins and the optional site API token.
import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "../web/env.ts";
import { HttpError } from "../web/errors.ts";
import { sha256HexSync } from "../kv/digest.ts";
import { hostName } from "../sites/host.ts";
import { originAllowed } from "./browser_origins.ts";
import { loadPublicContext, type PublicContext } from "./request_context.ts";
import { SITE_TOKEN, type SiteTokenScope, tokenScope } from "./site_tokens.ts";

declare module "hono" {
  interface ContextVariableMap {
    /** The verified site API token of a /v1 request, or null when none was sent. */
    siteToken: SiteTokenScope | null;
    /** The site, languages, policy, origins, token row and named model of a /v1 request. */
    publicContext: PublicContext;
  }
}

const BEARER = /^Bearer ([^\s]+)$/;

/**
 * Resolves the site from the Host header alone (spec 3 part 4.1), `404 unknown_host` otherwise,
 * and reads in the same statement what the rest of the request needs (languages, policy,
 * browser origins, the sent token's row, the model the path names): one round trip.
 */
export const loadRequestContext: MiddlewareHandler<AppEnv> =
  async function loadRequestContext(c, next) {
    const domain = hostName(c.req.header("host"));
    if (!domain) {
      throw new HttpError(404, "unknown_host", "No site answers this host");
    }
    const bearer = BEARER.exec(c.req.header("authorization")?.trim() ?? "");
    const token = bearer && SITE_TOKEN.test(bearer[1]) ? bearer[1] : null;
    const context = await loadPublicContext(c.var.services.db, {
      site: { domain },
      tokenDigest: token === null ? null : sha256HexSync(token),
      modelSlug: c.req.param("model") ?? null,
    });
    if (!context) {
      throw new HttpError(404, "unknown_host", "No site answers this host");
    }
    c.set("site", context.site);
    c.set("publicContext", context);
    await next();
  };

/** Methods a preflight may ask for. */
export const CORS_METHODS = ["GET", "HEAD", "OPTIONS"];
/** Headers a preflight may ask for (spec 3 part 5 item 2). */
export const CORS_HEADERS = [
  "authorization",
  "content-type",
  "x-site-key",
  "x-site-token",
  "x-svc-preview-challenge",
];
/** Answer headers a browser script may read. */
const EXPOSED = "ETag, Cache-Tag";

/** The 404 every hidden thing answers: unknown or private model, unpublished item, bad token. */
export function notFound(): HttpError {
  return new HttpError(404, "not_found", "Not found");
}

/**
 * CORS: allowed origins get `Access-Control-Allow-Origin` on every answer, errors included;
 * credentials are never allowed; preflights accept only GET, HEAD and OPTIONS.
 */
export const publicCors: MiddlewareHandler<AppEnv> = async function publicCors(
  c,
  next,
) {
  const origin = c.req.header("origin");
  const allowed = origin !== undefined && origin !== "null" &&
    originAllowed(c.var.publicContext.origins, origin);
  if (c.req.method === "OPTIONS") {
    const method = (c.req.header("access-control-request-method") ?? "")
      .toUpperCase();
    const asked = (c.req.header("access-control-request-headers") ?? "")
      .split(",").map((h) => h.trim().toLowerCase()).filter((h) => h !== "");
    const ok = allowed && CORS_METHODS.includes(method) &&
      asked.every((h) => CORS_HEADERS.includes(h));
    const headers = new Headers({ Vary: "Origin" });
    if (allowed) headers.set("Access-Control-Allow-Origin", origin!);
    if (ok) {
      headers.set("Access-Control-Allow-Methods", CORS_METHODS.join(", "));
      headers.set("Access-Control-Allow-Headers", CORS_HEADERS.join(", "));
      headers.set("Access-Control-Max-Age", "600");
      return new Response(null, { status: 204, headers });
    }
    headers.set("Content-Type", "application/json");
    return new Response(
      JSON.stringify({
        error: {
          code: "cors_preflight_refused",
          message:
            "Preflight refused: only GET, HEAD and OPTIONS from an allowed origin",
        },
      }),
      { status: 403, headers },
    );
  }
  await next();
  c.res.headers.append("Vary", "Origin");
  if (allowed) {
    c.res.headers.set("Access-Control-Allow-Origin", origin!);
    c.res.headers.set("Access-Control-Expose-Headers", EXPOSED);
  }
  c.res.headers.delete("Access-Control-Allow-Credentials");
};

/** Reads `Authorization: Bearer <site API token>`; a token that cannot be verified answers 404. */
export const readSiteToken: MiddlewareHandler<AppEnv> =
  async function readSiteToken(
    c,
    next,
  ) {
    const header = c.req.header("authorization");
    if (header === undefined) {
      c.set("siteToken", null);
      return await next();
    }
    const match = BEARER.exec(header.trim());
    const scope = match && SITE_TOKEN.test(match[1])
      ? tokenScope(
        c.var.publicContext.token,
        c.var.site.id,
        c.var.services.clock.now(),
      )
      : null;
    if (!scope) throw notFound();
    c.set("siteToken", scope);
    await next();
  };
