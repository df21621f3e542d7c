// A plugin card's reviewed frame in headless Chromium: the plugin's page runs on its own origin in
// a sandbox without same-origin rights, is requested with no cookie, token or referrer, is the
// only other origin the editor's policy lets it frame, and talks to the editor through one bound
// MessageChannel (PEXT-003; issue 11 point 9). axe-core and screenshots at 390 and 1440 px.
import { deepEqual, equal, match, ok } from "node:assert/strict";
import { axeProblems, screenshots, scrollsSideways } from "../support/axe.ts";
import {
  BROWSER_TIMEOUT_MS,
  browserTestsRun,
  launchChromium,
} from "../support/browser.ts";
import { serveWorldLocally, withPluginWorld } from "./world.ts";

Deno.test({
  name:
    "a card's reviewed frame: sandboxed on the plugin's origin, no cookie or referrer, framed by the editor's CSP only, connected by a MessageChannel (PEXT-003)",
  ignore: !browserTestsRun("the plugin frame browser test"),
  fn: () =>
    withPluginWorld(async (w) => {
      w.plugin.behaviour.frame = true;
      const id = await w.install();
      const { groupId } = await w.entry({ en: { title: "Framed" } });
      const server = serveWorldLocally(w);
      // The browser reaches Stave as localhost and the plugin as 127.0.0.1: two sites, as in
      // production, so a cookie of one is never sent to the other.
      const base = `http://localhost:${server.port}`;
      const browser = await launchChromium();
      try {
        const context = await browser.newContext({
          viewport: { width: 1440, height: 900 },
        });
        await context.addCookies([{
          name: "stave_session",
          value: w.session,
          url: base,
        }]);
        const page = await context.newPage();
        page.setDefaultTimeout(BROWSER_TIMEOUT_MS);
        const errors: string[] = [];
        page.on("pageerror", (e) => errors.push(String(e)));
        const answer = await page.goto(
          `${base}/admin/content/posts/${groupId}?lang=en`,
        );
        const csp = answer?.headers()["content-security-policy"] ?? "";
        match(csp, new RegExp(`frame-src ${w.plugin.origin}(;|$)`));
        match(csp, /frame-ancestors 'none'/);

        const frame = page.locator(".plugin-frame iframe");
        await page.getByText("The card's frame is connected").waitFor();
        equal(await frame.getAttribute("sandbox"), "allow-scripts allow-forms");
        equal(await frame.getAttribute("referrerpolicy"), "no-referrer");
        equal(
          await frame.getAttribute("src"),
          `${w.plugin.origin}/frames/card`,
        );
        // The frame asked for 200 px through the channel.
        equal(
          await frame.evaluate((el) => (el as HTMLElement).style.height),
          "200px",
        );
        const inner = page.frames().find((f) =>
          f.url() === `${w.plugin.origin}/frames/card`
        );
        ok(inner, "the plugin's page is framed");
        const instance = await w.services.db.selectFrom("entries")
          .select("id").where("group_id", "=", groupId)
          .where("locale", "=", "en").executeTakeFirstOrThrow();
        equal(
          await inner.locator("#state").textContent(),
          `Connected to ${instance.id}`,
        );
        // An opaque origin: the frame cannot reach the editor's document.
        equal(
          await inner.evaluate(() => {
            try {
              return String(globalThis.parent.document.title);
            } catch {
              return "blocked";
            }
          }),
          "blocked",
        );
        deepEqual(w.plugin.frameRequests, [{
          cookie: null,
          referer: null,
          authorization: null,
        }]);

        const problems = await axeProblems(page, "plugin-frame");
        await screenshots(page, "plugin-frame-card");
        await page.setViewportSize({ width: 390, height: 844 });
        equal(await scrollsSideways(page), null);
        deepEqual(problems, []);
        deepEqual(errors, []);
        equal(typeof id, "string");
      } finally {
        await browser.close();
        await server.close();
      }
    }, { islands: true }),
});
