// The backend access page in Chromium: axe-core, screenshots at 390 px and 1440 px, no sideways
// scroll, an access rule saved and a saved query refused then created the way a person does it.
import { deepEqual, equal, match } from "node:assert/strict";
import type { Browser, Page } from "playwright-core";
import { listModelAccess } from "../../core/backend/access.ts";
import {
  createSavedQuery,
  listSavedQueries,
} from "../../core/backend/saved_queries.ts";
import { createModel } from "../../core/models/store.ts";
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

const runsBrowser = browserTestsRun("the backend access browser test");

Deno.test({
  name:
    "the backend access page in Chromium: access rules and saved queries; axe-core, screenshots, no sideways scroll at 390 px",
  ignore: !runsBrowser,
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const demo = await setupDemo({ domain: "127.0.0.1" });
    const { t } = demo;
    let server: LocalServer | undefined;
    let browser: Browser | undefined;
    try {
      const { db, clock } = t.services;
      const ctx = { db, clock, siteId: demo.siteId };
      const created = await createModel(ctx, {
        model: { name: "Articles", slug: "articles" },
        fields: [
          { key: "title", label: "Title", type: "text" },
          { key: "rank", label: "Rank", type: "number" },
          { key: "notes", label: "Notes", type: "text", private: true },
        ],
      });
      if (!created.ok) throw new Error(JSON.stringify(created));
      const articlesId = created.model.id;
      const seeded = await createSavedQuery(ctx, {
        model_id: articlesId,
        name: "Internal ranking with a rather long name",
        slug: "internal-ranking-with-a-rather-long-name",
        select: ["id", "title", "rank", "notes"],
        order_by: [{ field: "rank", direction: "desc" }],
        route: { audience: "service" },
      });
      if (!seeded.ok) throw new Error(JSON.stringify(seeded));

      server = serveLocally((request, info) => t.app.fetch(request, info));
      const base = server.baseUrl;
      browser = await launchChromium();
      const page = await browser.newPage({
        viewport: { width: 1440, height: 900 },
      });
      page.setDefaultTimeout(BROWSER_TIMEOUT_MS);
      const errors: string[] = [];
      page.on("pageerror", (error) => errors.push(String(error)));
      const visit = (p: Page, name: string) =>
        assertPageAtBothWidths(p, name, { axeAt390: true });
      await signInInChromium(page, base, demo.email, PASSWORD);
      await page.goto(`${base}/admin/settings`);
      await Promise.all([
        page.waitForURL(/\/admin\/settings\/backend$/),
        page.getByRole("link", { name: "Backend access" }).click(),
      ]);
      await visit(page, "settings-backend");

      // An access rule, saved from the Articles form: a model at the default is folded away.
      const articles = page.locator(`#access-${articlesId}`);
      equal(await articles.isVisible(), false);
      await page.locator(`#access-${articlesId}-heading`).click();
      await articles.getByLabel("Who may call it").first().selectOption(
        "anonymous",
      );
      await Promise.all([
        page.waitForURL(/done=access/),
        articles.getByRole("button", { name: "Save rules of Articles" })
          .click(),
      ]);
      await page.getByText("Access rules of Articles saved.").waitFor();
      // With a rule stored it stays open, and its summary names the rule.
      equal(await articles.isVisible(), true);
      await page.getByText("findMany: Anyone (public)").waitFor();
      const [access] = await listModelAccess(ctx, articlesId);
      equal(access.operations.findMany.audience, "anonymous");

      // A public route selecting the private column is refused; the alert names it.
      await page.getByLabel("Name", { exact: true }).fill("Public list");
      await page.getByLabel("Slug").fill("public-list");
      await page.getByLabel("Model").selectOption({ label: "Articles" });
      await page.getByLabel("Columns", { exact: true }).fill(
        "id, title, notes",
      );
      await page.getByLabel("Order").fill("-rank, title");
      await page.getByLabel("Route", { exact: true }).selectOption(
        "anonymous",
      );
      await page.getByRole("button", { name: "Create query" }).click();
      const alert = page.getByRole("alert");
      await alert.waitFor();
      equal(await page.getByRole("status").count(), 0);
      match(
        await alert.innerText(),
        /A public route cannot serve private fields: notes\./,
      );
      await visit(page, "settings-backend-refused");
      equal((await listSavedQueries(ctx)).length, 1);

      // Without the private column it is created.
      await page.getByLabel("Columns", { exact: true }).fill("id, title");
      await Promise.all([
        page.waitForURL(/done=created/),
        page.getByRole("button", { name: "Create query" }).click(),
      ]);
      await page.getByText("Saved query “Public list” created.").waitFor();
      equal((await listSavedQueries(ctx)).length, 2);

      await page.goto(`${base}/admin/settings/backend?edit=${seeded.query.id}`);
      await page.getByText("Columns of each model").click();
      await page.getByText("rank, notes (private)").waitFor();
      await visit(page, "settings-backend-edit");
      deepEqual(errors, []);
    } finally {
      await browser?.close();
      await server?.close();
      await t.close();
    }
  },
});
