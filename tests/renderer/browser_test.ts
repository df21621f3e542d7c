// The rendered demo in real Chromium at 390 and 1440 px with axe-core (issue 41): home, a post,
// the posts index, search, a form sent end to end, a redirect, 404 and 410, and a plugin block's
// opaque frame (PEXT-004). Screenshots go to test-output/renderer/.
import { deepEqual, equal, match, ok } from "node:assert/strict";
import axe from "axe-core";
import type { Page } from "playwright-core";
import {
  browserTestsRun,
  launchChromium,
  serveLocally,
} from "../support/browser.ts";
import { builtInTemplate } from "../../services/renderer/template/builtin/mod.tsx";
import { everySectionView, FIXTURE_SVG } from "./every_section.ts";
import { blockFrame } from "../../services/renderer/template/builtin/components/rich_text.tsx";
import { DEMO_PORTS, putRedirects, startDemoSite } from "./support.ts";

const SHOTS = new URL("../../test-output/renderer/", import.meta.url).pathname;

/** Every axe violation, whatever its impact: the built-in template promises none. */
async function violations(page: Page): Promise<string[]> {
  if (!await page.evaluate(() => "axe" in globalThis)) {
    await page.evaluate(axe.source);
  }
  return await page.evaluate(async () => {
    // deno-lint-ignore no-explicit-any
    const result = await (globalThis as any).axe.run(document, {
      resultTypes: ["violations"],
    });
    type Violation = { id: string; nodes: { target: unknown }[] };
    return (result.violations as Violation[]).map((v) =>
      `${v.id}: ${v.nodes.map((n) => String(n.target)).join(", ")}`
    );
  });
}

/** Checks the page at both widths: no axe violation, no sideways scroll, a screenshot each. */
async function atBothWidths(page: Page, name: string): Promise<void> {
  for (const width of [390, 1440]) {
    await page.setViewportSize({ width, height: 900 });
    deepEqual(await violations(page), [], `${name} at ${width}px`);
    const sideways = await page.evaluate(() =>
      document.documentElement.scrollWidth >
        document.documentElement.clientWidth + 1
    );
    equal(sideways, false, `${name} scrolls sideways at ${width}px`);
    await page.screenshot({
      path: `${SHOTS}${name}-${width}.png`,
      fullPage: true,
    });
  }
}

