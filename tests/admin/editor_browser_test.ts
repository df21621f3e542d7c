// The editors' admin end to end in headless Chromium: each flow a person uses, axe-core on every page,
// screenshots at 390 px and 1440 px under test-output/admin/ (git-ignored).
import { deepEqual, equal, match, ok } from "node:assert/strict";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { loadAuthority } from "../../core/access/authority.ts";
import { createRole } from "../../core/access/roles.ts";
import { createEntryProposal } from "../../core/proposals/mod.ts";
import {
  type A11yProblem,
  axeProblems,
  screenshots,
  scrollsSideways,
} from "../support/axe.ts";
import {
  BROWSER_TIMEOUT_MS,
  browserTestsRun,
  launchChromium,
  type LocalServer,
  serveLocally,
} from "../support/browser.ts";
import { setupDemo } from "./demo_helpers.ts";
import { PASSWORD } from "./helpers.ts";

const runsBrowser = browserTestsRun("the editor browser test");

Deno.test({
  name:
    "the editors' admin in Chromium: sign in, list, filter, create, validate, publish, translate, conflict, versions, trash, proposal, model field, invite (ADM flows)",
  ignore: !runsBrowser,
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const demo = await setupDemo({ domain: "127.0.0.1", islands: true });
    const { t } = demo;
    let server: LocalServer | undefined;
    let browser: Browser | undefined;
    const a11y: A11yProblem[] = [];
    const sideways: string[] = [];
    const problems: string[] = [];
    try {
      server = serveLocally((request, info) => t.app.fetch(request, info));
      const base = server.baseUrl;
      browser = await launchChromium();
      const context = await browser.newContext({
        viewport: { width: 1440, height: 900 },
      });
      const page = await context.newPage();
      watch(page, problems);

      /** Checks the page as a person meets it: axe, screenshots, no sideways scroll on a phone. */
      const visit = async (p: Page, name: string) => {
        a11y.push(...await axeProblems(p, name));
        await screenshots(p, name);
        await p.setViewportSize({ width: 390, height: 900 });
        const wide = await scrollsSideways(p);
        if (wide) sideways.push(`${name}: ${wide.join(", ")}`);
        await p.setViewportSize({ width: 1440, height: 900 });
      };

      // The landing page and a styled 404.
      await page.goto(`${base}/`);
      await page.getByRole("link", { name: "Open the admin" }).waitFor();
      await visit(page, "landing");
      const missing = await page.goto(`${base}/admin/nowhere`);
      equal(missing?.status(), 404);
      await visit(page, "not-found");

      // Sign in.
      await page.goto(`${base}/admin`);
      await visit(page, "sign-in");
      await page.getByLabel("Email").fill(demo.email);
      await page.getByLabel("Password").fill(PASSWORD);
      await Promise.all([
        page.waitForURL(`${base}/admin`),
        page.getByRole("button", { name: "Sign in" }).click(),
      ]);
      await page.getByRole("heading", { name: "Dashboard", level: 1 })
        .waitFor();
      await page.getByRole("heading", { name: "Recently published" }).waitFor();
      await visit(page, "dashboard");

      // Open posts from the sidebar, filter to drafts.
      await Promise.all([
        page.waitForURL(/\/admin\/content\/posts$/),
        page.getByRole("navigation", { name: "Admin" })
          .getByRole("link", { name: "Posts" }).click(),
      ]);
      equal(await page.locator("tbody tr").count(), 25);
      await visit(page, "posts-list");
      await page.getByLabel("Status").selectOption("draft");
      await page.getByLabel("Language", { exact: true }).selectOption("en");
      await Promise.all([
        page.waitForURL(/status=draft/),
        page.getByRole("button", { name: "Apply", exact: true }).click(),
      ]);
      equal(await page.locator("tbody tr").count(), 4);
      await visit(page, "posts-filtered");

      // Create a post in English: the slug follows the title.
      await page.goto(`${base}/admin/content/posts/new`);
      await page.locator("input[data-follows='field-title']").waitFor();
      await page.locator("#field-title").fill(
        "Hello from the browser",
      );
      equal(
        await page.getByLabel("Slug", { exact: true }).inputValue(),
        "hello-from-the-browser",
      );
      // A reading time over the model's limit: refused, typed values kept, message on the field.
      await page.getByLabel("Reading time (minutes)").fill("500");
      // The rich-text editor (ProseMirror) replaces the HTML textarea once its chunk has loaded.
      await page.getByRole("toolbar", { name: "Formatting of Body" }).waitFor();
      await page.getByRole("textbox", { name: "Body" }).fill("First words.");
      await page.getByRole("button", { name: "Create draft" }).click();
      await page.getByRole("alert").first().waitFor();
      const readingField = page.locator('[data-field="reading_minutes"]');
      match(
        await readingField.locator(".field-error").textContent() ?? "",
        /120/,
      );
      equal(
        await page.locator("#field-title").inputValue(),
        "Hello from the browser",
      );
      await visit(page, "editor-refused");
      await page.getByLabel("Reading time (minutes)").fill("5");
      await Promise.all([
        page.waitForURL(/done=created/),
        page.getByRole("button", { name: "Create draft" }).click(),
      ]);
      const editorUrl = page.url().replace(/&done=.*$/, "");
      await visit(page, "editor");

      // Publishing needs the required fields: the refusal names them; fix and publish.
      await page.getByRole("button", { name: "Publish en" }).click();
      await page.locator('[data-field="category"] .field-error').waitFor();
      await visit(page, "editor-publish-refused");
      await page.getByLabel("Category").selectOption("guide");
      await page.getByLabel("Published date").fill("2026-11-20");
      await Promise.all([
        page.waitForURL(/done=saved/),
        page.getByRole("button", { name: "Save draft" }).click(),
      ]);
      await Promise.all([
        page.waitForURL(/done=publish/),
        page.getByRole("button", { name: "Publish en" }).click(),
      ]);
      const publicItem = await fetch(
        `${base}/v1/posts/hello-from-the-browser?locale=en`,
      );
      equal(publicItem.status, 200);
      match(await publicItem.text(), /Hello from the browser/);

      // Translate it to German.
      await page.getByRole("navigation", { name: "Languages" })
        .getByRole("link", { name: /^de/ }).click();
      await page.getByText("This entry has no de version yet").waitFor();
      await page.locator("#field-title").fill(
        "Hallo aus dem Browser",
      );
      await page.getByLabel("Slug", { exact: true }).fill(
        "hallo-aus-dem-browser",
      );
      await Promise.all([
        page.waitForURL(/lang=de&done=saved/),
        page.getByRole("button", { name: "Save de translation" }).click(),
      ]);
      await visit(page, "editor-german");

      // The same entry in two tabs: the second save sees both versions and keeps its own.
      const tab2 = await context.newPage();
      watch(tab2, problems);
      await tab2.goto(`${editorUrl}`);
      await page.goto(`${editorUrl}`);
      await page.locator("#field-title").fill("Saved in tab one");
      await Promise.all([
        page.waitForURL(/done=saved/),
        page.getByRole("button", { name: "Save draft" }).click(),
      ]);
      await tab2.locator("#field-title").fill("Saved in tab two");
      await tab2.getByRole("button", { name: "Save draft" }).click();
      await tab2.getByRole("heading", {
        name: "Someone saved this entry while you edited",
      }).waitFor();
      await visit(tab2, "editor-conflict");
      await Promise.all([
        tab2.waitForURL(/done=saved/),
        tab2.getByRole("button", { name: "Keep my version" }).click(),
      ]);
      equal(
        await tab2.locator("#field-title").inputValue(),
        "Saved in tab two",
      );
      await tab2.close();

      // Restore an older version.
      await page.goto(`${editorUrl}`);
      await page.getByRole("link", { name: "Versions and restore" }).click();
      await page.getByRole("heading", { name: /^Version #/ }).waitFor();
      await visit(page, "versions");
      await Promise.all([
        page.waitForURL(/done=restored_version/),
        page.getByRole("button", { name: "Restore version 2" }).click(),
      ]);
      equal(
        await page.locator("#field-title").inputValue(),
        "Hello from the browser",
      );

      // Trash and restore.
      await Promise.all([
        page.waitForURL(/done=trash/),
        page.getByRole("button", { name: "Move to Trash" }).click(),
      ]);
      await visit(page, "editor-trashed");
      await Promise.all([
        page.waitForURL(/done=restore/),
        page.getByRole("button", { name: "Restore from Trash" }).click(),
      ]);

      // Review a proposal.
      const groupId = /posts\/([0-9a-f-]{36})/.exec(editorUrl)![1];
      const current = await t.services.db.selectFrom("entries")
        .select("current_version_id").where("group_id", "=", groupId)
        .where("locale", "=", "en").executeTakeFirstOrThrow();
      const proposed = await createEntryProposal({
        db: t.services.db,
        clock: t.clock,
        siteId: demo.siteId,
        actor: { kind: "person", userId: demo.adminId },
      }, {
        group_id: groupId,
        base_version_id: current.current_version_id,
        fields: { title: "A clearer title" },
        note: "Shorter and clearer",
      });
      ok(proposed.ok);
      await page.getByRole("link", { name: "Proposals" }).click();
      await page.getByText("Shorter and clearer").waitFor();
      await visit(page, "proposals");
      await Promise.all([
        page.waitForURL(/done=applied/),
        page.getByRole("button", { name: "Apply as a new draft" }).click(),
      ]);
      equal(
        await page.locator("#field-title").inputValue(),
        "A clearer title",
      );

      // Add a field to a model.
      await page.goto(`${base}/admin/models`);
      await visit(page, "models");
      await page.getByRole("link", { name: "Posts" }).last().click();
      await page.getByLabel("Label", { exact: true }).fill("Subtitle");
      await page.getByLabel("Key").fill("subtitle");
      await page.getByRole("button", { name: "Review changes" }).click();
      await page.getByText("Existing content is not affected").waitFor();
      await visit(page, "model-review");
      await Promise.all([
        page.waitForURL(/done=saved/),
        page.getByRole("button", { name: "Save the model" }).click(),
      ]);
      await page.goto(editorUrl);
      await page.getByLabel("Subtitle").waitFor();

      // Invite an editor whose role cannot publish: no publish button for them.
      const authority = await loadAuthority(t.services.db, {
        siteId: demo.siteId,
        actor: { kind: "person", userId: demo.adminId },
      });
      ok(authority.ok);
      const writer = await createRole({
        db: t.services.db,
        clock: t.clock,
        siteId: demo.siteId,
        authority: authority.authority,
      }, {
        name: "Writer",
        permissions: {
          models: { "*": ["read", "create", "update"] },
          system: [],
        },
      });
      ok(writer.ok);
      await page.goto(`${base}/admin/people`);
      await page.getByLabel("Email").fill("wendy@example.com");
      await page.getByLabel("Name").fill("Wendy Writer");
      await page.getByLabel("Role", { exact: true }).selectOption({
        label: "Writer",
      });
      await page.getByRole("button", { name: "Invite" }).click();
      const password = await page.locator("#invited-password").textContent();
      ok(password);
      await visit(page, "people-invited");

      const wendy: BrowserContext = await browser.newContext();
      const wendyPage = await wendy.newPage();
      watch(wendyPage, problems);
      await wendyPage.goto(`${base}/admin/sign-in`);
      await wendyPage.getByLabel("Email").fill("wendy@example.com");
      await wendyPage.getByLabel("Password").fill(password);
      await Promise.all([
        wendyPage.waitForURL(`${base}/admin`),
        wendyPage.getByRole("button", { name: "Sign in" }).click(),
      ]);
      await wendyPage.goto(editorUrl);
      await wendyPage.getByRole("button", { name: "Save draft" }).waitFor();
      equal(
        await wendyPage.getByRole("button", { name: /Publish/ }).count(),
        0,
      );
      equal(await wendyPage.getByRole("link", { name: "Settings" }).count(), 0);
      await visit(wendyPage, "editor-writer");
      await wendy.close();

      deepEqual(
        a11y,
        [],
        `serious or critical accessibility violations: ${
          JSON.stringify(a11y, null, 1)
        }`,
      );
      deepEqual(
        sideways,
        [],
        `pages that scroll sideways at 390 px: ${sideways.join("; ")}`,
      );
      deepEqual(problems, []);
    } finally {
      await browser?.close();
      await server?.close();
      await t.close();
    }
  },
});

function watch(page: Page, problems: string[]) {
  page.setDefaultTimeout(BROWSER_TIMEOUT_MS);
  page.setDefaultNavigationTimeout(BROWSER_TIMEOUT_MS);
  page.on("pageerror", (error) => problems.push(`page error: ${error}`));
  page.on("console", (message) => {
    if (
      message.type() === "error" &&
      !/status of 4\d\d/.test(message.text())
    ) {
      problems.push(`console error: ${message.text()}`);
    }
  });
}
