// Everyday administrator tasks in Chromium, reached through the navigation as a person would:
// add a field to a model through its settings form, add a person with a role, read a form
// submission. Each page: axe-core with no finding of any impact at 390 and 1440 px (the phone
// menu's toggle sits inside the banner), no sideways scroll, screenshots; titles are never a
// bare "Stave".
import { deepEqual, equal, match, ok } from "node:assert/strict";
import type { Browser, Page } from "playwright-core";
import { assertPageAtBothWidths, SCREENSHOT_DIR } from "../support/axe.ts";
import {
  BROWSER_TIMEOUT_MS,
  browserTestsRun,
  launchChromium,
  type LocalServer,
  serveLocally,
  signInInChromium,
} from "../support/browser.ts";
import { type DemoAdmin, setupDemo } from "./demo_helpers.ts";
import { PASSWORD } from "./helpers.ts";

const runs = browserTestsRun("the admin tasks browser test");

async function inChromium(
  fn: (page: Page, base: string, demo: DemoAdmin) => Promise<void>,
) {
  const demo = await setupDemo({ domain: "127.0.0.1" });
  let server: LocalServer | undefined;
  let browser: Browser | undefined;
  try {
    server = serveLocally((request, info) => demo.t.app.fetch(request, info));
    browser = await launchChromium();
    const page = await browser.newPage({
      viewport: { width: 1440, height: 900 },
    });
    page.setDefaultTimeout(BROWSER_TIMEOUT_MS);
    const errors: string[] = [];
    page.on("pageerror", (error) => errors.push(String(error)));
    await signInInChromium(page, server.baseUrl, demo.email, PASSWORD);
    await fn(page, server.baseUrl, demo);
    deepEqual(errors, []);
  } finally {
    await browser?.close();
    await server?.close();
    await demo.t.close();
  }
}

function visit(page: Page, name: string) {
  return assertPageAtBothWidths(page, name, {
    axeAt390: true,
    everyImpact: true,
  });
}

async function titled(page: Page) {
  match(await page.title(), /^.+ · Stave$/);
}

Deno.test({
  name:
    "add a field in Chromium: Models → Posts → a select field with its choices from the settings form, then a text field's longest length; both saved (MOD-002, MOD-003)",
  ignore: !runs,
  sanitizeOps: false,
  sanitizeResources: false,
  fn: () =>
    inChromium(async (page, base, demo) => {
      await page.goto(`${base}/admin`);
      await page.getByRole("navigation", { name: "Admin" })
        .getByRole("link", { name: "Models" }).click();
      await page.waitForURL(`${base}/admin/models`);
      await titled(page);
      await Promise.all([
        page.waitForURL(/\/admin\/models\/[0-9a-f-]{36}$/),
        page.locator("#main").getByRole("link", { name: "Posts", exact: true })
          .click(),
      ]);
      await visit(page, "task-add-field");
      await page.getByLabel("Label", { exact: true }).fill("Mood");
      await page.getByLabel("Key", { exact: true }).fill("mood");
      await page.getByLabel("Type").selectOption("select");
      await page.getByText(
        "Settings for a select, relation, number or media field",
      ).click();
      await page.getByRole("group", { name: "Select fields" })
        .getByLabel("Choices").fill("calm\nbright | Bright and loud");
      await page.getByRole("button", { name: "Review changes" }).click();
      await page.getByRole("button", { name: /Save/ }).first().click();
      await page.waitForURL(/done=saved/);
      const model = await demo.t.services.db.selectFrom("models")
        .select(["id"]).where("site_id", "=", demo.siteId)
        .where("slug", "=", "posts").executeTakeFirstOrThrow();
      const field = await demo.t.services.db.selectFrom("model_fields")
        .selectAll().where("model_id", "=", model.id)
        .where("key", "=", "mood").executeTakeFirstOrThrow() as Record<
          string,
          unknown
        >;
      equal(field.type, "select");
      deepEqual((field.config as { options: unknown }).options, [
        { value: "calm", label: "calm" },
        { value: "bright", label: "Bright and loud" },
      ]);

      // A text field's longest length, set with a number box instead of JSON.
      const title = page.getByText("Settings of title");
      await title.click();
      await page.locator('input[name$=".validation.maxLength"]').first()
        .fill("120");
      await page.getByRole("button", { name: "Review changes" }).click();
      await page.getByRole("button", { name: /Save/ }).first().click();
      await page.waitForURL(/done=saved/);
      const titleField = await demo.t.services.db.selectFrom("model_fields")
        .selectAll().where("model_id", "=", model.id)
        .where("key", "=", "title").executeTakeFirstOrThrow() as Record<
          string,
          unknown
        >;
      equal((titleField.validation as { maxLength?: number }).maxLength, 120);
    }),
});

