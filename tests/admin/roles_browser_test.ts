// The role pages in Chromium: axe-core on each, screenshots at 390 px and 1440 px, no sideways
// scroll (the matrix scrolls inside its card), and a permission ticked and saved by a person.
import { deepEqual, equal } from "node:assert/strict";
import type { Browser, Page } from "playwright-core";
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

const runsBrowser = browserTestsRun("the roles browser test");

Deno.test({
  name:
    "the role pages in Chromium: list, new role, the matrix ticked and saved; axe-core and screenshots (SET-009, SET-011)",
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
      browser = await launchChromium();
      const page = await browser.newPage({
        viewport: { width: 1440, height: 900 },
      });
      page.setDefaultTimeout(BROWSER_TIMEOUT_MS);
      const problems: string[] = [];
      const visit = (p: Page, name: string) => assertPageAtBothWidths(p, name);
      page.on("pageerror", (error) => problems.push(String(error)));
      await signInInChromium(page, server.baseUrl, demo.email, PASSWORD);
      await page.goto(`${server.baseUrl}/admin/people`);
      await Promise.all([
        page.waitForURL(/\/admin\/people\/roles$/),
        page.getByRole("link", { name: "Roles and permissions" }).click(),
      ]);
      await visit(page, "roles");
      await page.getByLabel("Name").fill("Translator");
      await Promise.all([
        page.waitForURL(/done=created/),
        page.getByRole("button", { name: "Create role" }).click(),
      ]);
      await page.getByLabel("All models: read", { exact: true }).check();
      await page.getByLabel("Posts: update", { exact: true }).check();
      await page.getByRole("group", { name: "update" }).getByLabel("de")
        .check();
      await visit(page, "role-editor");
      await Promise.all([
        page.waitForURL(/done=saved/),
        page.getByRole("button", { name: "Save role" }).click(),
      ]);
      const role = await t.services.db.selectFrom("roles").select("permissions")
        .where("site_id", "=", demo.siteId).where("name", "=", "Translator")
        .executeTakeFirstOrThrow();
      const permissions = role.permissions as {
        models: Record<string, string[]>;
        languages: Record<string, string[]>;
      };
      deepEqual(permissions.models["*"], ["read"]);
      deepEqual(permissions.languages, { update: ["de"] });
      equal(Object.values(permissions.models).flat().includes("update"), true);
      deepEqual(problems, []);
    } finally {
      await browser?.close();
      await server?.close();
      await t.close();
    }
  },
});
