// Who calls the Management API: bearer credential, its site, rate window, authority re-read now, and the route's scope.
import type { CredentialActor } from "../access/actor.ts";
import { type RawBuilder, sql } from "kysely";
import {
  type Authority,
  authorityFromRows,
  type MembershipRow,
} from "../access/authority.ts";
import { type Scope, scopeHeld, SCOPES } from "../access/scopes.ts";
import { sha256Hex } from "../auth/secrets.ts";
import {
  CREDENTIAL_PATTERN,
  type CredentialRecord,
} from "../credentials/credential_store.ts";
import type { Db } from "../db/database.ts";
import { prebuilt } from "../db/prebuilt.ts";
import type { ActorSnapshot } from "../entries/actor_snapshot.ts";
import {
  ACCESS_TOKEN_PREFIX,
  credentialIdOfAccessToken,
} from "../oauth/store.ts";
import type { RateDecision, RateWindow } from "../kv/rate_window.ts";
import type { Services } from "../services.ts";
import { type SiteRecord, siteRecordOf } from "../sites/site_store.ts";
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
  /** The credential as a command's workflow events and audit entry name it, read with it. */
  snapshot?: ActorSnapshot;
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

/** A caller's credential with its site and its creator's role there, read in one statement. */
interface CallerRows {
  credential: CredentialRecord;
  site: SiteRecord | null;
  membership: MembershipRow | null;
  creatorEmail: string | null;
}

interface CallerRow {
  id: string;
  site_id: string;
  creator_id: string;
  name: string;
  scopes: string[];
  models: string[] | null;
  created_at: Date;
  revoked_at: Date | null;
  s_id: string | null;
  s_slug: string;
  s_name: string;
  s_domain: string;
  s_languages: { code: string; is_default: boolean }[] | string;
  m_status: string | null;
  m_role_id: string;
  m_permissions: unknown;
  creator_email: string | null;
}

/**
 * The live credential a bearer names, with its site, the site's languages and its creator's
 * status and role on that site: every row authentication needs, in one statement.
 */
async function readCaller(
  db: Db,
  where: { digest: string } | { id: string },
): Promise<CallerRows | null> {
  const row = "digest" in where
    ? await CALLER_BY_DIGEST.first(db, { key: where.digest })
    : await CALLER_BY_ID.first(db, { key: where.id });
  if (!row) return null;
  const languages = typeof row.s_languages === "string"
    ? JSON.parse(row.s_languages)
    : row.s_languages;
  return {
    credential: {
      id: row.id,
      siteId: row.site_id,
      creatorId: row.creator_id,
      name: row.name,
      scopes: row.scopes,
      models: row.models,
      createdAt: row.created_at,
      revokedAt: row.revoked_at,
    },
    site: row.s_id === null ? null : siteRecordOf({
      id: row.s_id,
      slug: row.s_slug,
      name: row.s_name,
      domain: row.s_domain,
    }, languages),
    membership: row.m_status === null ? null : {
      status: row.m_status,
      role_id: row.m_role_id,
      permissions: row.m_permissions,
    },
    creatorEmail: row.creator_email,
  };
}

/** {@linkcode readCaller}'s statement, the credential matched by `match` and the value `key`. */
function callerStatement(match: (key: string) => RawBuilder<unknown>) {
  return prebuilt((_db, v: { key: string }) =>
    sql<CallerRow>`
    select c.id, c.site_id, c.creator_id, c.name, c.scopes, c.models, c.created_at,
      c.revoked_at, s.id as s_id, s.slug as s_slug, s.name as s_name, s.domain as s_domain,
      (select coalesce(json_agg(json_build_object('code', l.code, 'is_default', l.is_default)
        order by l.position), '[]'::json)
        from site_languages l where l.site_id = s.id) as s_languages,
      m.status as m_status, m.role_id as m_role_id, m.permissions as m_permissions,
      (select u.email from users u where u.id = c.creator_id) as creator_email
    from management_credentials c
    left join sites s on s.id = c.site_id
    left join lateral (
      select u.status, r.id as role_id, r.permissions
      from users u
      join site_members sm on sm.user_id = u.id
      join roles r on r.id = sm.role_id
      where u.id = c.creator_id and sm.site_id = c.site_id and r.site_id = c.site_id
      limit 1
    ) m on true
    where ${match(v.key)} and c.revoked_at is null
  `
  );
}

const CALLER_BY_DIGEST = callerStatement((key) =>
  sql`c.secret_digest = ${key}`
);
const CALLER_BY_ID = callerStatement((key) => sql`c.id = ${key}`);

/**
 * The credential a bearer names: a management credential's secret, or an access token of
 * an interactive sign-in (spec 2 part 5.2), which acts as the sign-in's credential.
 */
async function findCaller(
  services: Services,
  bearer: string,
): Promise<CallerRows | null> {
  if (bearer.startsWith(ACCESS_TOKEN_PREFIX)) {
    const id = await credentialIdOfAccessToken(services, bearer);
    return id === null ? null : await readCaller(services.db, { id });
  }
  if (!CREDENTIAL_PATTERN.test(bearer)) return null;
  return await readCaller(services.db, { digest: await sha256Hex(bearer) });
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
  const caller = await findCaller(services, match[1]);
  if (!caller) unauthorized();
  const { credential } = caller;
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
  const site = caller.site;
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
  // The credential's own row and its creator's role, as read above: the authority now.
  const loaded = authorityFromRows(site.id, actor, {
    creator_id: credential.creatorId,
    scopes: credential.scopes,
    models: credential.models,
    revoked_at: credential.revokedAt,
  }, caller.membership);
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
  // Who the command's events and audit entry name, as snapshotActor would read it in the
  // command's transaction a moment later.
  const snapshot: ActorSnapshot | undefined = caller.creatorEmail === null
    ? undefined
    : {
      kind: "credential",
      credential_id: credential.id,
      name: credential.name,
      creator_id: credential.creatorId,
      creator_email: caller.creatorEmail,
    };
  return { site, credential, actor, authority: loaded.authority, snapshot };
}
