// svc-manage.mjs login against the real service without a browser: the test signs in and allows on
// the connect page over HTTP, then calls the CLI's callback listener itself (MCR-028, CLI-016,
// CLI-018, CLI-020, CLI-021).
import assert from "node:assert/strict";
import { administratorPermissions } from "../../core/access/default_roles.ts";
import { REFRESH_TOKEN_LIFETIME_MS } from "../../core/oauth/store.ts";
import { openTestApp, type TestApp } from "../support/app.ts";
import { insertSite } from "../support/sites.ts";
import {
  CookieJar,
  csrfField,
  insertPerson,
  PASSWORD,
  setMemberPermissions,
} from "../admin/helpers.ts";
import { runCli, serveOnLoopback, startLogin } from "./svc_manage_support.ts";

const EMAIL = "grace@example.com";

/** The service on 127.0.0.1 (public URL = its address, so the issuer matches); `revokeAnswer` can make revocation fail. */
async function serveService() {
  const late: { app?: TestApp } = {};
  const hooks: {
    revokeAnswer: number | null;
    onRevoke: () => void;
  } = { revokeAnswer: null, onRevoke: () => {} };
  const server = serveOnLoopback((request) => {
    if (new URL(request.url).pathname === "/oauth/revoke") {
      hooks.onRevoke();
      if (hooks.revokeAnswer !== null) {
        return new Response("unavailable", { status: hooks.revokeAnswer });
      }
    }
    return late.app!.app.fetch(request);
  });
  const t = late.app = await openTestApp({ env: { PUBLIC_URL: server.url } });
  const siteId = await insertSite(t.services.db, {
    domain: "127.0.0.1",
    slug: "cli-site",
    languages: ["en"],
  });
  const userId = await insertPerson(t.services.db, {
    email: EMAIL,
    password: PASSWORD,
    displayName: "Grace Hopper",
    siteIds: [siteId],
  });
  await setMemberPermissions(t.services.db, userId, administratorPermissions());
  return {
    t,
    origin: server.url,
    hooks,
    shutdown: async () => {
      await server.shutdown();
      await t.close();
    },
  };
}

/** A fetch that keeps the jar's cookies and never follows redirects, as the test plays the browser. */
async function browse(
  jar: CookieJar,
  url: string,
  form?: Record<string, string>,
): Promise<Response> {
  const headers: Record<string, string> = { accept: "text/html" };
  const cookie = jar.header();
  if (cookie) headers.cookie = cookie;
  if (form) headers["content-type"] = "application/x-www-form-urlencoded";
  const response = await fetch(url, {
    method: form ? "POST" : "GET",
    headers,
    body: form ? new URLSearchParams(form).toString() : undefined,
    redirect: "manual",
  });
  jar.store(response);
  return response;
}

/** Signs in on the service and allows on the connect page at `address`; answers where the service sends the browser back. */
async function allowOverHttp(origin: string, address: URL): Promise<URL> {
  const jar = new CookieJar();
  const signIn = await browse(jar, `${origin}/admin/sign-in`);
  const signedIn = await browse(jar, `${origin}/admin/sign-in`, {
    _csrf: csrfField(await signIn.text()),
    email: EMAIL,
    password: PASSWORD,
  });
  assert.equal(signedIn.status, 303);
  await signedIn.body?.cancel();
  const connect = await browse(jar, address.toString());
  assert.equal(connect.status, 200);
  const html = await connect.text();
  assert.match(html, /Connect “svc-manage\.mjs”/);
  // The form as the page shows it: its hidden fields and the site chosen by default.
  const form: Record<string, string> = {};
  for (
    const input of html.matchAll(
      /<input type="hidden" name="([^"]+)" value="([^"]*)"/g,
    )
  ) {
    form[input[1]] = input[2].replaceAll("&amp;", "&");
  }
  form.site_id = /name="site_id" value="([^"]+)"/.exec(html)![1];
  form.action = "allow";
  const allowed = await browse(jar, `${origin}/admin/connect`, form);
  assert.equal(allowed.status, 303, await allowed.clone().text());
  await allowed.body?.cancel();
  return new URL(allowed.headers.get("location")!);
}

