// Admin → Page documents and Admin → Form submissions in headless Chromium at 390 and 1440 px: axe-core
// finds no serious or critical violations, nothing scrolls sideways, screenshots are saved for review.
import { deepEqual, equal, ok } from "node:assert/strict";
import { axeProblems, screenshots, scrollsSideways } from "../support/axe.ts";
import type { Browser } from "playwright-core";
import { ensureDemoSite } from "../../core/sites/demo_site.ts";
import { openTestApp } from "../support/app.ts";
import {
  BROWSER_TIMEOUT_MS,
  browserTestsRun,
  launchChromium,
  type LocalServer,
  serveLocally,
} from "../support/browser.ts";

const runsBrowser = browserTestsRun("the pages and forms admin browser test");

Deno.test({
  name:
    "the pages and form submissions admin pages pass axe at 390 and 1440 px without sideways scroll",
  ignore: !runsBrowser,
  async fn() {
    const dataDir = await Deno.makeTempDir();
    const t = await openTestApp({
      env: { DATA_DIR: dataDir, DEMO_DOMAIN: "127.0.0.1" },
    });
    let server: LocalServer | undefined;
    let browser: Browser | undefined;
    try {
      const demo = await ensureDemoSite(t.services);
      const admin = demo.createdAdmin!;
      server = serveLocally((request, info) => t.app.fetch(request, info));
      const base = server.baseUrl;
      // One submission so the page shows one.
      const site = await t.services.db.selectFrom("sites").select("id")
        .executeTakeFirstOrThrow();
      const home = await t.services.db.selectFrom("entries").select("group_id")
        .where("site_id", "=", site.id).where("slug", "=", "home")
        .executeTakeFirstOrThrow();
      const submitted = await fetch(`${base}/v1/interactions/form.submit`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          action: "form.submit",
          page: home.group_id,
          locale: "en",
          section: "contact",
          key: "browser-test-key-0001",
          values: {
            name: "Ada",
            email: "ada@example.com",
            topic: "Support",
            message: "A long message that wraps across the narrow screen.",
          },
          consent: true,
        }),
      });
      equal(submitted.status, 201);
      browser = await launchChromium();
      const context = await browser.newContext();
      const page = await context.newPage();
      page.setDefaultTimeout(BROWSER_TIMEOUT_MS);
      await page.goto(`${base}/admin/sign-in`);
      await page.getByLabel("Email").fill(admin.email);
      await page.getByLabel("Password").fill(admin.password);
      await Promise.all([
        page.waitForURL(`${base}/admin`),
        page.getByRole("button", { name: "Sign in" }).click(),
      ]);
      const a11y: unknown[] = [];
      for (const path of ["/admin/pages", "/admin/forms"]) {
        await page.setViewportSize({ width: 1440, height: 900 });
        await page.goto(`${base}${path}`);
        const name = path.slice(7);
        a11y.push(...await axeProblems(page, name));
        await screenshots(page, name);
        await page.setViewportSize({ width: 390, height: 900 });
        equal(await scrollsSideways(page), null, `${path} scrolls sideways`);
      }
      deepEqual(a11y, []);
      // The preview button opens the draft.
      await page.goto(`${base}/admin/pages`);
      await page.getByRole("button", { name: "Preview drafts" }).first()
        .click();
      ok(await page.getByRole("heading", { name: /Preview of/ }).isVisible());
    } finally {
      await browser?.close();
      await server?.close();
      await t.close();
      await Deno.remove(dataDir, { recursive: true });
    }
  },
});
