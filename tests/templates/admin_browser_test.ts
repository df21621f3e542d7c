// Settings → Templates and Site delivery in Chromium, the way an administrator works: upload the
// example template file, open a preview, accept it, check an address and switch to it; axe-core
// and screenshots at 390 px and 1440 px on each page (TPL-001, TPL-006, TPL-012, DLV-007, DLV-008).
import { equal, match } from "node:assert/strict";
import type { Browser } from "playwright-core";
import { assertPageAtBothWidths, screenshots } from "../support/axe.ts";
import {
  BROWSER_TIMEOUT_MS,
  browserTestsRun,
  launchChromium,
  type LocalServer,
  serveLocally,
  signInInChromium,
} from "../support/browser.ts";
import { setupDemo } from "../admin/demo_helpers.ts";
import { PASSWORD } from "../admin/helpers.ts";
import { exampleUpload } from "./example.ts";
import { startBuildService, templateEnv } from "./support.ts";

const runsBrowser = browserTestsRun("the templates browser test");

Deno.test({
  name:
    "TPL-001 TPL-006 TPL-012 DLV-007 DLV-008: an administrator uploads, previews and accepts a template, then checks an address and switches to it, in Chromium; axe-core and screenshots",
  ignore: !runsBrowser,
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const service = await startBuildService();
    const artifacts = await Deno.makeTempDir({ prefix: "stave-artifacts-" });
    const file = await Deno.makeTempFile({ suffix: ".json" });
    await Deno.writeTextFile(file, JSON.stringify(await exampleUpload()));
    const demo = await setupDemo({ domain: "127.0.0.1" });
    const { t } = demo;
    t.services.config.templateSettings = templateEnv(service.origin, artifacts);
    let server: LocalServer | undefined;
    let browser: Browser | undefined;
    try {
      server = serveLocally((request, info) => t.app.fetch(request, info));
      const base = server.baseUrl;
      browser = await launchChromium();
      const context = await browser.newContext({
        viewport: { width: 1440, height: 900 },
      });
      const page = await context.newPage();
      page.setDefaultTimeout(BROWSER_TIMEOUT_MS);
      const errors: string[] = [];
      page.on("pageerror", (error) => errors.push(String(error)));
      await signInInChromium(page, base, demo.email, PASSWORD);
      await page.goto(`${base}/admin/settings`);
      await page.getByRole("link", { name: "Templates" }).click();
      await page.waitForURL(/\/admin\/site\/templates$/);
      await assertPageAtBothWidths(page, "site-templates-empty", {
        axeAt390: true,
      });

      await page.getByLabel("Template file").setInputFiles(file);
      page.setDefaultTimeout(120_000);
      await Promise.all([
        page.waitForURL(/stored=/),
        page.getByRole("button", { name: "Upload and check" }).click(),
      ]);
      page.setDefaultTimeout(BROWSER_TIMEOUT_MS);
      match(await page.getByRole("status").innerText(), /passed every check/);
      await page.getByText("Report").click();
      await assertPageAtBothWidths(page, "site-templates-candidate", {
        axeAt390: true,
      });

      // A preview opens in its own tab, drawn by the candidate under the display policy.
      page.setDefaultTimeout(60_000);
      const [preview] = await Promise.all([
        context.waitForEvent("page"),
        page.getByRole("button", { name: "Open preview" }).click(),
      ]);
      await preview.waitForLoadState("load");
      match(
        await preview.locator("h1").first().innerText(),
        /Fresh bread every morning/,
      );
      await screenshots(preview, "site-templates-preview");
      await preview.close();
      page.setDefaultTimeout(BROWSER_TIMEOUT_MS);

      await Promise.all([
        page.waitForURL(/accepted=1/),
        page.getByRole("button", { name: "Accept Harbour" }).click(),
      ]);
      match(await page.getByRole("status").innerText(), /Nothing is deployed/);
      await page.getByRole("link", { name: "Site delivery" }).first().click();
      await page.waitForURL(/\/admin\/site\/delivery$/);
      await assertPageAtBothWidths(page, "site-delivery-empty", {
        axeAt390: true,
      });
      await page.getByLabel("New address (host name)").fill(
        "www.bakery.example",
      );
      await Promise.all([
        page.waitForURL(/\/admin\/site\/delivery$/),
        page.getByRole("button", { name: "Check address" }).click(),
      ]);
      await page.getByRole("button", { name: "Switch to release 1" }).waitFor();
      await Promise.all([
        page.waitForURL(/\/admin\/site\/delivery$/),
        page.getByRole("button", { name: "Switch to release 1" }).click(),
      ]);
      match(
        await page.locator("dd").first().innerText(),
        /www\.bakery\.example/,
      );
      equal(await page.getByText("active", { exact: true }).count(), 1);
      await assertPageAtBothWidths(page, "site-delivery-active", {
        axeAt390: true,
      });
      // A refusal is shown by name.
      await page.getByLabel("New address (host name)").fill(
        "www.bakery.example",
      );
      await page.getByRole("button", { name: "Check address" }).click();
      match(await page.getByRole("alert").innerText(), /^address_unchanged: /);
      await assertPageAtBothWidths(page, "site-delivery-refused");
      equal(errors.length, 0, errors.join("\n"));
    } finally {
      await browser?.close();
      await server?.close();
      await t.close();
      await service.stop();
      await Deno.remove(artifacts, { recursive: true });
      await Deno.remove(file);
    }
  },
});
