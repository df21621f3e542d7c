// Settings → Source & delivery in Chromium: a read token issued the way a person does it (name,
// a model ticked, the button), shown once; axe-core and screenshots at 390 px and 1440 px.
import { equal, match } from "node:assert/strict";
import type { Browser } from "playwright-core";
import { assertPageAtBothWidths } from "../support/axe.ts";
import {
  BROWSER_TIMEOUT_MS,
  browserTestsRun,
  launchChromium,
  type LocalServer,
  serveLocally,
  signInInChromium,
} from "../support/browser.ts";
import { setupDemo } from "./demo_helpers.ts";
import { PASSWORD } from "./helpers.ts";

const runsBrowser = browserTestsRun("the Source & delivery browser test");

Deno.test({
  name:
    "GACC-010: Source & delivery in Chromium issues a read token shown once, then lists it with revoke and rotate; axe-core and screenshots",
  ignore: !runsBrowser,
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const demo = await setupDemo({ domain: "127.0.0.1" });
    const { t } = demo;
    let server: LocalServer | undefined;
    let browser: Browser | undefined;
    try {
      server = serveLocally((request, info) => t.app.fetch(request, info));
      const base = server.baseUrl;
      browser = await launchChromium();
      const page = await browser.newPage({
        viewport: { width: 1440, height: 900 },
      });
      page.setDefaultTimeout(BROWSER_TIMEOUT_MS);
      const errors: string[] = [];
      page.on("pageerror", (error) => errors.push(String(error)));
      await signInInChromium(page, base, demo.email, PASSWORD);
      await page.goto(`${base}/admin/settings/source-delivery`);
      await assertPageAtBothWidths(page, "settings-source-delivery");
      await page.getByLabel("Name").fill("Mobile app");
      await page.getByRole("checkbox", { name: "Posts" }).check();
      await Promise.all([
        page.waitForResponse((r) => r.request().method() === "POST"),
        page.getByRole("button", { name: "Issue read token" }).click(),
      ]);
      match(
        await page.locator("#created-token").innerText(),
        /^sv_art_[A-Za-z0-9_-]{43}$/,
      );
      await assertPageAtBothWidths(page, "settings-source-delivery-issued");
      await page.goto(`${base}/admin/settings/source-delivery`);
      equal(await page.locator("#created-token").count(), 0);
      await page.getByRole("button", {
        name: "Replace Mobile app",
      }).waitFor();
      await assertPageAtBothWidths(page, "settings-source-delivery-listed");
      equal(errors.length, 0, errors.join("\n"));
    } finally {
      await browser?.close();
      await server?.close();
      await t.close();
    }
  },
});