async function call(url: string, method = "GET"): Promise<Response> {
  const response = await fetch(url, { method });
  await response.body?.cancel();
  return response;
}

function savedFile(dir: string): string {
  const files = [...Deno.readDirSync(dir)].map((e) => e.name);
  assert.equal(files.length, 1, files.join());
  return `${dir}/${files[0]}`;
}

Deno.test("svc-manage.mjs login without a browser: the listener takes only GET /callback with its state, the issuer and one code; the saved login is 0700/0600 with the refresh token only; logout revokes first and keeps the file when it cannot (MCR-028, CLI-016, CLI-018, CLI-021)", async () => {
  const service = await serveService();
  const config = await Deno.makeTempDir({ prefix: "stave-login-" });
  // An existing directory others may read is narrowed to the user alone (CLI-018).
  const dir = `${config}/svc-manage`;
  Deno.mkdirSync(dir);
  Deno.chmodSync(dir, 0o755);
  const env = { SVC_CONFIG_DIR: dir };
  try {
    const login = startLogin(service.origin, env);
    const address = await login.address;
    const redirect = new URL(address.searchParams.get("redirect_uri")!);
    const back = await allowOverHttp(service.origin, address);
    assert.equal(`${back.origin}${back.pathname}`, redirect.href);
    assert.equal(back.searchParams.get("iss"), service.origin);
    assert.equal(
      back.searchParams.get("state"),
      address.searchParams.get("state"),
    );

    // CLI-016: none of these is the callback, and none ends the wait.
    const query = back.search;
    assert.equal((await call(`${redirect.origin}/other${query}`)).status, 404);
    assert.equal(
      (await call(`${redirect.origin}/callback/x${query}`)).status,
      404,
    );
    assert.equal((await call(`${back}`, "POST")).status, 404);
    const forged = new URL(back);
    forged.searchParams.set("state", "forged");
    assert.equal((await call(`${forged}`)).status, 400);
    const noState = new URL(back);
    noState.searchParams.delete("state");
    assert.equal((await call(`${noState}`)).status, 400);

    const answer = await fetch(back);
    assert.equal(answer.status, 200);
    assert.match(await answer.text(), /Signed in/);
    const ended = await login.ended;
    assert.equal(ended.code, 0, ended.stderr);
    assert.match(ended.stderr, /Signed in to http:\/\/127\.0\.0\.1:\d+/);

    // CLI-018: a user-only directory and file holding no access token.
    assert.equal(Deno.statSync(dir).mode! & 0o777, 0o700);
    const file = savedFile(dir);
    assert.equal(Deno.statSync(file).mode! & 0o777, 0o600);
    const text = Deno.readTextFileSync(file);
    const saved = JSON.parse(text);
    assert.deepEqual(Object.keys(saved).sort(), [
      "client_id",
      "origin",
      "refresh_token",
      "scopes",
      "site",
    ]);
    assert.equal(saved.origin, service.origin);
    assert.match(saved.refresh_token, /^svr_[A-Za-z0-9_-]{43}$/);
    assert.ok(!text.includes("sva_"));

    // MCR-028: the saved login works on the Management API.
    const site = await runCli(["get-site", "--url", service.origin], { env });
    assert.equal(site.code, 0, site.stderr);
    assert.equal(JSON.parse(site.stdout).domain, "127.0.0.1");
    const current = JSON.parse(Deno.readTextFileSync(file));

    // CLI-021: revocation refused by the service: the file is kept and the exit is non-zero.
    service.hooks.revokeAnswer = 503;
    const refused = await runCli(["logout", "--url", service.origin], { env });
    assert.notEqual(refused.code, 0);
    assert.match(refused.stderr, /kept/);
    assert.equal(
      Deno.readTextFileSync(file),
      JSON.stringify(current, null, 2) + "\n",
    );
    // The service unreachable: the same.
    const offlineDir = `${config}/offline`;
    Deno.mkdirSync(offlineDir, { mode: 0o700 });
    const offlineFile = `${offlineDir}/http___127.0.0.1_9.json`;
    Deno.writeTextFileSync(
      offlineFile,
      JSON.stringify({ ...current, origin: "http://127.0.0.1:9" }),
      { mode: 0o600 },
    );
    const offline = await runCli(["logout", "--url", "http://127.0.0.1:9"], {
      env: { SVC_CONFIG_DIR: offlineDir },
    });
    assert.notEqual(offline.code, 0);
    assert.ok(Deno.statSync(offlineFile).isFile, "the file is kept");

    // CLI-021: logout revokes while the file still exists, then deletes it.
    service.hooks.revokeAnswer = null;
    let fileAtRevoke: boolean | null = null;
    service.hooks.onRevoke = () => {
      fileAtRevoke = Deno.statSync(file).isFile;
    };
    const out = await runCli(["logout", "--url", service.origin], { env });
    assert.equal(out.code, 0, out.stderr);
    assert.equal(fileAtRevoke, true, "revoked before the file was deleted");
    assert.throws(() => Deno.statSync(file));
    const refreshed = await fetch(`${service.origin}/oauth/token`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        grant_type: "refresh_token",
        refresh_token: current.refresh_token,
        client_id: current.client_id,
      }),
    });
    assert.equal(refreshed.status, 400);
    await refreshed.body?.cancel();
    const after = await runCli(["get-site", "--url", service.origin], { env });
    assert.equal(after.code, 2);
  } finally {
    await service.shutdown();
    await Deno.remove(config, { recursive: true });
  }
});

