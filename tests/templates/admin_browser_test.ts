// Settings → Templates and Site delivery in Chromium, the way an administrator works: upload the
// example template file, open a preview, accept it, check an address and switch to it; axe-core
// and screenshots at 390 px and 1440 px on each page (TPL-001, TPL-006, TPL-012, DLV-007, DLV-008);
// "Use built-in template" with its outcomes and refusals shown by name (TPL-017, TPL-018, SRCH-030).
import { equal, match, ok } from "node:assert/strict";
import { getSettings, putSettings } from "../../core/sites/settings.ts";
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

Deno.test({
  name:
    "TPL-017 TPL-018 SRCH-030: Use built-in template in Chromium without JavaScript: accepted, then released to the site's address; stale loads and a page at the search address shown by name; axe-core and screenshots",
  ignore: !runsBrowser,
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const service = await startBuildService();
    const artifacts = await Deno.makeTempDir({ prefix: "stave-artifacts-" });
    const demo = await setupDemo({ domain: "127.0.0.1" });
    const { t } = demo;
    const db = t.services.db;
    t.services.config.templateSettings = templateEnv(service.origin, artifacts);
    let server: LocalServer | undefined;
    let browser: Browser | undefined;
    try {
      server = serveLocally((request, info) => t.app.fetch(request, info));
      const base = server.baseUrl;
      browser = await launchChromium();
      // The forms are used without JavaScript; axe-core needs it, so each answer is checked
      // as a copy in a page of a second context that runs scripts.
      const context = await browser.newContext({
        viewport: { width: 1440, height: 900 },
        javaScriptEnabled: false,
      });
      const page = await context.newPage();
      page.setDefaultTimeout(BROWSER_TIMEOUT_MS);
      await signInInChromium(page, base, demo.email, PASSWORD);
      const scripted = await (await browser.newContext({
        viewport: { width: 1440, height: 900 },
      })).newPage();
      scripted.setDefaultTimeout(BROWSER_TIMEOUT_MS);
      // The answer to a form posted without JavaScript, as HTML.
      const submit = async (on: typeof page, button: string) => {
        const [response] = await Promise.all([
          on.waitForResponse((r) => r.request().method() === "POST"),
          on.getByRole("button", { name: button }).click(),
        ]);
        // A success the page redirects after has no body of its own.
        const html = response.status() >= 300 && response.status() < 400
          ? ""
          : await response.text();
        await on.waitForLoadState("load");
        return html;
      };
      // axe-core and screenshots of that answer, as a copy in the scripted page (same origin,
      // so it loads the admin's own stylesheet).
      const check = async (html: string, name: string) => {
        await scripted.unroute(`${base}/copy`);
        await scripted.route(
          `${base}/copy`,
          (route) => route.fulfill({ contentType: "text/html", body: html }),
        );
        await scripted.goto(`${base}/copy`);
        await assertPageAtBothWidths(scripted, name, { axeAt390: true });
        return scripted;
      };
      await page.goto(`${base}/admin/site/templates`);
      // A second tab loaded now is stale once the first one uses the built-in.
      const stale = await context.newPage();
      await stale.goto(`${base}/admin/site/templates`);

      let shown = await check(
        await submit(page, "Use built-in template"),
        "site-templates-builtin",
      );
      match(
        await shown.getByRole("status").innerText(),
        /^The built-in template is accepted\. It was not released: the site has no address yet/,
      );
      match(await shown.locator("h3").first().innerText(), /Built-in/);

      shown = await check(
        await submit(stale, "Use built-in template"),
        "site-templates-builtin-stale",
      );
      match(await shown.getByRole("alert").innerText(), /^stale_document: /);
      await stale.close();

      // An address, then the built-in released to it at once.
      await page.goto(`${base}/admin/site/delivery`);
      await page.getByLabel("New address (host name)").fill(
        "www.bakery.example",
      );
      await submit(page, "Check address");
      await submit(page, "Switch to release 1");
      await page.getByText("www.bakery.example").first().waitFor();

      // A published page at /search while search is on holds the release back, by name.
      const pagesModel = await db.selectFrom("models").select("id")
        .where("site_id", "=", demo.siteId).where("slug", "=", "pages")
        .executeTakeFirstOrThrow();
      const moved = await db.selectFrom("entries").select(["id", "slug"])
        .where("site_id", "=", demo.siteId)
        .where("model_id", "=", String(pagesModel.id))
        .where("published_version_id", "is not", null)
        .where("slug", "!=", "home").orderBy("slug").limit(1)
        .executeTakeFirstOrThrow();
      await db.updateTable("entries").set({ slug: "search" })
        .where("id", "=", moved.id).execute();
      const search = await getSettings({ db, siteId: demo.siteId }, "search");
      ok(
        (await putSettings(
          { db, clock: t.clock, siteId: demo.siteId, personId: demo.adminId },
          "search",
          {
            document: { ...search.document, enabled: true },
            expectedRevision: search.revision,
          },
        )).ok,
      );
      await page.goto(`${base}/admin/site/templates`);
      shown = await check(
        await submit(page, "Use built-in template"),
        "site-templates-builtin-held",
      );
      match(
        await shown.getByRole("status").innerText(),
        /It was not released: search_page_address_taken: .* \/search/,
      );
      await page.goto(`${base}/admin/site/delivery`);
      await page.getByLabel("New address (host name)").fill(
        "shop.bakery.example",
      );
      shown = await check(
        await submit(page, "Check address"),
        "site-delivery-search-taken",
      );
      match(
        await shown.getByRole("alert").innerText(),
        /^search_page_address_taken: .*\/search/,
      );

      await db.updateTable("entries").set({ slug: moved.slug })
        .where("id", "=", moved.id).execute();
      await page.goto(`${base}/admin/site/templates`);
      shown = await check(
        await submit(page, "Use built-in template"),
        "site-templates-builtin-released",
      );
      match(
        await shown.getByRole("status").innerText(),
        /Release 2 of it is active at https:\/\/www\.bakery\.example\./,
      );
    } finally {
      await browser?.close();
      await server?.close();
      await t.close();
      await service.stop();
      await Deno.remove(artifacts, { recursive: true });
    }
  },
});
