// svc-manage.mjs login, saved login, status and logout as a user runs them, with headless Chromium completing the connect page (CLI-013..CLI-021, MCR-028).
import assert from "node:assert/strict";
import axe from "axe-core";
import type { Browser } from "playwright-core";
import { administratorPermissions } from "../../core/access/default_roles.ts";
import { openTestApp, type TestApp } from "../support/app.ts";
import {
  BROWSER_TIMEOUT_MS,
  browserTestsRun,
  launchChromium,
} from "../support/browser.ts";
import { PROJECT_ROOT } from "../support/process.ts";
import { insertSite } from "../support/sites.ts";
import {
  insertPerson,
  PASSWORD,
  setMemberPermissions,
} from "../admin/helpers.ts";
import { runCli, serveOnLoopback, startLogin } from "./svc_manage_support.ts";

const runsBrowser = browserTestsRun("the CLI login browser test");

/** The service on 127.0.0.1 whose public URL is the address it is served on, so the issuer matches. */
async function serveService(): Promise<
  { t: TestApp; origin: string; shutdown(): Promise<void> }
> {
  // The app needs the served address for its public URL, so the server asks for it late.
  const late: { app?: TestApp } = {};
  const server = serveOnLoopback((request) => late.app!.app.fetch(request));
  const app = late.app = await openTestApp({
    env: { PUBLIC_URL: server.url },
  });
  const siteId = await insertSite(app.services.db, {
    domain: "127.0.0.1",
    slug: "cli-site",
    languages: ["en", "de"],
  });
  const userId = await insertPerson(app.services.db, {
    email: "grace@example.com",
    password: PASSWORD,
    displayName: "Grace Hopper",
    siteIds: [siteId],
  });
  await setMemberPermissions(
    app.services.db,
    userId,
    administratorPermissions(),
  );
  const t = app;
  return {
    t,
    origin: server.url,
    shutdown: async () => {
      await server.shutdown();
      await t.close();
    },
  };
}

