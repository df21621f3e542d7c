// The manual order screen in Chromium: an editor moves a published post to the top with the
// keyboard (no script needed), and the public list in `order=manual` reads it first; a form
// posted against an older order is refused and changes nothing. axe-core and screenshots at
// 390 and 1440 px.
import { deepEqual, equal } from "node:assert/strict";
import type { Browser } from "playwright-core";
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

Deno.test({
  name:
    "the manual order screen moves a post to the top by keyboard and /v1 order=manual lists it first; a stale move is refused (PUB-016)",
  ignore: !browserTestsRun("the manual order browser test"),
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
      const publicSlugs = async () => {
        const res = await fetch(`${base}/v1/posts?order=manual&limit=100`);
        equal(res.status, 200);
        return ((await res.json()).data as { slug: string }[]).map((i) =>
          i.slug
        );
      };
      const before = await publicSlugs();
      equal(before.length > 1, true, "the demo publishes several posts");
      const posts = await t.services.db.selectFrom("models").select("id")
        .where("site_id", "=", demo.siteId).where("slug", "=", "posts")
        .executeTakeFirstOrThrow();

      browser = await launchChromium();
      const page = await browser.newPage({
        viewport: { width: 1440, height: 900 },
      });
      page.setDefaultTimeout(BROWSER_TIMEOUT_MS);
      await signInInChromium(page, base, demo.email, PASSWORD);
      await page.goto(`${base}/admin/models/${posts.id}`);
      await Promise.all([
        page.waitForURL(/\/order$/),
        page.getByRole("link", { name: "Order entries" }).click(),
      ]);
      equal(await page.title(), "Order of Posts · Stave");
      await assertPageAtBothWidths(page, "manual-order", { axeAt390: true });

      // The post the public list shows last goes to the top, by keyboard.
      const lastSlug = before.at(-1)!;
      const entry = await t.services.db.selectFrom("entries")
        .select(["group_id", "list_title"])
        .where("site_id", "=", demo.siteId).where("slug", "=", lastSlug)
        .executeTakeFirstOrThrow();
      const stalePage = await page.content();
      const top = page.getByRole("button", {
        name: `Move to the top: ${entry.list_title}`,
      });
      await top.focus();
      await Promise.all([
        page.waitForURL(/moved=/),
        page.keyboard.press("Enter"),
      ]);
      const firstItem = page.locator(".order-list li").first();
      equal(
        await firstItem.getAttribute("id"),
        `entry-${entry.group_id}`,
      );
      const after = await publicSlugs();
      equal(after[0], lastSlug);
      deepEqual([...after].sort(), [...before].sort());
      await assertPageAtBothWidths(page, "manual-order-moved");

      // A form from before that move is refused as stale, and the order stays.
      await page.setContent(stalePage);
      const revision = /name="revision" value="(\d+)"/.exec(stalePage)![1];
      const csrf = /name="_csrf" value="([^"]+)"/.exec(stalePage)![1];
      const stale = await page.request.post(
        `${base}/admin/models/${posts.id}/order`,
        {
          form: {
            _csrf: csrf,
            revision,
            entry: entry.group_id,
            to: "bottom",
          },
          headers: { origin: base },
          maxRedirects: 0,
        },
      );
      equal(stale.status(), 409);
      deepEqual(await publicSlugs(), after);
      const audit = await t.services.db.selectFrom("audit_entries")
        .select("action").where("site_id", "=", demo.siteId)
        .where("action", "=", "model.order").execute();
      equal(audit.length, 1);
    } finally {
      await browser?.close();
      await server?.close();
      await t.close();
    }
  },
});
