// The authorization server of interactive login (spec 2 part 5.2): metadata, client registration, token and revocation.
import OAuth2Server from "@node-oauth/oauth2-server";
import { type Context, Hono } from "hono";
import { bodyLimit } from "hono/body-limit";
import { z } from "zod";
import { SCOPES } from "../access/scopes.ts";
import type { Services } from "../services.ts";
import type { AppEnv } from "../web/env.ts";
import { handleError, HttpError } from "../web/errors.ts";
import { oauthModel } from "./model.ts";
import {
  ACCESS_TOKEN_LIFETIME_MS,
  CODE_LIFETIME_MS,
  credentialIdOfAccessToken,
  findRefreshToken,
  isLoopbackRedirect,
  type OAuthStores,
  REFRESH_TOKEN_LIFETIME_MS,
  registerClient,
  revokeSignIn,
} from "./store.ts";

/** Paths of the authorization server, below the public origin. */
export const OAUTH_PATHS = {
  metadata: "/.well-known/oauth-authorization-server",
  resource: "/.well-known/oauth-protected-resource",
  authorize: "/admin/connect",
  token: "/oauth/token",
  register: "/oauth/register",
  revoke: "/oauth/revoke",
} as const;

/** The authorization server metadata (RFC 8414); the issuer is the service's origin. */
export function authorizationServerMetadata(origin: string) {
  return {
    issuer: origin,
    authorization_endpoint: `${origin}${OAUTH_PATHS.authorize}`,
    token_endpoint: `${origin}${OAUTH_PATHS.token}`,
    registration_endpoint: `${origin}${OAUTH_PATHS.register}`,
    revocation_endpoint: `${origin}${OAUTH_PATHS.revoke}`,
    response_types_supported: ["code"],
    grant_types_supported: ["authorization_code", "refresh_token"],
    code_challenge_methods_supported: ["S256"],
    token_endpoint_auth_methods_supported: ["none"],
    revocation_endpoint_auth_methods_supported: ["none"],
    scopes_supported: [...SCOPES],
    authorization_response_iss_parameter_supported: true,
  };
}

/** RFC 7591 client metadata this server reads; anything else is refused. */
const registration = z.strictObject({
  redirect_uris: z.array(z.string().max(2000)).min(1).max(5),
  client_name: z.string().min(1).max(100).optional(),
  client_uri: z.string().max(2000).optional(),
  logo_uri: z.string().max(2000).optional(),
  scope: z.string().max(1000).optional(),
  contacts: z.array(z.string().max(200)).max(10).optional(),
  tos_uri: z.string().max(2000).optional(),
  policy_uri: z.string().max(2000).optional(),
  software_id: z.string().max(200).optional(),
  software_version: z.string().max(100).optional(),
  token_endpoint_auth_method: z.literal("none").optional(),
  grant_types: z.array(z.enum(["authorization_code", "refresh_token"]))
    .optional(),
  response_types: z.array(z.literal("code")).optional(),
});

function oauthError(
  c: Context,
  status: 400 | 401,
  error: string,
  description: string,
) {
  return c.json({ error, error_description: description }, status, {
    "Cache-Control": "no-store",
  });
}

/** The library's request object for a Hono request whose form body is already read. */
export function libraryRequest(
  c: Context,
  body: Record<string, string>,
  text: string,
): OAuth2Server.Request {
  const headers: Record<string, string> = {};
  c.req.raw.headers.forEach((value, name) => (headers[name] = value));
  // type-is only sees a body when a length is named.
  headers["content-length"] = String(new TextEncoder().encode(text).length);
  return new OAuth2Server.Request({
    method: c.req.method,
    headers,
    query: Object.fromEntries(new URL(c.req.url).searchParams),
    body,
  });
}

/** The library's server for these stores. */
export function oauthServer(stores: OAuthStores): OAuth2Server {
  return new OAuth2Server({
    model: oauthModel(stores),
    accessTokenLifetime: ACCESS_TOKEN_LIFETIME_MS / 1000,
    refreshTokenLifetime: REFRESH_TOKEN_LIFETIME_MS / 1000,
    authorizationCodeLifetime: CODE_LIFETIME_MS / 1000,
    allowEmptyState: false,
    alwaysIssueNewRefreshToken: true,
    allowExtendedTokenAttributes: true,
    requireClientAuthentication: {
      authorization_code: false,
      refresh_token: false,
    },
  });
}

