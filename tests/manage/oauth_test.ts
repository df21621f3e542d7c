// Interactive login through app.request(): metadata, loopback registration, the connect page, PKCE S256, rotation, revocation, 30 days unused (MCR-028, MCR-029, MCP-007).
import assert from "node:assert/strict";
import { administratorPermissions } from "../../core/access/default_roles.ts";
import { base64url, sha256Hex } from "../../core/auth/secrets.ts";
import { REFRESH_TOKEN_LIFETIME_MS } from "../../core/oauth/store.ts";
import {
  CookieJar,
  csrfField,
  HOST,
  PASSWORD,
  request,
  setMemberPermissions,
  setupAdmin,
  signInAs,
} from "../admin/helpers.ts";
import type { TestApp } from "../support/app.ts";

const ORIGIN = "http://localhost:8000";
const REDIRECT = "http://127.0.0.1:53682/callback";

async function challengeOf(verifier: string): Promise<string> {
  return base64url(
    new Uint8Array(
      await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier)),
    ),
  );
}

function post(
  t: TestApp,
  path: string,
  body: Record<string, string> | unknown,
  json = false,
): Promise<Response> {
  return Promise.resolve(t.app.request(`${ORIGIN}${path}`, {
    method: "POST",
    headers: {
      "content-type": json
        ? "application/json"
        : "application/x-www-form-urlencoded",
    },
    body: json
      ? JSON.stringify(body)
      : new URLSearchParams(body as Record<string, string>).toString(),
  }));
}

async function register(t: TestApp, uris = [REDIRECT]): Promise<string> {
  const response = await post(t, "/oauth/register", {
    client_name: "svc-manage.mjs",
    redirect_uris: uris,
    token_endpoint_auth_method: "none",
  }, true);
  assert.equal(response.status, 201);
  return (await response.json()).client_id;
}

/** Signs Ada in, opens the connect page and allows; answers the code and the redirect. */
async function authorize(
  t: TestApp,
  options: {
    clientId: string;
    verifier: string;
    email: string;
    siteId: string;
    scope?: string;
    state?: string;
  },
): Promise<{ code: string; location: URL }> {
  const jar = new CookieJar();
  await signInAs(t, jar, { email: options.email, password: PASSWORD });
  const query = new URLSearchParams({
    response_type: "code",
    client_id: options.clientId,
    redirect_uri: REDIRECT,
    code_challenge: await challengeOf(options.verifier),
    code_challenge_method: "S256",
    state: options.state ?? "state-1",
    ...(options.scope ? { scope: options.scope } : {}),
  });
  const connect = await request(t, jar, `/admin/connect?${query}`);
  assert.equal(connect.status, 200);
  const html = await connect.text();
  assert.match(html, /Connect “svc-manage\.mjs”/);
  const allowed = await request(t, jar, "/admin/connect", {
    form: {
      _csrf: csrfField(html),
      client_id: options.clientId,
      redirect_uri: REDIRECT,
      code_challenge: await challengeOf(options.verifier),
      state: options.state ?? "state-1",
      scope: options.scope ?? "",
      site_id: options.siteId,
      action: "allow",
    },
  });
  assert.equal(allowed.status, 303, await allowed.clone().text());
  const location = new URL(allowed.headers.get("location")!);
  return { code: location.searchParams.get("code")!, location };
}

async function exchange(
  t: TestApp,
  clientId: string,
  code: string,
  verifier: string,
): Promise<Response> {
  return await post(t, "/oauth/token", {
    grant_type: "authorization_code",
    code,
    redirect_uri: REDIRECT,
    client_id: clientId,
    code_verifier: verifier,
  });
}

async function setup() {
  const admin = await setupAdmin();
  await setMemberPermissions(
    admin.t.services.db,
    admin.userId,
    administratorPermissions(),
  );
  return admin;
}

