// Middleware of every /v1 route: CORS for the site's browser origins and the optional site API token.
import type { Context, MiddlewareHandler } from "hono";
import type { AppEnv } from "../web/env.ts";
import { HttpError } from "../web/errors.ts";
import { allowedOrigin, corsAnswerHeaders } from "./browser_origins.ts";
import { isFinalAnswer } from "../web/final_answers.ts";
import { requestUrl } from "../web/request_url.ts";
import { mayServeKept } from "./kept_answers.ts";
import { changeFeedOf } from "../db/database.ts";
import {
  checkSiteToken,
  contextQueryOf,
  notFound,
  onConfirmedContext,
  refreshContext,
} from "./context_refresh.ts";
import {
  loadAndRememberContext,
  type PublicContext,
  rememberedContext,
} from "./request_context.ts";
import type { SiteTokenScope } from "./site_tokens.ts";

export { notFound, onConfirmedContext, refreshContext };

/**
 * The routes whose reads confirm a remembered context in their own statement
 * ({@link onConfirmedContext}): lists, single reads, search and suggestions.
 */
const CONFIRMING_ROUTES = new Set([
  "/v1/:model",
  "/v1/:model/:slug",
  "/v1/_search",
  "/v1/_search/suggest",
]);

/**
 * Resolves the site from the Host header alone (spec 3 part 4.1), `404 unknown_host` otherwise,
 * and reads in the same statement what the rest of the request needs (languages, policy,
 * browser origins, the sent token's row, the model the path names): one round trip. A list or
 * item read reuses the context an earlier request read instead: as it is when no commit was
 * announced since it was known current (no round trip), else unconfirmed, and its page
 * statement confirms it or the read starts over with a fresh one ({@link refreshContext}).
 */
export const loadRequestContext: MiddlewareHandler<AppEnv> =
  async function loadRequestContext(c, next) {
    const query = contextQueryOf(c);
    const db = c.get("services").db;
    // Taken before anything is read: whatever this request reads is at least this new.
    const generation = changeFeedOf(db)?.generation() ?? null;
    const context =
      reusableContext(c, rememberedContext(db, query, generation)) ??
        await loadAndRememberContext(db, query, generation);
    if (!context) {
      throw new HttpError(404, "unknown_host", "No site answers this host");
    }
    c.set("site", context.site);
    c.set("publicContext", context);
    await next();
  };

/**
 * `remembered` when this request may start from it: a list or item read (GET or HEAD), not a
 * preview. Without a change feed (a read replica), not one a kept answer may serve either: that
 * lookup needs the snapshot a fresh context statement reads.
 */
function reusableContext(
  c: Context<AppEnv>,
  remembered: PublicContext | null,
): PublicContext | null {
  if (!remembered) return null;
  if (c.req.method !== "GET" && c.req.method !== "HEAD") return null;
  if (!CONFIRMING_ROUTES.has(c.req.routePath)) return null;
  const url = requestUrl(c);
  if (url.searchParams.has("preview")) return null;
  if (changeFeedOf(c.get("services").db)) return remembered;
  return mayServeKept(c, url, remembered) ? null : remembered;
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

/**
 * CORS: allowed origins get `Access-Control-Allow-Origin` on every answer, errors included;
 * credentials are never allowed; preflights accept only GET, HEAD and OPTIONS.
 */
export const publicCors: MiddlewareHandler<AppEnv> = async function publicCors(
  c,
  next,
) {
  if (c.req.method === "OPTIONS") {
    const origin = allowedOrigin(c);
    const method = (c.req.header("access-control-request-method") ?? "")
      .toUpperCase();
    const asked = (c.req.header("access-control-request-headers") ?? "")
      .split(",").map((h) => h.trim().toLowerCase()).filter((h) => h !== "");
    const ok = origin !== null && CORS_METHODS.includes(method) &&
      asked.every((h) => CORS_HEADERS.includes(h));
    const headers = new Headers({ Vary: "Origin" });
    if (origin !== null) headers.set("Access-Control-Allow-Origin", origin);
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
  // A final answer (answer.ts) was built with these headers.
  if (isFinalAnswer(c)) return;
  const headers = c.res.headers;
  headers.append("Vary", "Origin");
  for (const [name, value] of corsAnswerHeaders(c)) headers.set(name, value);
  headers.delete("Access-Control-Allow-Credentials");
};

/**
 * Reads `Authorization: Bearer <site API token>`; a token that cannot be verified answers 404
 * (after a fresh look when the context is a remembered one: the token may be new to it).
 */
export const readSiteToken: MiddlewareHandler<AppEnv> =
  async function readSiteToken(
    c,
    next,
  ) {
    let scope: SiteTokenScope | null;
    try {
      scope = checkSiteToken(c);
    } catch (error) {
      if (!c.get("publicContext").unconfirmed) throw error;
      await refreshContext(c);
      scope = c.get("siteToken");
    }
    c.set("siteToken", scope);
    await next();
  };