/** Creates the authorization server; mount it at the root before the file routes. */
export function createOAuthEndpoints(services: Services): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const origin = new URL(services.config.publicUrl).origin;
  const stores: OAuthStores = services;
  const limit = bodyLimit({
    maxSize: 64 * 1024,
    onError: () => {
      throw new HttpError(413, "payload_too_large", "The body is too large");
    },
  });

  app.get(
    OAUTH_PATHS.metadata,
    (c) => c.json(authorizationServerMetadata(origin)),
  );
  const resource = (c: Context) =>
    c.json({
      resource: `${origin}/api/manage/mcp`,
      authorization_servers: [origin],
      scopes_supported: [...SCOPES],
      bearer_methods_supported: ["header"],
    });
  app.get(OAUTH_PATHS.resource, resource);
  app.get(`${OAUTH_PATHS.resource}/api/manage/mcp`, resource);

  app.post(OAUTH_PATHS.register, limit, async function registerOAuthClient(c) {
    let value: unknown;
    try {
      value = await c.req.json();
    } catch {
      return oauthError(
        c,
        400,
        "invalid_client_metadata",
        "The body must be a JSON object",
      );
    }
    const parsed = registration.safeParse(value);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      return oauthError(
        c,
        400,
        "invalid_client_metadata",
        `${issue.path.join(".") || "body"}: ${issue.message}`,
      );
    }
    const bad = parsed.data.redirect_uris.find((u) => !isLoopbackRedirect(u));
    if (bad !== undefined) {
      return oauthError(
        c,
        400,
        "invalid_redirect_uri",
        "Only loopback redirect URIs are accepted: http://127.0.0.1:<port>/…, http://localhost:<port>/… or http://[::1]:<port>/…",
      );
    }
    const client = await registerClient(stores, {
      name: parsed.data.client_name ?? "Unnamed client",
      redirectUris: parsed.data.redirect_uris,
    });
    return c.json(
      {
        client_id: client.id,
        client_id_issued_at: Math.floor(services.clock.now().getTime() / 1000),
        client_name: client.name,
        redirect_uris: client.redirectUris,
        grant_types: ["authorization_code", "refresh_token"],
        response_types: ["code"],
        token_endpoint_auth_method: "none",
      },
      201,
      { "Cache-Control": "no-store" },
    );
  });

  app.post(OAUTH_PATHS.token, limit, async function token(c) {
    const text = await c.req.text();
    const body = Object.fromEntries(new URLSearchParams(text));
    const request = libraryRequest(c, body, text);
    // PKCE is required: a code without a verifier never becomes a token.
    if (body.grant_type === "authorization_code" && !body.code_verifier) {
      return oauthError(c, 400, "invalid_request", "code_verifier is required");
    }
    const response = new OAuth2Server.Response();
    try {
      const issued = await oauthServer(stores).token(request, response);
      const answer = response.body as Record<string, unknown>;
      if (Array.isArray(answer.scope)) answer.scope = answer.scope.join(" ");
      delete answer.user;
      delete answer.client;
      return c.json({ ...answer, site: issued.site ?? null }, 200, {
        "Cache-Control": "no-store",
        Pragma: "no-cache",
      });
    } catch (error) {
      if (error instanceof OAuth2Server.OAuthError) {
        return oauthError(
          c,
          error.code === 401 ? 401 : 400,
          error.name,
          error.message,
        );
      }
      throw error;
    }
  });

  app.post(OAUTH_PATHS.revoke, limit, async function revoke(c) {
    const form = new URLSearchParams(await c.req.text());
    const token = form.get("token") ?? "";
    const clientId = form.get("client_id") ?? "";
    const refresh = await findRefreshToken(stores, token);
    if (refresh && refresh.clientId === clientId) {
      await revokeSignIn(stores, refresh.credentialId);
    } else {
      const credentialId = await credentialIdOfAccessToken(stores, token);
      if (credentialId) await revokeSignIn(stores, credentialId);
    }
    // RFC 7009: an unknown or already revoked token is answered the same way.
    return c.body(null, 200, { "Cache-Control": "no-store" });
  });

  app.onError((error, c) => handleError(error, c as Context<AppEnv>));
  return app;
}