Deno.test("authorization server metadata names the service origin as issuer and PKCE S256 (MCR-028, MCR-029)", async () => {
  const { t } = await setup();
  try {
    const response = await t.app.request(
      `${ORIGIN}/.well-known/oauth-authorization-server`,
    );
    const metadata = await response.json();
    assert.equal(metadata.issuer, ORIGIN);
    assert.deepEqual(metadata.code_challenge_methods_supported, ["S256"]);
    assert.equal(metadata.authorization_endpoint, `${ORIGIN}/admin/connect`);
    assert.equal(metadata.token_endpoint, `${ORIGIN}/oauth/token`);
    assert.equal(metadata.registration_endpoint, `${ORIGIN}/oauth/register`);
    assert.equal(metadata.revocation_endpoint, `${ORIGIN}/oauth/revoke`);
    const resource = await (await t.app.request(
      `${ORIGIN}/.well-known/oauth-protected-resource/api/manage/mcp`,
    )).json();
    assert.deepEqual(resource.authorization_servers, [ORIGIN]);
    // An MCP client without a credential is told where to sign in (MCP-007).
    const mcp = await t.app.request(`${ORIGIN}/api/manage/mcp`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }),
    });
    assert.equal(mcp.status, 401);
    assert.match(
      mcp.headers.get("www-authenticate")!,
      /resource_metadata="http:\/\/localhost:8000\/\.well-known\/oauth-protected-resource\/api\/manage\/mcp"/,
    );
  } finally {
    await t.close();
  }
});

Deno.test("client registration accepts only loopback redirect URIs and closed metadata (MCR-029)", async () => {
  const { t } = await setup();
  try {
    for (
      const uri of [
        "http://127.0.0.1:5000/callback",
        "http://localhost:5000/cb",
        "http://[::1]:5000/callback",
      ]
    ) {
      await register(t, [uri]);
    }
    for (
      const uris of [
        ["https://evil.example/callback"],
        ["http://example.com:5000/callback"],
        ["http://127.0.0.1:5000/callback?x=1"],
        ["http://127.0.0.1.evil.example/callback"],
        ["http://127.0.0.1:5000/callback", "https://evil.example/"],
      ]
    ) {
      const response = await post(t, "/oauth/register", {
        redirect_uris: uris,
      }, true);
      assert.equal(response.status, 400, uris.join());
      assert.equal((await response.json()).error, "invalid_redirect_uri");
    }
    const extra = await post(t, "/oauth/register", {
      redirect_uris: [REDIRECT],
      surprise: true,
    }, true);
    assert.equal(extra.status, 400);
    assert.equal((await extra.json()).error, "invalid_client_metadata");
    const count = await t.services.db.selectFrom("oauth_clients")
      .select((eb) => eb.fn.countAll().as("n")).executeTakeFirstOrThrow();
    assert.equal(Number(count.n), 3);
  } finally {
    await t.close();
  }
});

Deno.test("the connect page sends a signed-out person to sign in and back, and refuses without PKCE S256 (MCR-028)", async () => {
  const { t, email } = await setup();
  try {
    const clientId = await register(t);
    const jar = new CookieJar();
    const query = new URLSearchParams({
      response_type: "code",
      client_id: clientId,
      redirect_uri: REDIRECT,
      code_challenge: await challengeOf("v".repeat(43)),
      code_challenge_method: "S256",
      state: "s",
    });
    const out = await request(t, jar, `/admin/connect?${query}`);
    assert.equal(out.status, 303);
    const next = out.headers.get("location")!;
    assert.equal(
      next,
      `/admin/sign-in?next=${encodeURIComponent(`/admin/connect?${query}`)}`,
    );
    const form = await request(t, jar, next);
    const html = await form.text();
    const signedIn = await request(t, jar, "/admin/sign-in", {
      form: {
        _csrf: csrfField(html),
        email,
        password: PASSWORD,
        next: `/admin/connect?${query}`,
      },
    });
    assert.equal(signedIn.headers.get("location"), `/admin/connect?${query}`);

    const plain = new URLSearchParams(query);
    plain.set("code_challenge_method", "plain");
    const refused = await request(t, jar, `/admin/connect?${plain}`);
    assert.equal(refused.status, 303);
    const back = new URL(refused.headers.get("location")!);
    assert.equal(back.origin + back.pathname, REDIRECT);
    assert.equal(back.searchParams.get("error"), "invalid_request");
    assert.equal(back.searchParams.get("iss"), ORIGIN);

    // An unregistered redirect is never followed: the page says why.
    const other = new URLSearchParams(query);
    other.set("redirect_uri", "http://127.0.0.1:1/callback");
    const page = await request(t, jar, `/admin/connect?${other}`);
    assert.equal(page.status, 400);
    assert.equal(page.headers.get("location"), null);

    // Cancel answers access_denied to the client.
    const connect = await request(t, jar, `/admin/connect?${query}`);
    const cancel = await request(t, jar, "/admin/connect", {
      form: {
        _csrf: csrfField(await connect.text()),
        client_id: clientId,
        redirect_uri: REDIRECT,
        code_challenge: await challengeOf("v".repeat(43)),
        state: "s",
        scope: "",
        action: "deny",
      },
    });
    const denied = new URL(cancel.headers.get("location")!);
    assert.equal(denied.searchParams.get("error"), "access_denied");
    assert.equal(denied.searchParams.get("state"), "s");
  } finally {
    await t.close();
  }
});

