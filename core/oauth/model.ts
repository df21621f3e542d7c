// The storage model @node-oauth/oauth2-server calls: it checks PKCE, redirect URIs, code reuse and rotation; we keep digests.
import type OAuth2Server from "@node-oauth/oauth2-server";
import { randomToken } from "../auth/secrets.ts";
import { SCOPES } from "../access/scopes.ts";
import {
  ACCESS_TOKEN_PREFIX,
  CODE_PREFIX,
  consumeCode,
  createSignInCredential,
  deleteRefreshToken,
  findClient,
  findCode,
  findRefreshToken,
  linkCodeToSignIn,
  type OAuthStores,
  REFRESH_TOKEN_PREFIX,
  revokeReplayedCode,
  saveAccessToken,
  saveCode,
  saveRefreshToken,
} from "./store.ts";

/** The person and site a code or token acts for; `credentialId` once a sign-in exists. */
export interface SignInUser {
  id: string;
  siteId: string;
  credentialId?: string;
  site?: { id: string; name: string; domain: string };
}

// Expiry is decided by our injected clock before a record is handed to the library; the
// library compares against the wall clock, so it is given a far expiry it never reaches.
const FAR = new Date("9999-01-01T00:00:00.000Z");

const GRANTS = ["authorization_code", "refresh_token"];

/** The model for one request's stores. */
export function oauthModel(
  stores: OAuthStores,
): OAuth2Server.AuthorizationCodeModel & OAuth2Server.RefreshTokenModel {
  return {
    async getClient(clientId: string) {
      const client = await findClient(stores.db, String(clientId));
      if (!client) return null;
      return {
        id: client.id,
        redirectUris: client.redirectUris,
        grants: GRANTS,
        name: client.name,
      };
    },
    generateAuthorizationCode: () => Promise.resolve(randomToken(CODE_PREFIX)),
    generateAccessToken: () =>
      Promise.resolve(randomToken(ACCESS_TOKEN_PREFIX)),
    generateRefreshToken: () =>
      Promise.resolve(randomToken(REFRESH_TOKEN_PREFIX)),
    validateScope(_user, _client, scope) {
      const asked = scope ?? [];
      const known = asked.filter((s) =>
        (SCOPES as readonly string[]).includes(s)
      );
      return Promise.resolve(
        known.length === asked.length && known.length > 0 ? known : false,
      );
    },
    async saveAuthorizationCode(code, client, user) {
      const u = user as SignInUser;
      await saveCode(stores, code.authorizationCode, {
        clientId: client.id,
        redirectUri: code.redirectUri,
        siteId: u.siteId,
        userId: u.id,
        scopes: code.scope ?? [],
        codeChallenge: code.codeChallenge ?? "",
        codeChallengeMethod: code.codeChallengeMethod ?? "",
      });
      return { ...code, expiresAt: code.expiresAt, client, user };
    },
    async getAuthorizationCode(authorizationCode: string) {
      const record = await findCode(stores, String(authorizationCode));
      if (!record) {
        // The library answers invalid_grant for an unknown code; a used one also ends its sign-in.
        await revokeReplayedCode(stores, String(authorizationCode));
        return null;
      }
      return {
        authorizationCode,
        expiresAt: FAR,
        redirectUri: record.redirectUri,
        scope: record.scopes,
        client: { id: record.clientId, grants: GRANTS },
        user: { id: record.userId, siteId: record.siteId } as SignInUser,
        codeChallenge: record.codeChallenge,
        codeChallengeMethod: record.codeChallengeMethod,
      };
    },
    async revokeAuthorizationCode(code) {
      if (await consumeCode(stores, code.authorizationCode)) return true;
      // Two exchanges raced for one code: the loser is a replay too.
      await revokeReplayedCode(stores, code.authorizationCode);
      return false;
    },
    async getRefreshToken(refreshToken: string) {
      const found = await findRefreshToken(stores, String(refreshToken));
      if (!found) return null;
      return {
        refreshToken,
        scope: found.scopes,
        client: { id: found.clientId, grants: GRANTS },
        user: {
          id: found.userId,
          siteId: found.siteId,
          credentialId: found.credentialId,
        } as SignInUser,
      };
    },
    revokeToken(token) {
      return deleteRefreshToken(stores.db, token.refreshToken);
    },
    async saveToken(token, client, user) {
      const u = user as SignInUser;
      let credentialId = u.credentialId;
      if (credentialId === undefined) {
        const full = await findClient(stores.db, client.id);
        if (!full) return null;
        const credential = await createSignInCredential(stores, {
          siteId: u.siteId,
          userId: u.id,
          scopes: token.scope ?? [],
          client: full,
        });
        credentialId = credential.id;
        if (token.authorizationCode) {
          await linkCodeToSignIn(stores, token.authorizationCode, credentialId);
        }
      }
      const access = await saveAccessToken(
        stores,
        token.accessToken,
        credentialId,
      );
      await saveRefreshToken(stores, {
        token: token.refreshToken!,
        credentialId,
        clientId: client.id,
      });
      const site = await stores.db.selectFrom("sites").select([
        "id",
        "name",
        "domain",
      ]).where("id", "=", u.siteId).executeTakeFirst();
      return {
        accessToken: access.token,
        accessTokenExpiresAt: access.expiresAt,
        refreshToken: token.refreshToken,
        scope: token.scope,
        client,
        user: { ...u, credentialId },
        site: site ?? null,
      };
    },
    getAccessToken() {
      // The Management API reads access tokens itself (core/manage/authenticate.ts).
      return Promise.resolve(null);
    },
  };
}
