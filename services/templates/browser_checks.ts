// The accessibility and width checks of a candidate's drawn fixtures: each page in headless
// Chromium at 390 and 1440 px, axe-core's serious and critical rules, and no sideways scroll.
// The browser has no network: it answers the candidate's own assets and the fixture picture.
import axe from "axe-core";
import { chromium } from "playwright-core";
import {
  FIXTURE_PICTURE_SVG,
  FIXTURE_PICTURE_URL,
} from "../../core/templates/fixtures.ts";

/** The widths every page is checked at. */
export const CHECK_WIDTHS = [390, 1440] as const;

/** What the two browser checks found. */
export interface BrowserFindings {
  accessibility: string[];
  widths: string[];
}

/** Where Chromium lives (Debian's package). */
export const CHROMIUM_PATH = Deno.env.get("TEMPLATE_CHROMIUM_PATH") ??
  "/usr/bin/chromium";

const TYPES: Record<string, string> = {
  css: "text/css",
  js: "text/javascript",
  svg: "image/svg+xml",
  woff2: "font/woff2",
  json: "application/json",
  txt: "text/plain",
};

/** Draws each page in Chromium and lists problems by page and width. */
export async function checkInBrowser(
  pages: { name: string; html: string }[],
  assets: Record<string, string>,
): Promise<BrowserFindings> {
  const browser = await chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    timeout: 20_000,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
  const found: BrowserFindings = { accessibility: [], widths: [] };
  try {
    const context = await browser.newContext({ serviceWorkers: "block" });
    await context.route("**/*", (route) => {
      const url = new URL(route.request().url());
      if (url.href === FIXTURE_PICTURE_URL) {
        return route.fulfill({
          contentType: "image/svg+xml",
          body: FIXTURE_PICTURE_SVG,
        });
      }
      if (url.origin === "https://site.invalid") {
        if (url.pathname === "/") {
          return route.fulfill({ contentType: "text/html", body: "" });
        }
        const name = url.pathname.replace(/^\/_site\//, "assets/");
        if (name in assets) {
          const ext = name.split(".").pop() ?? "";
          return route.fulfill({
            contentType: TYPES[ext] ?? "application/octet-stream",
            body: assets[name],
          });
        }
      }
      return route.abort("blockedbyclient");
    });
    const page = await context.newPage();
    page.setDefaultTimeout(15_000);
    for (const { name, html } of pages) {
      await page.goto("https://site.invalid/");
      for (const width of CHECK_WIDTHS) {
        await page.setViewportSize({ width, height: 900 });
        await page.setContent(html, { waitUntil: "load" });
        const wide = await page.evaluate(() => {
          const root = document.documentElement;
          return root.scrollWidth > root.clientWidth + 1 ? root.scrollWidth : 0;
        });
        if (wide) {
          found.widths.push(
            `${name} at ${width} px scrolls sideways (${wide} px wide)`,
          );
        }
        await page.evaluate(axe.source);
        const violations = await page.evaluate(async () => {
          // deno-lint-ignore no-explicit-any
          const result = await (globalThis as any).axe.run(document, {
            resultTypes: ["violations"],
          });
          // deno-lint-ignore no-explicit-any
          return result.violations.map((v: any) => ({
            id: v.id,
            impact: v.impact ?? "",
            help: v.help,
          }));
        }) as { id: string; impact: string; help: string }[];
        for (const v of violations) {
          if (v.impact === "serious" || v.impact === "critical") {
            found.accessibility.push(
              `${name} at ${width} px: ${v.id} (${v.help})`,
            );
          }
        }
      }
    }
  } finally {
    await browser.close();
  }
  return found;
}