Deno.test("a code becomes tokens once with the right verifier; the access token works on the API and MCP; digests only (MCR-028, MCR-029, MCP-007)", async () => {
  const { t, email, siteId } = await setup();
  try {
    const clientId = await register(t);
    const verifier = base64url(crypto.getRandomValues(new Uint8Array(32)));
    const { code, location } = await authorize(t, {
      clientId,
      verifier,
      email,
      siteId,
      scope: "content:read settings:write",
    });
    assert.equal(location.searchParams.get("state"), "state-1");
    assert.equal(location.searchParams.get("iss"), ORIGIN);

    const wrong = await exchange(t, clientId, code, "w".repeat(43));
    assert.equal(wrong.status, 400);
    assert.equal((await wrong.json()).error, "invalid_grant");

    const { code: code2 } = await authorize(t, {
      clientId,
      verifier,
      email,
      siteId,
      scope: "content:read settings:write",
    });
    const tokens = await exchange(t, clientId, code2, verifier);
    assert.equal(tokens.status, 200);
    assert.equal(tokens.headers.get("cache-control"), "no-store");
    const answer = await tokens.json();
    assert.match(answer.access_token, /^sva_[A-Za-z0-9_-]{43}$/);
    assert.match(answer.refresh_token, /^svr_[A-Za-z0-9_-]{43}$/);
    assert.equal(answer.scope, "content:read settings:write");
    assert.equal(answer.site.domain, HOST);

    const site = await t.app.request(`${ORIGIN}/api/manage/v1/site`, {
      headers: { authorization: `Bearer ${answer.access_token}` },
    });
    assert.equal(site.status, 200);
    assert.equal((await site.json()).domain, HOST);
    const tools = await (await t.app.request(`${ORIGIN}/api/manage/mcp`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        authorization: `Bearer ${answer.access_token}`,
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    })).json();
    assert.ok(
      tools.result.tools.some((tool: { name: string }) =>
        tool.name === "add_language"
      ),
    );

    const rows = await t.services.db.selectFrom("oauth_refresh_tokens")
      .selectAll().execute();
    assert.equal(rows.length, 1);
    assert.equal(rows[0].token_digest, await sha256Hex(answer.refresh_token));
    const dump = JSON.stringify(
      await Array.fromAsync(t.services.kv.list({ prefix: ["oauth"] })),
    );
    assert.ok(!dump.includes(answer.access_token));
    assert.ok(!dump.includes(code2));
  } finally {
    await t.close();
  }
});

function callApi(t: TestApp, accessToken: string): Promise<Response> {
  return Promise.resolve(t.app.request(`${ORIGIN}/api/manage/v1/site`, {
    headers: { authorization: `Bearer ${accessToken}` },
  }));
}

function callMcp(t: TestApp, accessToken: string): Promise<Response> {
  return Promise.resolve(t.app.request(`${ORIGIN}/api/manage/mcp`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      authorization: `Bearer ${accessToken}`,
    },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
  }));
}

