// The request context of a /v1 read, read afresh when a remembered one turned out stale: the
// one place that decides a read's site, policy and token, below both the /v1 middleware and the
// kept answers that call back into it.
import type { Context } from "hono";
import type { AppEnv } from "../web/env.ts";
import { HttpError } from "../web/errors.ts";
import { sha256HexSync } from "../kv/digest.ts";
import { hostName } from "../sites/host.ts";
import {
  loadAndRememberContext,
  type PublicContextQuery,
  rememberCurrent,
  StaleContext,
} from "./request_context.ts";
import { SITE_TOKEN, type SiteTokenScope, tokenScope } from "./site_tokens.ts";

const BEARER = /^Bearer ([^\s]+)$/;

/** The 404 every hidden thing answers: unknown or private model, unpublished item, bad token. */
export function notFound(): HttpError {
  return new HttpError(404, "not_found", "Not found");
}

export function contextQueryOf(c: Context<AppEnv>): PublicContextQuery {
  const query = publicContextQuery(
    c.req.header("host"),
    c.req.header("authorization"),
    c.req.param("model") ?? null,
  );
  if (!query) {
    throw new HttpError(404, "unknown_host", "No site answers this host");
  }
  return query;
}

/**
 * What a /v1 request's context is read by: its site by the `Host` header, the digest of a site
 * API token sent as `Authorization: Bearer`, and the model its path names; null for a host no
 * site can have.
 */
export function publicContextQuery(
  host: string | undefined,
  authorization: string | undefined,
  modelSlug: string | null,
): PublicContextQuery | null {
  const domain = hostName(host);
  if (!domain) return null;
  const bearer = BEARER.exec(authorization?.trim() ?? "");
  const token = bearer && SITE_TOKEN.test(bearer[1]) ? bearer[1] : null;
  return {
    site: { domain },
    tokenDigest: token === null ? null : sha256HexSync(token),
    modelSlug,
  };
}

/**
 * Replaces an unconfirmed context that turned out stale (or could not be confirmed) with one
 * read afresh, and checks the site API token again against it.
 */
export async function refreshContext(c: Context<AppEnv>): Promise<void> {
  const context = await loadAndRememberContext(
    c.get("services").db,
    contextQueryOf(c),
    c.get("publicContext").generation,
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
  const remembered = c.get("publicContext").unconfirmed;
  try {
    const result = await read();
    const context = c.get("publicContext");
    if (context.unconfirmed) throw new StaleContext();
    if (remembered) {
      rememberCurrent(c.get("services").db, contextQueryOf(c), context);
    }
    return result;
  } catch (error) {
    if (!c.get("publicContext").unconfirmed) throw error;
    await refreshContext(c);
    return await read();
  }
}

/** The scope of the sent site API token under the request's context; null when none was sent. */
export function checkSiteToken(c: Context<AppEnv>): SiteTokenScope | null {
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
