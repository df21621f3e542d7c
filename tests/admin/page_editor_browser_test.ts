// The page editor in headless Chromium: sections dragged by their handle and moved from the
// keyboard, a section form whose heading shows in the structure preview as it is typed, a
// section added at a position; axe-core on each page, screenshots at 390 px and 1440 px under
// test-output/admin/ (issue 15, point 7).
import { deepEqual, equal, ok } from "node:assert/strict";
import type { Browser, Page } from "playwright-core";
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
  signInInChromium,
} from "../support/browser.ts";
import { setupDemo } from "./demo_helpers.ts";
import { PASSWORD } from "./helpers.ts";

const runsBrowser = browserTestsRun("the page editor browser test");

function watch(page: Page, problems: string[]) {
  page.setDefaultTimeout(BROWSER_TIMEOUT_MS);
  page.setDefaultNavigationTimeout(BROWSER_TIMEOUT_MS);
  page.on("pageerror", (error) => problems.push(`page error: ${error}`));
  // A refused form answers 422 on purpose; every other failed load is a problem, named by URL.
  page.on("response", (response) => {
    if (response.status() >= 400 && response.status() !== 422) {
      problems.push(`${response.status()} ${response.url()}`);
    }
  });
  page.on("console", (message) => {
    if (
      message.type() === "error" && !/status of 4\d\d/.test(message.text())
    ) {
      problems.push(`console error: ${message.text()}`);
    }
  });
}

/** Runs `action`, which loads another document, and waits until that document has loaded. */
async function navigated(
  page: Page,
  action: () => Promise<unknown>,
): Promise<void> {
  await page.evaluate(() => {
    (globalThis as { leftBehind?: boolean }).leftBehind = true;
  });
  await action();
  // The flag lives on the old document's window only; waitForFunction outlives navigations.
  await page.waitForFunction(() =>
    !(globalThis as { leftBehind?: boolean }).leftBehind
  );
  await page.waitForLoadState();
}

async function rowIds(page: Page): Promise<string[]> {
  return await page.locator("#section-rows > li").evaluateAll((rows) =>
    rows.map((r) => (r as HTMLElement).dataset.sectionId ?? "")
  );
}

