// A content launch in headless Chromium: the card's button opens the plugin's own management
// page on the plugin's origin in the same tab, which never receives the admin session cookie nor a referrer,
// and lands on a URL without the launch code (LAU-011, LAU-012).
import { deepEqual, equal, ok } from "node:assert/strict";
import {
  BROWSER_TIMEOUT_MS,
  browserTestsRun,
  launchChromium,
} from "../support/browser.ts";
import { serveWorldLocally, withPluginWorld } from "./world.ts";

Deno.test({
  name:
    "the plugin's management page is its own: no admin cookie, no referrer, no svc_launch left in the URL (LAU-011, LAU-012)",
  ignore: !browserTestsRun("the plugin launch browser test"),
  fn: () =>
    withPluginWorld(async (w) => {
      const id = await w.install();
      const { groupId } = await w.entry({ en: { title: "Launched" } });
      const server = serveWorldLocally(w);
      // Stave as localhost and the plugin as 127.0.0.1: two sites, as in production.
      const base = `http://localhost:${server.port}`;
      const browser = await launchChromium();
      try {
        const context = await browser.newContext();
        await context.addCookies([{
          name: "stave_session",
          value: w.session,
          url: base,
        }]);
        const page = await context.newPage();
        page.setDefaultTimeout(BROWSER_TIMEOUT_MS);
        await page.goto(`${base}/admin/content/posts/${groupId}?lang=en`);
        // The plugin's page opens in the same tab (it links back to the admin when done).
        await Promise.all([
          page.waitForURL((url) => url.origin === w.plugin.origin),
          page.locator(".plugin-card button").click(),
        ]);
        await page.waitForLoadState();
        equal(context.pages().length, 1);
        const landed = new URL(page.url());
        equal(landed.origin, w.plugin.origin);
        equal(landed.pathname, `/installations/${id}`);
        equal(landed.searchParams.has("svc_launch"), false);
        ok(w.plugin.delegations.has(id), "the page exchanged the code");
        deepEqual(w.plugin.launchRequests, [
          { cookie: null, referer: null, launch: true },
          { cookie: null, referer: null, launch: false },
        ]);
      } finally {
        await browser.close();
        await server.close();
      }
    }),
});