Deno.test({
  name:
    "rendered demo in Chromium: pages at 390 and 1440 px with zero axe violations, a form sent, redirects and errors",
  ignore: !browserTestsRun("renderer browser tests"),
  sanitizeResources: false,
  sanitizeOps: false,
  async fn(t) {
    await Deno.mkdir(SHOTS, { recursive: true });
    const site = await startDemoSite(DEMO_PORTS.browser);
    const browser = await launchChromium();
    const page = await browser.newPage();
    const r = site.renderer.origin;
    try {
      await putRedirects(site, [
        { from: "/old-about", match: "exact", status: 301, to: "/about" },
        { from: "/gone", match: "exact", status: 410, to: null },
      ]);
      await t.step("home", async () => {
        const response = await page.goto(`${r}/`);
        equal(response?.status(), 200);
        equal(
          await page.locator("script").count(),
          0,
          "no JavaScript on a page that needs none",
        );
        await atBothWidths(page, "home");
        // Dark mode follows the visitor's setting, with the same contrast.
        await page.emulateMedia({ colorScheme: "dark" });
        await atBothWidths(page, "home-dark");
        await page.emulateMedia({ colorScheme: "light" });
      });
      await t.step(
        "footer columns drawn from the chrome's regions: recent posts, categories, tags, posts by month (PAUX-015, TPL-031)",
        async () => {
          await page.goto(`${r}/posts`);
          const region = page.getByRole("complementary", {
            name: "Footer columns",
          });
          ok(await region.isVisible());
          for (
            const heading of ["Recent posts", "Categories", "Tags", "Archive"]
          ) {
            ok(
              await region.getByRole("heading", { name: heading }).isVisible(),
              heading,
            );
          }
          equal(
            await region.locator(".region-block").first().locator("li").count(),
            4,
          );
          // A month has no address: it opens and closes, it does not link.
          equal(await region.locator("summary a").count(), 0);
          const month = region.locator("details").first();
          ok(!await month.evaluate((d) => (d as HTMLDetailsElement).open));
          await month.locator("summary").click();
          ok(await month.evaluate((d) => (d as HTMLDetailsElement).open));
          await region.scrollIntoViewIfNeeded();
          for (const width of [390, 1440]) {
            await page.setViewportSize({ width, height: 900 });
            deepEqual(await violations(page), [], `regions at ${width}px`);
            await region.screenshot({ path: `${SHOTS}regions-${width}.png` });
          }
        },
      );
      await t.step("posts index and a post", async () => {
        await page.goto(`${r}/posts`);
        await atBothWidths(page, "posts");
        await page.locator("a.card-link").first().click();
        await page.waitForURL(/\/posts\/[^/]+$/);
        ok(await page.locator("article.post h1").isVisible());
        await atBothWidths(page, "post");
      });
      await t.step(
        "search with suggestions from the site's own /search?suggest= (SRCH-031)",
        async () => {
          await page.goto(`${r}/search?q=preview`);
          ok(await page.locator("ol.results li").count() > 0);
          await atBothWidths(page, "search");
          const asked = page.waitForRequest((req) =>
            req.url().includes("/search?suggest=")
          );
          await page.locator("#q").fill("pre");
          const request = await asked;
          equal(new URL(request.url()).origin, r);
          equal(new URL(request.url()).searchParams.get("locale"), "en");
        },
      );
      await t.step("a form sent without JavaScript, end to end", async () => {
        await page.goto(`${r}/`);
        await page.getByLabel("Your name", { exact: true }).fill(
          "Ada Lovelace",
        );
        await page.getByLabel("Email address", { exact: true }).fill(
          "ada@example.com",
        );
        await page.locator("#f-contact-topic").selectOption("Support");
        await page.getByLabel("Message", { exact: true }).fill(
          "Could the renderer draw my site?",
        );
        await page.getByLabel(
          "I agree that Stave stores my message to answer it.",
        ).check();
        await page.getByRole("button", { name: "Send message" }).click();
        await page.waitForURL(/[?&]sent=1/);
        match(await page.locator(".form-success").innerText(), /Thank you/);
        await atBothWidths(page, "form-sent");
      });
      await t.step("a redirect, a 404 and a 410", async () => {
        await page.goto(`${r}/old-about`);
        equal(new URL(page.url()).pathname, "/about");
        const missing = await page.goto(`${r}/no-such-page`);
        equal(missing?.status(), 404);
        await atBothWidths(page, "404");
        const gone = await page.goto(`${r}/gone`);
        equal(gone?.status(), 410);
        await atBothWidths(page, "410");
      });
      await t.step(
        "a plugin block's script runs in an opaque frame and cannot read the page (PEXT-004)",
        async () => {
          await page.goto(`${r}/`);
          const frame = blockFrame({
            "data-type": "widget",
            "data-values": JSON.stringify({
              title: "Vendor widget",
              html: `<p>Widget</p><script>
              let verdict;
              try { verdict = "read:" + parent.document.title; } catch (e) { verdict = "blocked:" + e.name; }
              parent.postMessage({ verdict, origin: String(self.origin) }, "*");
            </script>`,
            }),
          });
          const message = page.evaluate(
            (html) =>
              new Promise<{ verdict: string; origin: string }>((resolve) => {
                addEventListener("message", (e) => resolve(e.data), {
                  once: true,
                });
                document.querySelector("main")!.insertAdjacentHTML(
                  "beforeend",
                  html,
                );
              }),
            frame,
          );
          const { verdict, origin } = await message;
          equal(verdict, "blocked:SecurityError");
          equal(origin, "null");
        },
      );
    } finally {
      await browser.close();
      await site.close();
    }
  },
});

Deno.test({
  name:
    "every section type of the built-in template at 390 and 1440 px with zero axe violations",
  ignore: !browserTestsRun("renderer browser tests"),
  async fn() {
    await Deno.mkdir(SHOTS, { recursive: true });
    let html = "";
    const server = serveLocally((request) => {
      const path = new URL(request.url).pathname;
      const asset = builtInTemplate.assets.find((a) =>
        `/_site/${a.name}` === path
      );
      if (asset) {
        return new Response(asset.body, {
          headers: { "content-type": asset.type },
        });
      }
      if (path === "/sun.svg") {
        return new Response(FIXTURE_SVG, {
          headers: { "content-type": "image/svg+xml" },
        });
      }
      return new Response(html, {
        headers: { "content-type": "text/html; charset=utf-8" },
      });
    });
    html = builtInTemplate.page(
      everySectionView({ imageUrl: `${server.baseUrl}/sun.svg` }),
    );
    const browser = await launchChromium();
    try {
      const page = await browser.newPage();
      await page.goto(`${server.baseUrl}/every-section`);
      await atBothWidths(page, "every-section");
    } finally {
      await browser.close();
      await server.close();
    }
  },
});