Deno.test({
  name:
    "add a person with a role in Chromium: People → invite with Editor → listed with that role",
  ignore: !runs,
  sanitizeOps: false,
  sanitizeResources: false,
  fn: () =>
    inChromium(async (page, base, demo) => {
      await page.goto(`${base}/admin`);
      await page.getByRole("navigation", { name: "Admin" })
        .getByRole("link", { name: "People" }).click();
      await page.waitForURL(`${base}/admin/people`);
      await titled(page);
      await visit(page, "task-people");
      await page.locator("#invite-email").fill("grace@example.com");
      await page.locator("#invite-name").fill("Grace Hopper");
      await page.locator("#invite-role").selectOption({ label: "Editor" });
      await page.getByRole("button", { name: "Invite" }).click();
      await page.waitForLoadState();
      ok(await page.locator("#invited-password").isVisible());
      const row = page.getByRole("row", { name: /grace@example.com/ });
      match(await row.innerText(), /Grace Hopper/);
      const member = await demo.t.services.db.selectFrom("site_members")
        .innerJoin("users", "users.id", "site_members.user_id")
        .innerJoin("roles", "roles.id", "site_members.role_id")
        .select(["roles.name"]).where("site_members.site_id", "=", demo.siteId)
        .where("users.email", "=", "grace@example.com")
        .executeTakeFirstOrThrow();
      equal(member.name, "Editor");
      await visit(page, "task-people-added");

      // The posts list on a phone: a title gets the row's width, not a squeezed column.
      await page.goto(`${base}/admin/content/posts`);
      equal(await page.title(), "Posts · Stave");
      await page.setViewportSize({ width: 390, height: 900 });
      const cell = page.locator("tbody tr").first().locator("td").nth(1);
      const box = await cell.boundingBox();
      ok(box && box.width > 250, `title cell is ${box?.width} px wide`);
      await page.screenshot({
        path: `${SCREENSHOT_DIR}task-posts-list-390.png`,
      });
      await page.setViewportSize({ width: 1440, height: 900 });
    }),
});

Deno.test({
  name:
    "read a form submission in Chromium: Form submissions is in the navigation and shows what a visitor sent (FORM-010)",
  ignore: !runs,
  sanitizeOps: false,
  sanitizeResources: false,
  fn: () =>
    inChromium(async (page, base, demo) => {
      const home = await demo.t.services.db.selectFrom("entries")
        .select("group_id").where("site_id", "=", demo.siteId)
        .where("slug", "=", "home").executeTakeFirstOrThrow();
      const submitted = await fetch(`${base}/v1/interactions/form.submit`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          action: "form.submit",
          page: home.group_id,
          locale: "en",
          section: "contact",
          key: "admin-task-key-0001",
          values: {
            name: "Ada",
            email: "ada@example.com",
            topic: "Support",
            message: "The list of posts reads well on my phone now.",
          },
          consent: true,
        }),
      });
      equal(submitted.status, 201);
      await page.goto(`${base}/admin`);
      // On a phone the navigation is behind the Menu toggle, inside the banner.
      await page.setViewportSize({ width: 390, height: 900 });
      await page.getByRole("banner").getByText("Menu").click();
      await page.getByRole("navigation", { name: "Admin" })
        .getByRole("link", { name: "Form submissions" }).click();
      await page.waitForURL(`${base}/admin/forms`);
      await page.setViewportSize({ width: 1440, height: 900 });
      equal(await page.title(), "Form submissions · Stave");
      match(
        await page.locator("main").innerText(),
        /The list of posts reads well on my phone now\./,
      );
      await visit(page, "task-form-submission");
    }),
});
