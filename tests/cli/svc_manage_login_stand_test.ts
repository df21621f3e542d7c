// svc-manage.mjs login and saved-login renewal against a stand-in authorization server, without a
// browser: the loopback listener and its one redirect URI, the connect address, renewal under the
// lock, and a dead refresh token (spec 2 part 4.4; CLI-014, CLI-015, CLI-019, CLI-020).
import assert from "node:assert/strict";
import { runCli, serveOnLoopback, startLogin } from "./svc_manage_support.ts";

/** A stand-in service: metadata, client registration, rotating refresh tokens and `GET /site`. */
function standService() {
  const registrations: { redirect_uris: string[] }[] = [];
  /** Every refresh token presented to the token endpoint, in order. */
  const presented: string[] = [];
  const live = new Set<string>();
  const access = new Set<string>();
  let issued = 0;
  const stand = serveOnLoopback(async (request) => {
    const url = new URL(request.url);
    if (url.pathname === "/.well-known/oauth-authorization-server") {
      return Response.json({
        issuer: stand.url,
        authorization_endpoint: `${stand.url}/admin/connect`,
        token_endpoint: `${stand.url}/oauth/token`,
        registration_endpoint: `${stand.url}/oauth/register`,
        revocation_endpoint: `${stand.url}/oauth/revoke`,
        code_challenge_methods_supported: ["S256"],
      });
    }
    if (url.pathname === "/oauth/register") {
      registrations.push(await request.json());
      return Response.json({ client_id: "c1" }, { status: 201 });
    }
    if (url.pathname === "/oauth/token") {
      const form = new URLSearchParams(await request.text());
      const token = form.get("refresh_token")!;
      presented.push(token);
      // A refresh token works once: a second use of a rotated one is refused.
      if (!live.delete(token)) {
        return Response.json({ error: "invalid_grant" }, { status: 400 });
      }
      const next = `svr_${++issued}`;
      live.add(next);
      const bearer = `sva_${issued}`;
      access.add(bearer);
      return Response.json({
        access_token: bearer,
        token_type: "Bearer",
        refresh_token: next,
      });
    }
    if (url.pathname === "/api/manage/v1/site") {
      const bearer = request.headers.get("authorization")?.slice(7) ?? "";
      if (!access.has(bearer)) {
        return Response.json({ error: { code: "unauthorized" } }, {
          status: 401,
        });
      }
      return Response.json({ id: "s", domain: "127.0.0.1" });
    }
    return new Response("not found", { status: 404 });
  });
  return { stand, registrations, presented, live };
}

Deno.test("svc-manage.mjs login listens on 127.0.0.1 only and registers one redirect URI http://127.0.0.1:<port>/callback (CLI-014)", async () => {
  const { stand, registrations } = standService();
  const config = await Deno.makeTempDir({ prefix: "stave-login-" });
  const login = startLogin(stand.url, { SVC_CONFIG_DIR: config });
  try {
    const address = await login.address;
    const redirect = new URL(address.searchParams.get("redirect_uri")!);
    assert.match(redirect.href, /^http:\/\/127\.0\.0\.1:\d+\/callback$/);
    assert.deepEqual(registrations.map((r) => r.redirect_uris), [[
      redirect.href,
    ]]);
    const other = await fetch(`${redirect.origin}/other`);
    assert.equal(other.status, 404);
    await other.body?.cancel();
    // Another loopback address reaches the same machine, but not a listener bound to 127.0.0.1.
    await assert.rejects(
      fetch(`http://127.0.0.2:${redirect.port}/callback`),
      "the listener answers on 127.0.0.1 only",
    );
  } finally {
    await login.stop();
    await stand.shutdown();
    await Deno.remove(config, { recursive: true });
  }
});

Deno.test("svc-manage.mjs login --no-open prints the connect address with PKCE S256 and a random state; --scope asks for fewer scopes (CLI-015)", async () => {
  const { stand } = standService();
  const config = await Deno.makeTempDir({ prefix: "stave-login-" });
  const env = { SVC_CONFIG_DIR: config };
  const plain = startLogin(stand.url, env);
  const narrow = startLogin(stand.url, env, [
    "--scope",
    "content:read,settings:write",
  ]);
  try {
    const [first, second] = [await plain.address, await narrow.address];
    for (const address of [first, second]) {
      assert.equal(
        `${address.origin}${address.pathname}`,
        `${stand.url}/admin/connect`,
      );
      assert.equal(address.searchParams.get("response_type"), "code");
      assert.equal(address.searchParams.get("code_challenge_method"), "S256");
      assert.match(
        address.searchParams.get("code_challenge")!,
        /^[A-Za-z0-9_-]{43}$/,
      );
      assert.match(address.searchParams.get("state")!, /^[A-Za-z0-9_-]{32,}$/);
    }
    assert.notEqual(
      first.searchParams.get("state"),
      second.searchParams.get("state"),
    );
    assert.notEqual(
      first.searchParams.get("code_challenge"),
      second.searchParams.get("code_challenge"),
    );
    assert.equal(
      first.searchParams.get("scope"),
      null,
      "no --scope asks for the default",
    );
    assert.equal(
      second.searchParams.get("scope"),
      "content:read settings:write",
    );
  } finally {
    await plain.stop();
    await narrow.stop();
    await stand.shutdown();
    await Deno.remove(config, { recursive: true });
  }
});

Deno.test("svc-manage.mjs renews the saved login under a lock: concurrent commands never present one refresh token twice; a lock older than 2 minutes is taken over; a dead refresh token exits 2 (CLI-019, CLI-020)", async () => {
  const { stand, presented, live } = standService();
  const config = await Deno.makeTempDir({ prefix: "stave-login-" });
  const env = { SVC_CONFIG_DIR: config };
  const file = `${config}/${stand.url.replace(/[^A-Za-z0-9.-]/g, "_")}.json`;
  try {
    live.add("svr_0");
    Deno.writeTextFileSync(
      file,
      JSON.stringify({
        origin: stand.url,
        client_id: "c1",
        site: null,
        scopes: ["content:read"],
        refresh_token: "svr_0",
      }),
      { mode: 0o600 },
    );
    const runs = await Promise.all(
      [1, 2, 3].map(() => runCli(["get-site", "--url", stand.url], { env })),
    );
    for (const run of runs) assert.equal(run.code, 0, run.stderr);
    assert.equal(presented.length, 3);
    assert.equal(
      new Set(presented).size,
      3,
      "each renewal used the latest token",
    );
    assert.equal(
      JSON.parse(Deno.readTextFileSync(file)).refresh_token,
      "svr_3",
    );
    // The new file was renamed over the old: no lock and no temporary file is left.
    assert.deepEqual([...Deno.readDirSync(config)].map((e) => e.name), [
      file.slice(config.length + 1),
    ]);

    // A lock left by a process that died more than 2 minutes ago is taken over.
    const lock = `${file}.lock`;
    Deno.writeTextFileSync(lock, "");
    const old = new Date(Date.now() - 2 * 60 * 1000 - 5000);
    Deno.utimeSync(lock, old, old);
    const afterStale = await runCli(["get-site", "--url", stand.url], { env });
    assert.equal(afterStale.code, 0, afterStale.stderr);

    // A refresh token the service no longer takes (revoked, or unused 30 days): exit 2.
    live.clear();
    const dead = await runCli(["get-site", "--url", stand.url], { env });
    assert.equal(dead.code, 2);
    assert.match(dead.stderr, /no longer valid/);
    assert.equal(dead.stdout, "");
  } finally {
    await stand.shutdown();
    await Deno.remove(config, { recursive: true });
  }
});
