// /admin/media in headless Chromium: drag-free upload with progress, a duplicate prompt, alt text, focal point;
// axe-core on each state; screenshots at 1440 and 390 px without horizontal scroll.
import { deepEqual, equal, ok } from "node:assert/strict";
import axe from "axe-core";
import type { Browser, Page } from "playwright-core";
import { administratorPermissions } from "../../core/access/default_roles.ts";
import { FileStorage } from "../../core/media/file_storage.ts";
import {
  insertPerson,
  PASSWORD,
  setMemberPermissions,
} from "../admin/helpers.ts";
import { openTestApp, type TestApp } from "../support/app.ts";
import {
  BROWSER_TIMEOUT_MS,
  browserTestsRun,
  launchChromium,
  serveLocally,
  signInInChromium,
} from "../support/browser.ts";
import { insertSite } from "../support/sites.ts";
import { png } from "./support.ts";

const runsBrowser = browserTestsRun("the media browser test");

const SHOTS = new URL("../../data/screenshots/", import.meta.url);

async function axeViolations(page: Page): Promise<string[]> {
  // Evaluated over the DevTools protocol: the page's own CSP (no inline script) stays in force.
  await page.evaluate(axe.source);
  const found = await page.evaluate(async () => {
    // deno-lint-ignore no-explicit-any
    const result = await (globalThis as any).axe.run(document, {
      runOnly: ["wcag2a", "wcag2aa", "best-practice"],
    });
    type Violation = { id: string; nodes: { target: string[] }[] };
    return (result.violations as Violation[]).map((v) =>
      `${v.id}: ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`
    );
  });
  return found;
}

async function shoot(page: Page, name: string) {
  await Deno.mkdir(SHOTS, { recursive: true });
  await page.screenshot({
    path: new URL(`media-${name}.png`, SHOTS).pathname,
    fullPage: true,
  });
  const overflow = await page.evaluate(() =>
    document.documentElement.scrollWidth - document.documentElement.clientWidth
  );
  equal(overflow, 0, `${name}: no horizontal scroll`);
}

Deno.test({
  name:
    "/admin/media in Chromium: upload with progress, duplicate prompt in words, alt text and focal point; axe clean at 1440 and 390 px",
  ignore: !runsBrowser,
  async fn() {
    let t: TestApp | undefined;
    const server = serveLocally((request, info) => t!.app.fetch(request, info));
    const dir = await Deno.makeTempDir();
    let browser: Browser | undefined;
    try {
      t = await openTestApp({
        islands: true,
        env: { PUBLIC_URL: server.baseUrl },
      });
      t.services.media = new FileStorage(dir);
      const siteId = await insertSite(t.services.db, {
        domain: "127.0.0.1",
        slug: "media-site",
        languages: ["en", "de"],
      });
      const userId = await insertPerson(t.services.db, {
        email: "grace@example.com",
        password: PASSWORD,
        displayName: "Grace Hopper",
        siteIds: [siteId],
      });
      await setMemberPermissions(
        t.services.db,
        userId,
        administratorPermissions(),
      );
      const files = [
        {
          name: "sunrise.png",
          mimeType: "image/png",
          buffer: await png(1, 160, 90),
        },
        {
          name: "harbour.png",
          mimeType: "image/png",
          buffer: await png(2, 160, 90),
        },
      ];
      browser = await launchChromium();
      const page = await browser.newPage({
        viewport: { width: 1440, height: 900 },
      });
      page.setDefaultTimeout(BROWSER_TIMEOUT_MS);
      const problems: string[] = [];
      page.on("pageerror", (e) => problems.push(`page error: ${e}`));
      page.on("console", (m) => {
        // The uploader's duplicate answer is a 409 by design; status lines are checked below.
        if (m.type() === "error" && !/status of (404|409)/.test(m.text())) {
          problems.push(`console: ${m.text()}`);
        }
      });
      page.on("response", (r) => {
        const path = new URL(r.url()).pathname;
        if (r.status() === 404 && path !== "/favicon.ico") {
          problems.push(`404: ${path}`);
        }
      });
      const base = server.baseUrl;
      await signInInChromium(page, base, "grace@example.com", PASSWORD);
      await page.getByRole("link", { name: "Media", exact: true }).click();
      await page.getByRole("heading", { name: "Media library" }).waitFor();
      deepEqual(await axeViolations(page), []);
      await shoot(page, "empty-1440");

      // The island takes over the form once hydrated: one progress bar per file.
      await page.getByText("Drop files here").waitFor();
      await page.getByLabel("Files to upload").setInputFiles(
        files.map((f) => ({ ...f, buffer: Buffer.from(f.buffer) })),
      );
      await page.getByRole("button", { name: "Upload", exact: true }).click();
      await page.locator(".upload-done").nth(1).waitFor();
      equal(await page.locator("progress").count(), 2);
      // The same bytes again: the prompt in words, then "Use the existing file".
      await page.getByLabel("Files to upload").setInputFiles([{
        ...files[0],
        name: "again.png",
        buffer: Buffer.from(files[0].buffer),
      }]);
      await page.getByRole("button", { name: "Upload", exact: true }).click();
      await page.getByText(
        "The library already has this exact file as “sunrise.png” (1 copy).",
      ).waitFor();
      deepEqual(await axeViolations(page), []);
      await shoot(page, "duplicate-1440");
      await page.getByRole("button", { name: "Use the existing file" }).click();
      await page.getByText("Already in the library: the existing file is used")
        .waitFor();
      await page.getByRole("link", {
        name: "Show the library with the new files",
      }).click();
      await page.locator(".media-grid img").nth(1).waitFor();
      equal(await page.locator(".media-grid li").count(), 2);

      await page.getByRole("link", { name: "sunrise.png" }).click();
      await page.getByRole("heading", { name: "sunrise.png" }).waitFor();
      await page.getByLabel("Alt text (en)").fill("An orange sunrise");
      await Promise.all([
        page.waitForURL(/item=/),
        page.getByRole("button", { name: "Save alt texts" }).click(),
      ]);
      equal(
        await page.getByLabel("Alt text (en)").inputValue(),
        "An orange sunrise",
      );
      // Clicking the image sets the point once hydrated.
      await page.locator(".focal-frame img").click({
        position: { x: 40, y: 20 },
      });
      ok(Number(await page.getByLabel("Across (0–1)").inputValue()) > 0);
      await Promise.all([
        page.waitForURL(/item=/),
        page.getByRole("button", { name: "Save display settings" }).click(),
      ]);
      const row = await t.services.db.selectFrom("media_files").selectAll()
        .where("file_name", "=", "sunrise.png").executeTakeFirstOrThrow();
      equal((row.alt_texts as Record<string, string>).en, "An orange sunrise");
      ok(row.default_focal !== null);
      deepEqual(await axeViolations(page), []);
      await shoot(page, "details-1440");

      await page.setViewportSize({ width: 390, height: 844 });
      await page.reload();
      deepEqual(await axeViolations(page), []);
      await shoot(page, "details-390");
      deepEqual(problems, []);
    } finally {
      await browser?.close();
      await server.close();
      await t?.close();
      await Deno.remove(dir, { recursive: true });
    }
  },
});
