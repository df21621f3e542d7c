// The authorization request of interactive login: checked before the connect page shows, answered with a code or a refusal.
import OAuth2Server from "@node-oauth/oauth2-server";
import { SCOPES } from "../access/scopes.ts";
import type { SignInUser } from "./model.ts";
import { oauthServer } from "./endpoints.ts";
import { findClient, type OAuthClient, type OAuthStores } from "./store.ts";

/** The parameters of an authorization request, as the connect page carries them. */
export interface AuthorizeParams {
  client_id: string;
  redirect_uri: string;
  code_challenge: string;
  state: string;
  /** Scopes asked for; every scope when left out. */
  scopes: string[];
}

/** A checked request, or why it cannot go on: `redirect` when the client may be told, else a page. */
export type AuthorizeCheck =
  | { ok: true; client: OAuthClient; params: AuthorizeParams }
  | { ok: false; message: string; redirect?: string };

const NAMES = [
  "response_type",
  "client_id",
  "redirect_uri",
  "code_challenge",
  "code_challenge_method",
  "state",
  "scope",
];

/** Where a refusal goes once the client and its redirect URI are known good (RFC 6749 4.1.2.1, RFC 9207 `iss`). */
export function errorRedirect(
  origin: string,
  redirectUri: string,
  error: string,
  state: string | null,
): string {
  const url = new URL(redirectUri);
  url.searchParams.set("error", error);
  if (state) url.searchParams.set("state", state);
  url.searchParams.set("iss", origin);
  return url.toString();
}

/** Checks an authorization request: known client, registered loopback redirect, PKCE S256, a state. */
export async function checkAuthorize(
  stores: OAuthStores,
  origin: string,
  raw: Record<string, string | string[] | undefined>,
): Promise<AuthorizeCheck> {
  const one = (name: string): string | null => {
    const value = raw[name];
    return typeof value === "string" ? value : null;
  };
  for (const name of NAMES) {
    if (Array.isArray(raw[name])) {
      return { ok: false, message: `The parameter "${name}" is given twice` };
    }
  }
  const client = await findClient(stores.db, one("client_id") ?? "");
  if (!client) {
    return { ok: false, message: "This sign-in names an unknown application" };
  }
  const redirectUri = one("redirect_uri") ?? "";
  if (!client.redirectUris.includes(redirectUri)) {
    return {
      ok: false,
      message: "This sign-in names an address the application did not register",
    };
  }
  const state = one("state");
  const fail = (error: string, message: string): AuthorizeCheck => ({
    ok: false,
    message,
    redirect: errorRedirect(origin, redirectUri, error, state),
  });
  if (one("response_type") !== "code") {
    return fail("unsupported_response_type", "Only response_type=code");
  }
  if (!state || state.length > 500) {
    return fail("invalid_request", "A state is required");
  }
  const challenge = one("code_challenge") ?? "";
  if (
    one("code_challenge_method") !== "S256" ||
    !/^[A-Za-z0-9_-]{43}$/.test(challenge)
  ) {
    return fail(
      "invalid_request",
      "PKCE with code_challenge_method=S256 is required",
    );
  }
  const asked = (one("scope") ?? "").split(" ").filter(Boolean);
  if (asked.some((s) => !(SCOPES as readonly string[]).includes(s))) {
    return fail("invalid_scope", "An unknown scope is asked for");
  }
  return {
    ok: true,
    client,
    params: {
      client_id: client.id,
      redirect_uri: redirectUri,
      code_challenge: challenge,
      state,
      scopes: asked.length > 0 ? [...new Set(asked)] : [...SCOPES],
    },
  };
}

/** Issues a code for the person on the chosen site with `scopes`; answers the redirect with `code`, `state` and `iss`. */
export async function grantCode(
  stores: OAuthStores,
  options: {
    origin: string;
    params: AuthorizeParams;
    user: SignInUser;
    scopes: string[];
  },
): Promise<string> {
  const { params } = options;
  const query = {
    response_type: "code",
    client_id: params.client_id,
    redirect_uri: params.redirect_uri,
    code_challenge: params.code_challenge,
    code_challenge_method: "S256",
    state: params.state,
    scope: options.scopes.join(" "),
  };
  const request = new OAuth2Server.Request({
    method: "GET",
    headers: {},
    query,
    body: {},
  });
  const response = new OAuth2Server.Response();
  await oauthServer(stores).authorize(request, response, {
    authenticateHandler: { handle: () => options.user },
  });
  const location = new URL(response.headers!.location as string);
  location.searchParams.set("iss", options.origin);
  return location.toString();
}
