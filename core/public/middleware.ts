// Middleware of every /v1 route: CORS for the site's browser origins and the optional site API token.
import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "../web/env.ts";
import { HttpError } from "../web/errors.ts";
import { getBrowserOrigins, originAllowed } from "./browser_origins.ts";
import { type SiteTokenScope, verifySiteToken } from "./site_tokens.ts";

declare module "hono" {
  interface ContextVariableMap {
    /** The verified site API token of a /v1 request, or null when none was sent. */
    siteToken: SiteTokenScope | null;
  }
}

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
    originAllowed(
      await getBrowserOrigins(c.var.services.db, c.var.site.id),
      origin,
    );
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
    const match = /^Bearer ([^\s]+)$/.exec(header.trim());
    const scope = match
      ? await verifySiteToken(c.var.services, c.var.site.id, match[1])
      : null;
    if (!scope) throw notFound();
    c.set("siteToken", scope);
    await next();
  };