Deno.test({
  name:
    "svc-manage.mjs login completes in Chromium; the saved login (0700/0600, refresh token only) renews under a lock, status names it, logout revokes first (CLI-013, CLI-014, CLI-015, CLI-016, CLI-018, CLI-019, CLI-020, CLI-021, MCR-028)",
  ignore: !runsBrowser,
  async fn() {
    const service = await serveService();
    const config = await Deno.makeTempDir({ prefix: "stave-login-" });
    const env = { SVC_CONFIG_DIR: `${config}/svc-manage` };
    let browser: Browser | undefined;
    try {
      const login = startLogin(service.origin, env, [
        "--scope",
        "content:read,settings:write",
      ]);
      const address = await login.address;
      assert.equal(address.origin, service.origin);
      assert.equal(address.searchParams.get("code_challenge_method"), "S256");
      assert.match(address.searchParams.get("state")!, /^[A-Za-z0-9_-]{32,}$/);
      assert.equal(
        address.searchParams.get("scope"),
        "content:read settings:write",
      );
      const redirect = new URL(address.searchParams.get("redirect_uri")!);
      assert.equal(redirect.hostname, "127.0.0.1");
      assert.equal(redirect.pathname, "/callback");
      // The listener answers nothing but its callback, and a wrong state does not end the login.
      const other = await fetch(`${redirect.origin}/other`);
      assert.equal(other.status, 404);
      await other.body?.cancel();
      const forged = await fetch(
        `${redirect.origin}/callback?code=x&state=forged&iss=${service.origin}`,
      );
      assert.equal(forged.status, 400);
      await forged.body?.cancel();

      browser = await launchChromium();
      const page = await browser.newPage();
      page.setDefaultTimeout(BROWSER_TIMEOUT_MS);
      await page.goto(address.toString());
      assert.match(page.url(), /\/admin\/sign-in\?next=/);
      await page.getByLabel("Email").fill("grace@example.com");
      await page.getByLabel("Password").fill(PASSWORD);
      await page.getByRole("button", { name: "Sign in" }).click();
      await page.waitForURL(/\/admin\/connect\?/);
      await page.getByRole("heading", { name: /Connect/ }).waitFor();
      for (const width of [390, 1440]) {
        await page.setViewportSize({ width, height: 900 });
        await page.screenshot({
          path: `${PROJECT_ROOT}/.test-data/screenshots/connect-${width}.png`,
          fullPage: true,
        });
        const scroll = await page.evaluate(() =>
          document.documentElement.scrollWidth >
            document.documentElement.clientWidth
        );
        assert.equal(scroll, false, `horizontal scroll at ${width}px`);
      }
      // Evaluated through DevTools, so the page keeps its own script-src policy.
      await page.evaluate(axe.source);
      const violations = await page.evaluate(async () => {
        // deno-lint-ignore no-explicit-any
        const result = await (globalThis as any).axe.run();
        return result.violations.map((v: { id: string }) => v.id);
      });
      assert.deepEqual(violations, []);
      await page.getByText("content:read").first().waitFor();
      await page.getByRole("button", { name: "Allow" }).click();
      await page.getByText("Signed in. You can close this tab").waitFor();

      const ended = await login.ended;
      assert.equal(ended.code, 0, ended.stderr);
      assert.match(
        ended.stderr,
        /Signed in to http:\/\/127\.0\.0\.1:\d+ \(site 127\.0\.0\.1\)/,
      );

      const dir = Deno.statSync(env.SVC_CONFIG_DIR);
      assert.equal(dir.mode! & 0o777, 0o700);
      const files = [...Deno.readDirSync(env.SVC_CONFIG_DIR)].map((e) =>
        e.name
      );
      assert.equal(files.length, 1);
      const file = `${env.SVC_CONFIG_DIR}/${files[0]}`;
      assert.equal(Deno.statSync(file).mode! & 0o777, 0o600);
      const saved = JSON.parse(Deno.readTextFileSync(file));
      assert.deepEqual(Object.keys(saved).sort(), [
        "client_id",
        "origin",
        "refresh_token",
        "scopes",
        "site",
      ]);
      assert.equal(saved.origin, service.origin);
      assert.deepEqual(saved.scopes, ["content:read", "settings:write"]);
      assert.match(saved.refresh_token, /^svr_/);
      assert.ok(!Deno.readTextFileSync(file).includes("sva_"));

      // Commands use the saved login; each renewal rotates the refresh token.
      const site = await runCli(["get-site", "--url", service.origin], { env });
      assert.equal(site.code, 0, site.stderr);
      assert.equal(JSON.parse(site.stdout).domain, "127.0.0.1");
      const renewed = JSON.parse(Deno.readTextFileSync(file));
      assert.notEqual(renewed.refresh_token, saved.refresh_token);
      assert.deepEqual(
        [...Deno.readDirSync(env.SVC_CONFIG_DIR)].map((e) => e.name),
        files,
        "no lock or temporary file is left behind",
      );
      const status = await runCli(["status", "--url", service.origin], { env });
      assert.equal(status.code, 0, status.stderr);
      assert.equal(JSON.parse(status.stdout).credential, "saved login");

      // A fresh lock held by another command is waited for; one older than 2 minutes is taken over.
      const lock = `${file}.lock`;
      Deno.writeTextFileSync(lock, "");
      const old = new Date(Date.now() - 2 * 60 * 1000 - 5000);
      Deno.utimeSync(lock, old, old);
      const afterStale = await runCli(["get-site", "--url", service.origin], {
        env,
      });
      assert.equal(afterStale.code, 0, afterStale.stderr);

      // logout while the service cannot be reached keeps the file and exits non-zero.
      const offline = await runCli(["logout", "--url", "http://127.0.0.1:9"], {
        env: { SVC_CONFIG_DIR: env.SVC_CONFIG_DIR },
      });
      assert.equal(offline.code, 2);
      const copy = `${env.SVC_CONFIG_DIR}/http___127.0.0.1_9.json`;
      Deno.writeTextFileSync(
        copy,
        JSON.stringify({ ...renewed, origin: "http://127.0.0.1:9" }),
      );
      const unreachable = await runCli(
        ["logout", "--url", "http://127.0.0.1:9"],
        { env },
      );
      assert.notEqual(unreachable.code, 0);
      assert.ok(Deno.statSync(copy).isFile, "the file is kept");
      Deno.removeSync(copy);

      // A login revoked on the service (here: its credential, under Settings → API) makes commands exit 2.
      const revokedAt = new Date();
      await service.t.services.db.updateTable("management_credentials")
        .set({ revoked_at: revokedAt }).where("name", "like", "Sign-in:%")
        .execute();
      const revoked = await runCli(["get-site", "--url", service.origin], {
        env,
      });
      assert.equal(revoked.code, 2);
      assert.match(revoked.stderr, /no longer valid/);
      assert.equal(revoked.stderr.trim().split("\n").length, 1);

      const current = JSON.parse(Deno.readTextFileSync(file));
      const out = await runCli(["logout", "--url", service.origin], { env });
      assert.equal(out.code, 0, out.stderr);
      assert.throws(() => Deno.statSync(file));
      // Revoked on the service: the refresh token no longer works anywhere.
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
      const after = await runCli(["get-site", "--url", service.origin], {
        env,
      });
      assert.equal(after.code, 2);
    } finally {
      await browser?.close();
      await service.shutdown();
      await Deno.remove(config, { recursive: true });
    }
  },
});