function refreshWith(
  t: TestApp,
  clientId: string,
  refreshToken: string,
): Promise<Response> {
  return post(t, "/oauth/token", {
    grant_type: "refresh_token",
    refresh_token: refreshToken,
    client_id: clientId,
  });
}

Deno.test("a replayed code is refused and revokes every access and refresh token issued from it, on the API and MCP (MCR-029, RFC 6749 4.1.2)", async () => {
  const { t, email, siteId } = await setup();
  try {
    const clientId = await register(t);
    const verifier = base64url(crypto.getRandomValues(new Uint8Array(32)));
    const { code } = await authorize(t, { clientId, verifier, email, siteId });
    const first = await (await exchange(t, clientId, code, verifier)).json();
    // A rotation keeps the sign-in: its new tokens were issued from the same code.
    const rotated = await (await refreshWith(t, clientId, first.refresh_token))
      .json();
    assert.match(rotated.refresh_token, /^svr_/);
    // Another sign-in of the same person must not be touched by the replay.
    const { code: otherCode } = await authorize(t, {
      clientId,
      verifier,
      email,
      siteId,
    });
    const other = await (await exchange(t, clientId, otherCode, verifier))
      .json();
    for (const token of [first.access_token, rotated.access_token]) {
      assert.equal((await callApi(t, token)).status, 200);
      assert.equal((await callMcp(t, token)).status, 200);
    }

    const replay = await exchange(t, clientId, code, verifier);
    assert.equal(replay.status, 400);
    const refusal = await replay.json();
    assert.equal(refusal.error, "invalid_grant");
    assert.equal(refusal.access_token, undefined);

    for (const token of [first.access_token, rotated.access_token]) {
      assert.equal((await callApi(t, token)).status, 401);
      assert.equal((await callMcp(t, token)).status, 401);
    }
    const refreshed = await refreshWith(t, clientId, rotated.refresh_token);
    assert.equal(refreshed.status, 400);
    assert.equal((await refreshed.json()).error, "invalid_grant");
    // Exactly one sign-in ended: the replayed code's (the other still works below).
    const credentials = await t.services.db.selectFrom("management_credentials")
      .select("revoked_at").execute();
    assert.deepEqual(
      credentials.map((c) => c.revoked_at === null).sort(),
      [false, true],
    );
    assert.equal((await callApi(t, other.access_token)).status, 200);
    assert.equal((await callMcp(t, other.access_token)).status, 200);
    assert.equal(
      (await refreshWith(t, clientId, other.refresh_token)).status,
      200,
    );
  } finally {
    await t.close();
  }
});

Deno.test("two exchanges of one code at once: one gets tokens, the other is refused, and the tokens given stop working (MCR-029, RFC 6749 4.1.2)", async () => {
  const { t, email, siteId } = await setup();
  try {
    const clientId = await register(t);
    const verifier = base64url(crypto.getRandomValues(new Uint8Array(32)));
    const { code } = await authorize(t, { clientId, verifier, email, siteId });
    const answers = await Promise.all([
      exchange(t, clientId, code, verifier),
      exchange(t, clientId, code, verifier),
    ]);
    const statuses = answers.map((a) => a.status).sort();
    assert.deepEqual(statuses, [200, 400]);
    const won = await answers.find((a) => a.status === 200)!.json();
    const lost = await answers.find((a) => a.status === 400)!.json();
    assert.equal(lost.error, "invalid_grant");
    assert.equal((await callApi(t, won.access_token)).status, 401);
    assert.equal((await callMcp(t, won.access_token)).status, 401);
    assert.equal(
      (await refreshWith(t, clientId, won.refresh_token)).status,
      400,
    );
  } finally {
    await t.close();
  }
});