Deno.test("svc-manage.mjs login without a browser: a callback naming another issuer, or two codes, ends the login with exit 2 and saves nothing (CLI-016)", async () => {
  const service = await serveService();
  const config = await Deno.makeTempDir({ prefix: "stave-login-" });
  const env = { SVC_CONFIG_DIR: `${config}/svc-manage` };
  try {
    for (
      const spoil of [
        (u: URL) => u.searchParams.set("iss", "https://evil.example"),
        (u: URL) => u.searchParams.delete("iss"),
        (u: URL) => u.searchParams.append("code", "svc_second"),
      ]
    ) {
      const login = startLogin(service.origin, env);
      const back = await allowOverHttp(service.origin, await login.address);
      spoil(back);
      assert.equal((await call(`${back}`)).status, 400);
      const ended = await login.ended;
      assert.equal(ended.code, 2, ended.stderr);
    }
    assert.throws(() => Deno.statSync(env.SVC_CONFIG_DIR));
  } finally {
    await service.shutdown();
    await Deno.remove(config, { recursive: true });
  }
});

Deno.test("svc-manage.mjs saved login: a refresh token unused 30 days on the service's clock makes commands exit 2; 1 ms less still works (CLI-020)", async () => {
  const service = await serveService();
  const config = await Deno.makeTempDir({ prefix: "stave-login-" });
  const env = { SVC_CONFIG_DIR: `${config}/svc-manage` };
  try {
    const login = startLogin(service.origin, env);
    const back = await allowOverHttp(service.origin, await login.address);
    assert.equal((await call(`${back}`)).status, 200);
    assert.equal((await login.ended).code, 0);
    const file = savedFile(env.SVC_CONFIG_DIR);

    // The last moment counts: 30 days minus 1 ms after the last use still renews.
    service.t.clock.advance(REFRESH_TOKEN_LIFETIME_MS - 1);
    const late = await runCli(["get-site", "--url", service.origin], { env });
    assert.equal(late.code, 0, late.stderr);

    // 30 days unused since that renewal: refused, exit 2, one line, nothing on stdout.
    service.t.clock.advance(REFRESH_TOKEN_LIFETIME_MS);
    const expired = await runCli(["get-site", "--url", service.origin], {
      env,
    });
    assert.equal(expired.code, 2);
    assert.match(expired.stderr, /no longer valid/);
    assert.equal(expired.stderr.trim().split("\n").length, 1);
    assert.equal(expired.stdout, "");
    assert.ok(Deno.statSync(file).isFile);
  } finally {
    await service.shutdown();
    await Deno.remove(config, { recursive: true });
  }
});