Deno.test({
  name:
    "the page editor in Chromium: drag and keyboard reordering, a live structure preview, a section added at a position, usable at 390 px and 1440 px (PAGE editor, point 7)",
  ignore: !runsBrowser,
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const demo = await setupDemo({
      domain: "127.0.0.1",
      islands: true,
      media: true,
    });
    const { t } = demo;
    let server: LocalServer | undefined;
    let browser: Browser | undefined;
    const a11y: A11yProblem[] = [];
    const sideways: string[] = [];
    const problems: string[] = [];
    try {
      server = serveLocally((request, info) => t.app.fetch(request, info));
      const base = server.baseUrl;
      // Media URLs name the service's public address: here, this server.
      (t.services.config as { publicUrl: string }).publicUrl = base;
      browser = await launchChromium();
      const context = await browser.newContext({
        viewport: { width: 1440, height: 900 },
      });
      const page = await context.newPage();
      watch(page, problems);
      const visit = async (name: string) => {
        a11y.push(...await axeProblems(page, name));
        await screenshots(page, name);
        await page.setViewportSize({ width: 390, height: 900 });
        const wide = await scrollsSideways(page);
        if (wide) sideways.push(`${name}: ${wide.join(", ")}`);
        await page.setViewportSize({ width: 1440, height: 900 });
      };

      await signInInChromium(page, base, demo.email, PASSWORD);

      // From the page list to the editor of the English sections.
      await page.goto(`${base}/admin/pages`);
      await Promise.all([
        page.waitForURL(/\/sections\?lang=en$/),
        page.locator("article", {
          has: page.getByRole("heading", { name: /^en: \/home\b/ }),
        }).getByRole("link", { name: "Edit the en sections" }).click(),
      ]);
      await page.getByRole("heading", { name: "Sections of “Home”" }).waitFor();
      // The island marks the list once it can drag.
      await page.locator("#section-rows[data-enhanced]").waitFor();
      await visit("page-sections");
      const before = await rowIds(page);
      deepEqual(before.slice(0, 4), ["hero", "features", "next", "questions"]);

      // Drag "questions" by its handle above "features".
      const handle = page.locator("#section-questions [data-drag-handle]");
      const target = await page.locator("#section-features").boundingBox();
      const from = await handle.boundingBox();
      ok(target && from);
      await page.mouse.move(from.x + from.width / 2, from.y + from.height / 2);
      await page.mouse.down();
      await page.mouse.move(from.x + 4, target.y + 20, { steps: 8 });
      await page.mouse.move(from.x + 4, target.y + 4, { steps: 4 });
      await Promise.all([
        page.waitForURL(/done=moved/),
        page.mouse.up(),
      ]);
      await page.getByText("Section moved.").waitFor();
      deepEqual((await rowIds(page)).slice(0, 4), [
        "hero",
        "questions",
        "features",
        "next",
      ]);

      // From the keyboard: the row's Down button, reached with Tab and pressed with Enter.
      const down = page.getByRole("button", { name: "Move “Questions” down" });
      await down.focus();
      // The address already says `done=moved` from the drag: waiting for it would not wait for
      // this move's page, so wait for a new document instead.
      await navigated(page, () => page.keyboard.press("Enter"));
      await page.getByText("Section moved.").waitFor();
      deepEqual((await rowIds(page)).slice(0, 4), [
        "hero",
        "features",
        "questions",
        "next",
      ]);

      // Edit the hero: what is typed shows in the list and the preview at once.
      await Promise.all([
        page.waitForURL(/edit=hero/),
        page.getByRole("link", { name: "Edit “Content that stays in shape”" })
          .click(),
      ]);
      // The island marks the list and listens to the form in one effect: typing before it
      // ran would change the field but not the preview (flaked in CI).
      await page.locator("#section-rows[data-enhanced]").waitFor();
      const heading = page.locator("#sf-f-heading");
      await heading.fill("Pages that keep their shape");
      equal(
        await page.locator(".preview-block.editing .preview-heading")
          .textContent(),
        "Pages that keep their shape",
      );
      equal(
        await page.locator("#section-hero strong").textContent(),
        "Pages that keep their shape",
      );
      await visit("page-section-form");
      // Pressing Enter in a field saves the section.
      await Promise.all([
        page.waitForURL(/done=saved/),
        heading.press("Enter"),
      ]);
      equal(
        await page.locator("#section-hero strong").textContent(),
        "Pages that keep their shape",
      );

      // Add a call to action after the hero; a required field left empty is refused beside it.
      await page.getByLabel("Type").selectOption("cta");
      await page.getByLabel("Position").selectOption({
        label: "After “Pages that keep their shape”",
      });
      await Promise.all([
        page.waitForURL(/add=cta&at=1/),
        page.getByRole("button", { name: "Add section" }).click(),
      ]);
      await page.getByRole("heading", { name: "New section: Call to action" })
        .waitFor();
      await page.locator("#sf-f-heading").fill("Try it today");
      await page.locator("#section-form").getByRole("button", {
        name: "Add section",
      }).click();
      await page.getByText("This section needs attention").waitFor();
      equal(
        await page.locator("#sf-f-link-error").textContent(),
        '"link" is required',
      );
      await visit("page-section-refused");
      await page.locator("#sf-f-link-label").fill("Start");
      await page.locator("#sf-f-link-href").fill("/admin");
      await Promise.all([
        page.waitForURL(/done=added/),
        page.locator("#section-form").getByRole("button", {
          name: "Add section",
        }).click(),
      ]);
      deepEqual((await rowIds(page)).slice(0, 2), ["hero", "cta"]);

      // The entry editor links here.
      await page.goto(
        `${base}${
          new URL(page.url()).pathname.replace(/\/sections$/, "")
        }?lang=en`,
      );
      await page.getByRole("link", { name: "Edit the sections" }).waitFor();

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