Deno.test("refresh tokens rotate on use, stop after revocation, and expire after 30 days unused (MCR-029)", async () => {
  const { t, email, siteId } = await setup();
  try {
    const clientId = await register(t);
    const verifier = base64url(crypto.getRandomValues(new Uint8Array(32)));
    const { code } = await authorize(t, { clientId, verifier, email, siteId });
    const first = await (await exchange(t, clientId, code, verifier)).json();
    const refresh = (token: string) =>
      post(t, "/oauth/token", {
        grant_type: "refresh_token",
        refresh_token: token,
        client_id: clientId,
      });

    // The last day counts: 30 days minus 1 ms after the last use still works.
    t.clock.advance(REFRESH_TOKEN_LIFETIME_MS - 1);
    const second = await refresh(first.refresh_token);
    assert.equal(second.status, 200);
    const rotated = await second.json();
    assert.notEqual(rotated.refresh_token, first.refresh_token);
    const old = await refresh(first.refresh_token);
    assert.equal(old.status, 400);
    assert.equal((await old.json()).error, "invalid_grant");

    t.clock.advance(REFRESH_TOKEN_LIFETIME_MS);
    const expired = await refresh(rotated.refresh_token);
    assert.equal(expired.status, 400);

    // A fresh sign-in, then revoked: refresh and access stop at once.
    const { code: again } = await authorize(t, {
      clientId,
      verifier,
      email,
      siteId,
    });
    const live = await (await exchange(t, clientId, again, verifier)).json();
    const revoked = await post(t, "/oauth/revoke", {
      token: live.refresh_token,
      token_type_hint: "refresh_token",
      client_id: clientId,
    });
    assert.equal(revoked.status, 200);
    assert.equal((await refresh(live.refresh_token)).status, 400);
    const api = await t.app.request(`${ORIGIN}/api/manage/v1/site`, {
      headers: { authorization: `Bearer ${live.access_token}` },
    });
    assert.equal(api.status, 401);
  } finally {
    await t.close();
  }
});

Deno.test("the token, registration and revocation endpoints answer bad input with OAuth error codes, never a 500, and change nothing", async () => {
  const { t, email, siteId } = await setup();
  try {
    const clientId = await register(t);
    const otherClient = await register(t, ["http://127.0.0.1:9999/callback"]);
    const verifier = base64url(crypto.getRandomValues(new Uint8Array(32)));
    const { code } = await authorize(t, { clientId, verifier, email, siteId });
    const cases: [Record<string, string>, string][] = [
      [{}, "invalid_client"],
      [{ grant_type: "password", username: "a", password: "b" }, ""],
      [{ grant_type: "client_credentials", client_id: clientId }, ""],
      [{
        grant_type: "authorization_code",
        code,
        redirect_uri: REDIRECT,
        client_id: "svcl_unknown",
        code_verifier: verifier,
      }, "invalid_client"],
      [{
        grant_type: "authorization_code",
        code,
        redirect_uri: REDIRECT,
        client_id: otherClient,
        code_verifier: verifier,
      }, "invalid_grant"],
      [{
        grant_type: "authorization_code",
        code,
        redirect_uri: "http://127.0.0.1:1/callback",
        client_id: clientId,
        code_verifier: verifier,
      }, "invalid_request"],
      [{
        grant_type: "authorization_code",
        code,
        redirect_uri: REDIRECT,
        client_id: clientId,
      }, "invalid_request"],
      [{
        grant_type: "refresh_token",
        refresh_token: "svr_nothing",
        client_id: clientId,
      }, "invalid_grant"],
    ];
    for (const [body, error] of cases) {
      const response = await post(t, "/oauth/token", body);
      assert.ok(
        response.status === 400 || response.status === 401,
        `${JSON.stringify(body)}: ${response.status}`,
      );
      const answer = await response.json();
      assert.equal(typeof answer.error, "string");
      if (error) assert.equal(answer.error, error, JSON.stringify(body));
    }
    assert.equal(
      (await t.services.db.selectFrom("oauth_refresh_tokens").selectAll()
        .execute()).length,
      0,
    );
    const notJson = await t.app.request(`${ORIGIN}/oauth/register`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{",
    });
    assert.equal(notJson.status, 400);
    const revoke = await post(t, "/oauth/revoke", { token: "garbage" });
    assert.equal(revoke.status, 200);
  } finally {
    await t.close();
  }
});
