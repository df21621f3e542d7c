// Who calls the Management API: bearer credential, its site, rate window, authority re-read now, and the route's scope.
import type { CredentialActor } from "../access/actor.ts";
import { type Authority, loadAuthority } from "../access/authority.ts";
import { type Scope, scopeHeld, SCOPES } from "../access/scopes.ts";
import {
  type CredentialRecord,
  findCredentialBySecret,
  findLiveCredentialById,
} from "../credentials/credential_store.ts";
import {
  ACCESS_TOKEN_PREFIX,
  credentialIdOfAccessToken,
} from "../oauth/store.ts";
import type { RateDecision, RateWindow } from "../kv/rate_window.ts";
import type { Services } from "../services.ts";
import { findSiteById, type SiteRecord } from "../sites/site_store.ts";
import { refuse } from "../web/errors.ts";
import { SITE_NAMING_HEADERS } from "./input.ts";

/** Requests per credential per window (spec 2 part 8). */
export const MANAGE_RATE_LIMIT = 120;
/** The rate window: one minute. */
export const MANAGE_RATE_WINDOW_MS = 60_000;

/** The authenticated caller of one request. */
export interface Caller {
  site: SiteRecord;
  credential: CredentialRecord;
  actor: CredentialActor;
  authority: Authority;
}

/** What {@link authenticate} needs besides the services. */
export interface AuthenticateOptions {
  headers: Headers;
  scope: Scope;
  /** The credential's rate window; null when the request is counted elsewhere (an MCP tool call counts as the API request it makes). */
  rate: RateWindow | null;
  /** Receives the rate headers every answer of an authenticated request carries. */
  onRate?: (headers: Record<string, string>) => void;
}

const BEARER = /^Bearer[ ]+([^\s]+)[ ]*$/i;

/** The one refusal of a missing, malformed, unknown or revoked credential; it never echoes the secret. */
function unauthorized(): never {
  refuse(
    401,
    "unauthorized",
    "Send a valid management credential as: Authorization: Bearer svm_...",
    {},
    { "WWW-Authenticate": 'Bearer realm="manage"' },
  );
}

/**
 * The credential a bearer names: a management credential's secret, or an access token of
 * an interactive sign-in (spec 2 part 5.2), which acts as the sign-in's credential.
 */
async function findCaller(
  services: Services,
  bearer: string,
): Promise<CredentialRecord | null> {
  if (bearer.startsWith(ACCESS_TOKEN_PREFIX)) {
    const id = await credentialIdOfAccessToken(services, bearer);
    return id === null ? null : await findLiveCredentialById(services.db, id);
  }
  return await findCredentialBySecret(services.db, bearer);
}

/**
 * Authenticates a request and loads what it may do now, in this order: the bearer
 * credential (401 `unauthorized`), 120 requests per minute per credential (429
 * `rate_limited` with `Retry-After`), no header naming a site or database (400
 * `invalid_request`), the creator's authority re-read now (403 `creator_unauthorized`),
 * and the route's scope (403 `missing_permission`).
 */
export async function authenticate(
  services: Services,
  options: AuthenticateOptions,
): Promise<Caller> {
  return await authenticateCaller(services, options);
}

/**
 * The rate headers of a decision (draft-ietf-httpapi-ratelimit-headers): the policy of 120
 * per 60 s and what is left now, with `t` the seconds until one more request is allowed.
 */
export function rateLimitHeaders(
  decision: RateDecision,
  now: Date,
): Record<string, string> {
  const seconds = decision.allowed && decision.remaining > 0 ? 0 : Math.max(
    1,
    Math.ceil((decision.resetAt.getTime() - now.getTime()) / 1000),
  );
  return {
    "RateLimit-Policy": `"manage";q=${MANAGE_RATE_LIMIT};w=${
      MANAGE_RATE_WINDOW_MS / 1000
    }`,
    "RateLimit": `"manage";r=${decision.remaining};t=${seconds}`,
  };
}

async function authenticateCaller(
  services: Services,
  options: AuthenticateOptions,
): Promise<Caller> {
  const match = BEARER.exec(options.headers.get("authorization") ?? "");
  if (!match) unauthorized();
  const credential = await findCaller(services, match[1]);
  if (!credential) unauthorized();
  const window = options.rate === null ? null : await options.rate.hit(
    ["manage", credential.id],
    MANAGE_RATE_LIMIT,
    MANAGE_RATE_WINDOW_MS,
  );
  if (window !== null) {
    options.onRate?.(rateLimitHeaders(window, services.clock.now()));
  }
  if (window !== null && !window.allowed) {
    refuse(
      429,
      "rate_limited",
      `Rate limit of ${MANAGE_RATE_LIMIT} requests per minute reached: retry after ${window.retryAfterSeconds} s`,
      { retry_after_seconds: window.retryAfterSeconds },
      {
        "Retry-After": String(window.retryAfterSeconds),
        ...rateLimitHeaders(window, services.clock.now()),
      },
    );
  }
  const header = SITE_NAMING_HEADERS.find((h) => options.headers.has(h));
  if (header !== undefined) {
    refuse(
      400,
      "invalid_request",
      `Cannot choose the site with header "${header}": the site comes from the credential`,
    );
  }
  const site = await findSiteById(services.db, credential.siteId);
  if (!site) unauthorized();
  const actor: CredentialActor = {
    kind: "credential",
    credentialId: credential.id,
    creatorId: credential.creatorId,
    scopes: credential.scopes.filter((s): s is Scope =>
      (SCOPES as readonly string[]).includes(s)
    ),
    models: credential.models,
  };
  const loaded = await loadAuthority(services.db, { siteId: site.id, actor });
  if (!loaded.ok) {
    if (loaded.code === "creator_unauthorized") {
      refuse(
        403,
        "creator_unauthorized",
        "The credential's creator is deactivated or no longer has access to this site",
      );
    }
    unauthorized();
  }
  if (!scopeHeld(loaded.authority.scopes, options.scope)) {
    refuse(
      403,
      "missing_permission",
      `Missing permission: scope ${options.scope}`,
      { missing: [`scope ${options.scope}`] },
    );
  }
  return { site, credential, actor, authority: loaded.authority };
}