Deno.test("svc-manage.mjs login exits 2 when the issuer is not the origin or S256 is missing, and gives up waiting with exit 2 (CLI-013, CLI-017)", async () => {
  let metadata: Record<string, unknown> = {};
  const stand = serveOnLoopback((request) => {
    const url = new URL(request.url);
    if (url.pathname === "/.well-known/oauth-authorization-server") {
      return Response.json(metadata);
    }
    if (url.pathname === "/oauth/register") {
      return Response.json({ client_id: "c1" }, { status: 201 });
    }
    return new Response("not found", { status: 404 });
  });
  const config = await Deno.makeTempDir({ prefix: "stave-login-" });
  const env = { SVC_CONFIG_DIR: config };
  const good = {
    issuer: stand.url,
    authorization_endpoint: `${stand.url}/admin/connect`,
    token_endpoint: `${stand.url}/oauth/token`,
    registration_endpoint: `${stand.url}/oauth/register`,
    revocation_endpoint: `${stand.url}/oauth/revoke`,
    code_challenge_methods_supported: ["S256"],
  };
  try {
    metadata = { ...good, issuer: "https://evil.example" };
    const other = await runCli(["login", "--no-open", "--url", stand.url], {
      env,
    });
    assert.equal(other.code, 2);
    assert.match(other.stderr, /issuer is not/);
    metadata = { ...good, code_challenge_methods_supported: ["plain"] };
    const plain = await runCli(["login", "--no-open", "--url", stand.url], {
      env,
    });
    assert.equal(plain.code, 2);
    assert.match(plain.stderr, /S256/);

    metadata = good;
    // Cancel on the connect page exits 1; another issuer or two codes exit 2.
    for (
      const [extra, code] of [
        [{ error: "access_denied" }, 1],
        [{ code: "c", iss: "https://evil.example" }, 2],
        [{ code: "c&code=d" }, 2],
      ] as const
    ) {
      const login = startLogin(stand.url, env);
      const address = await login.address;
      const redirect = address.searchParams.get("redirect_uri")!;
      const state = address.searchParams.get("state")!;
      const params = new URLSearchParams({ state, iss: stand.url });
      for (const [name, value] of Object.entries(extra)) {
        params.set(name, value);
      }
      const answer = await fetch(
        `${redirect}?${params.toString().replace("%26code%3Dd", "&code=d")}`,
      );
      await answer.body?.cancel();
      const ended = await login.ended;
      assert.equal(
        ended.code,
        code,
        `${JSON.stringify(extra)}: ${ended.stderr}`,
      );
    }
    const waiting = startLogin(stand.url, {
      ...env,
      SVC_LOGIN_TIMEOUT_MS: "1500",
    });
    await waiting.address;
    const ended = await waiting.ended;
    assert.equal(ended.code, 2);
    assert.match(ended.stderr, /Gave up waiting/);
    assert.deepEqual([...Deno.readDirSync(config)], []);
  } finally {
    await stand.shutdown();
    await Deno.remove(config, { recursive: true });
  }
});
