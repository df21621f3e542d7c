// Accessibility checks with axe-core in a Playwright page, and screenshots at phone and desktop widths.
import { deepEqual, equal } from "node:assert/strict";
import axe from "axe-core";
import type { Page } from "playwright-core";

/** Where browser tests write their screenshots (git-ignored). */
export const SCREENSHOT_DIR =
  new URL("../../test-output/admin/", import.meta.url)
    .pathname;

/** One serious or critical axe violation, named by page. */
export interface A11yProblem {
  page: string;
  id: string;
  impact: string;
  help: string;
  targets: string[];
}

/**
 * Runs axe-core on the page as it is now and answers its serious and critical violations (every
 * violation, minor and moderate too, with `everyImpact`).
 * axe is evaluated through the DevTools protocol, so the page's CSP stays as it is.
 */
export async function axeProblems(
  page: Page,
  name: string,
  options: { everyImpact?: boolean } = {},
): Promise<A11yProblem[]> {
  const loaded = await page.evaluate(() =>
    typeof (globalThis as { axe?: unknown }).axe !== "undefined"
  );
  if (!loaded) await page.evaluate(axe.source);
  const violations = await page.evaluate(async () => {
    // deno-lint-ignore no-explicit-any
    const run = (globalThis as any).axe.run;
    const result = await run(document, { resultTypes: ["violations"] });
    // deno-lint-ignore no-explicit-any
    return result.violations.map((v: any) => ({
      id: v.id,
      impact: v.impact ?? "",
      help: v.help,
      // deno-lint-ignore no-explicit-any
      targets: v.nodes.map((n: any) => String(n.target)),
    }));
  }) as Omit<A11yProblem, "page">[];
  return violations.filter((v) =>
    options.everyImpact || v.impact === "serious" || v.impact === "critical"
  ).map((v) => ({ page: name, ...v }));
}

/** Saves full-page screenshots of the page at 390 px and 1440 px wide, then restores the width. */
export async function screenshots(page: Page, name: string): Promise<void> {
  await Deno.mkdir(SCREENSHOT_DIR, { recursive: true });
  const before = page.viewportSize() ?? { width: 1440, height: 900 };
  for (const width of [390, 1440]) {
    await page.setViewportSize({ width, height: 900 });
    await page.screenshot({
      path: `${SCREENSHOT_DIR}${name}-${width}.png`,
      fullPage: true,
    });
  }
  await page.setViewportSize(before);
}

/**
 * When the page scrolls sideways at its current width (a layout bug on phones): the elements
 * reaching past the right edge; null when it does not.
 */
export function scrollsSideways(page: Page): Promise<string[] | null> {
  return page.evaluate(() => {
    const root = document.documentElement;
    if (root.scrollWidth <= root.clientWidth + 1) return null;
    return [...document.querySelectorAll("body *")].filter((el) =>
      el.getBoundingClientRect().right > root.clientWidth + 1 &&
      !el.closest(".table-wrap")
    ).slice(0, 5).map((el) =>
      `${el.tagName.toLowerCase()}${el.id ? `#${el.id}` : ""}.${
        el.className || ""
      }`
    );
  });
}

/**
 * The check a browser test makes of each page it visits: axe-core finds nothing serious at
 * 1440 px (and at 390 px too with `axeAt390`), screenshots are saved at both widths, and the
 * page does not scroll sideways at 390 px; the page is left at 1440 px.
 */
export async function assertPageAtBothWidths(
  page: Page,
  name: string,
  options: { axeAt390?: boolean; everyImpact?: boolean } = {},
): Promise<void> {
  const impacts = { everyImpact: options.everyImpact };
  deepEqual(await axeProblems(page, name, impacts), [], name);
  await screenshots(page, name);
  await page.setViewportSize({ width: 390, height: 900 });
  equal(await scrollsSideways(page), null, name);
  if (options.axeAt390) {
    deepEqual(
      await axeProblems(page, `${name}-390`, impacts),
      [],
      `${name}-390`,
    );
  }
  await page.setViewportSize({ width: 1440, height: 900 });
}
