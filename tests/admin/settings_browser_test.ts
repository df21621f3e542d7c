// The settings pages in Chromium: axe-core on each, screenshots at 390 px and 1440 px, no sideways
// scroll, and one save made the way a person makes it (a menu link added in the menu editor).
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
import { entryContentFacts } from "../../core/manage/content_facts.ts";
import { getModel } from "../../core/models/model_reads.ts";
import { createModelProposal } from "../../core/proposals/mod.ts";
import { setupDemo } from "./demo_helpers.ts";
import { administratorPermissions } from "../../core/access/default_roles.ts";
import { insertRole } from "../../core/access/_testing.ts";
import { insertSite } from "../support/sites.ts";
import { PASSWORD } from "./helpers.ts";

const runsBrowser = browserTestsRun("the settings browser test");

Deno.test({
  name:
    "the settings pages and a model proposal in Chromium: languages, editorial, navigation and a menu, SEO and redirects, site search, proposal review; axe-core and screenshots",
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
      const visit = (p: Page, name: string) => assertPageAtBothWidths(p, name);
      await signInInChromium(page, base, demo.email, PASSWORD);
      await page.goto(`${base}/admin/settings`);
      await visit(page, "settings");
      for (
        const name of [
          "languages",
          "editorial",
          "seo",
          "search",
          "media-files",
          "comments",
        ]
      ) {
        await page.goto(`${base}/admin/settings/${name}`);
        await visit(page, `settings-${name}`);
      }
      await page.goto(`${base}/admin/settings/navigation`);
      await visit(page, "settings-navigation");
      await page.getByLabel("New menu").fill("main");
      await Promise.all([
        page.waitForURL(/\/navigation\/main$/),
        page.getByRole("button", { name: "Make menu" }).click(),
      ]);
      await page.getByLabel("Link 1: id").fill("home");
      await page.getByLabel("Link 1: link").fill("/");
      await page.getByLabel("Link 1: label (en)").fill("Home");
      await page.getByLabel("Link 1: label (de)").fill("Start");
      await visit(page, "settings-menu");
      await Promise.all([
        page.waitForURL(/done=saved/),
        page.getByRole("button", { name: "Save menu" }).click(),
      ]);
      equal(await page.getByLabel("Link 1: id").inputValue(), "home");

      // Public API with its Shared content card, for a person who belongs to another site too.
      const other = await insertSite(t.services.db, {
        domain: "newsroom.test",
        slug: "newsroom",
      });
      await t.services.db.insertInto("site_members").values({
        site_id: other,
        user_id: demo.adminId,
        role_id: await insertRole(
          t.services.db,
          other,
          administratorPermissions(),
          t.clock,
        ),
        created_at: t.clock.now(),
      }).execute();
      await page.goto(`${base}/admin/settings/public-api`);
      await Promise.all([
        page.waitForURL(/\/public-api$/),
        page.getByRole("button", { name: "Share" }).click(),
      ]);
      await visit(page, "settings-public-api");

      // A model proposal, reviewed in the admin.
      const { db, clock } = t.services;
      const tags = await getModel(
        { db, clock, siteId: demo.siteId },
        (await db.selectFrom("models").select("id")
          .where("site_id", "=", demo.siteId).where("slug", "=", "tags")
          .executeTakeFirstOrThrow()).id,
      );
      if (!tags.ok) throw new Error("no tags model");
      const proposed = await createModelProposal({
        db,
        clock,
        siteId: demo.siteId,
        actor: { kind: "person", userId: demo.adminId },
        facts: (tx, m) => entryContentFacts(tx, demo.siteId, m),
      }, {
        mode: "update",
        model_id: tags.model.id,
        base_updated_at: tags.model.updatedAt.toISOString(),
        definition: {
          model: { name: "Tags", slug: "tags", enableI18n: true },
          fields: [
            ...tags.model.fields,
            { key: "colour", label: "Colour", type: "text" },
          ],
        },
        note: "Give tags a colour",
      });
      if (!proposed.ok) throw new Error(proposed.code);
      await page.goto(`${base}/admin/models`);
      await Promise.all([
        page.waitForURL(/\/admin\/models\/proposals\//),
        page.getByRole("link", { name: /Give tags a colour/ }).click(),
      ]);
      await visit(page, "model-proposal");
      await Promise.all([
        page.waitForURL(/done=applied/),
        page.getByRole("button", { name: "Apply" }).click(),
      ]);
      deepEqual(errors, []);
    } finally {
      await browser?.close();
      await server?.close();
      await t.close();
    }
  },
});
