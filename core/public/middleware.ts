// Middleware of every /v1 route: CORS for the site's browser origins and the optional site API token.
import type { Context, MiddlewareHandler } from "hono";
import type { AppEnv } from "../web/env.ts";
import { HttpError } from "../web/errors.ts";
import { sha256HexSync } from "../kv/digest.ts";
import { hostName } from "../sites/host.ts";
import { allowedOrigin, corsAnswerHeaders } from "./browser_origins.ts";
import { isFinalAnswer } from "../web/final_answers.ts";
import { requestUrl } from "../web/request_url.ts";
import { mayServeKept } from "./kept_answers.ts";
import {
  loadAndRememberContext,
  type PublicContext,
  type PublicContextQuery,
  rememberedContext,
  StaleContext,
} from "./request_context.ts";
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
 * item read reuses the context an earlier request read instead, unconfirmed: its page statement
 * confirms it, and the read starts over with a fresh one ({@link refreshContext}) otherwise.
 */
export const loadRequestContext: MiddlewareHandler<AppEnv> =
  async function loadRequestContext(c, next) {
    const query = contextQueryOf(c);
    const db = c.get("services").db;
    const context = reusableContext(c, rememberedContext(db, query)) ??
      await loadAndRememberContext(db, query);
    if (!context) {
      throw new HttpError(404, "unknown_host", "No site answers this host");
    }
    c.set("site", context.site);
    c.set("publicContext", context);
    await next();
  };

function contextQueryOf(c: Context<AppEnv>): PublicContextQuery {
  const domain = hostName(c.req.header("host"));
  if (!domain) {
    throw new HttpError(404, "unknown_host", "No site answers this host");
  }
  const bearer = BEARER.exec(c.req.header("authorization")?.trim() ?? "");
  const token = bearer && SITE_TOKEN.test(bearer[1]) ? bearer[1] : null;
  return {
    site: { domain },
    tokenDigest: token === null ? null : sha256HexSync(token),
    modelSlug: c.req.param("model") ?? null,
  };
}

/**
 * `remembered` when this request may start from it: a list or item read (GET or HEAD), not a
 * preview, and not one a kept answer may serve (that lookup needs the snapshot a fresh context
 * statement reads).
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
  return mayServeKept(c, url, remembered) ? null : remembered;
}

/**
 * Replaces an unconfirmed context that turned out stale (or could not be confirmed) with one
 * read afresh, and checks the site API token again against it.
 */
export async function refreshContext(c: Context<AppEnv>): Promise<void> {
  const context = await loadAndRememberContext(
    c.get("services").db,
    contextQueryOf(c),
  );
  if (!context) {
    throw new HttpError(404, "unknown_host", "No site answers this host");
  }
  c.set("site", context.site);
  c.set("publicContext", context);
  c.set("siteToken", checkSiteToken(c));
}

/**
 * Runs `read` on the request's context. A read that started from a remembered context and could
 * not confirm it in its own statement, or that refused or failed on it, runs again on a fresh
 * one: only a fresh context decides a refusal.
 */
export async function onConfirmedContext<T>(
  c: Context<AppEnv>,
  read: () => Promise<T>,
): Promise<T> {
  try {
    const result = await read();
    if (c.get("publicContext").unconfirmed) throw new StaleContext();
    return result;
  } catch (error) {
    if (!c.get("publicContext").unconfirmed) throw error;
    await refreshContext(c);
    return await read();
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

/** The scope of the sent site API token under the request's context; null when none was sent. */
function checkSiteToken(c: Context<AppEnv>): SiteTokenScope | null {
  const header = c.req.header("authorization");
  if (header === undefined) return null;
  const match = BEARER.exec(header.trim());
  const scope = match && SITE_TOKEN.test(match[1])
    ? tokenScope(
      c.get("publicContext").token,
      c.get("site").id,
      c.get("services").clock.now(),
    )
    : null;
  if (!scope) throw notFound();
  return scope;
}
