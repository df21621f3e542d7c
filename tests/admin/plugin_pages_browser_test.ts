// Plugins' own pages reached from the admin in Chromium: an editor schedules a post for tomorrow
// from its Schedule card (the plugin's page opens in the same tab, in the editor's time zone, and
// links back), the card then shows the pending schedule the plugin holds; an administrator opens
// the plugin's calendar from Settings → Plugins and from Settings' plugin cards, and returns.
// axe-core at 390 and 1440 px on each admin page, screenshots under test-output/admin/.
import { deepEqual, equal, match, ok } from "node:assert/strict";
import type { Page } from "playwright-core";
import { assertPageAtBothWidths, axeProblems } from "../support/axe.ts";
import {
  BROWSER_TIMEOUT_MS,
  browserTestsRun,
  launchChromium,
  type LocalServer,
  serveLocally,
} from "../support/browser.ts";
import {
  openSchedulingWorld,
  type SchedulingWorld,
} from "../scheduling/world.ts";

const ZONE = "Europe/Berlin";

Deno.test({
  name:
    "plugin pages from the admin in Chromium: schedule a post for tomorrow from its card, the card shows the plugin's pending schedule, the calendar opens from Settings (PEXT-002, LAU-001, LAU-004, SUI-003)",
  ignore: !browserTestsRun("the plugin pages browser test"),
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const started: { world?: SchedulingWorld } = {};
    // Stave answers on localhost and the plugin on 127.0.0.1: two sites, so no cookie is shared.
    const server: LocalServer = serveLocally((request, info) =>
      started.world
        ? started.world.app.fetch(request, info)
        : new Response("Starting", { status: 503 })
    );
    const base = `http://localhost:${server.port}`;
    const w = await openSchedulingWorld({
      siteHost: "localhost",
      publicUrl: base,
    });
    started.world = w;
    const browser = await launchChromium();
    try {
      const { groupId } = await w.entry({ en: { title: "Autumn issue" } });
      const context = await browser.newContext({
        timezoneId: ZONE,
        viewport: { width: 1440, height: 900 },
      });
      await context.addCookies([{
        name: "stave_session",
        value: w.session,
        url: base,
      }]);
      const page = await context.newPage();
      page.setDefaultTimeout(BROWSER_TIMEOUT_MS);
      const errors: string[] = [];
      page.on("pageerror", (error) => errors.push(String(error)));
      const visit = (p: Page, name: string) =>
        assertPageAtBothWidths(p, name, { axeAt390: true });

      // The post's card before: the plugin answers that nothing is scheduled.
      const editor = `${base}/admin/content/posts/${groupId}?lang=en`;
      await page.goto(editor);
      const card = page.locator(".plugin-card");
      match(await card.innerText(), /Scheduled changes\s+None\./);
      await visit(page, "plugin-card-before");

      // Schedule opens the plugin's page in this tab, in the editor's zone.
      await Promise.all([
        page.waitForURL((url) => url.origin === w.scheduler.origin),
        card.getByRole("button", { name: "Schedule" }).click(),
      ]);
      equal(context.pages().length, 1);
      equal(new URL(page.url()).searchParams.has("svc_launch"), false);
      await page.waitForFunction(
        (zone) =>
          (document.querySelector("#new-zone") as HTMLSelectElement | null)
            ?.value === zone,
        ZONE,
      );
      const tomorrow = new Date(w.clock.now().getTime() + 86_400_000)
        .toLocaleDateString("en-CA", { timeZone: ZONE });
      await page.fill("#new-local", `${tomorrow}T09:00`);
      deepEqual(await axeProblems(page, "plugin-schedule-form"), []);
      await Promise.all([
        page.waitForURL(/\/schedules\//),
        page.locator(
          'section[aria-labelledby="new-schedule"] button[type=submit]',
        )
          .click(),
      ]);
      match(
        await page.innerText("main"),
        new RegExp(`${tomorrow} 09:00 ${ZONE}`),
      );

      // The schedule is in the plugin, pending, in the editor's zone.
      const held = await w.scheduler.db.selectFrom("schedules")
        .select(["status", "timezone", "local_datetime", "kind"])
        .where("installation_id", "=", w.installationId)
        .where("group_id", "=", groupId).execute();
      deepEqual(held, [{
        status: "pending",
        timezone: ZONE,
        local_datetime: `${tomorrow}T09:00`,
        kind: "publish",
      }]);

      // Back to Stave lands on the post, whose card reads the schedule from the plugin.
      await Promise.all([
        page.waitForURL(editor),
        page.getByRole("link", { name: "Back to Stave" }).click(),
      ]);
      const after = await card.innerText();
      match(after, /Publish, all languages/);
      match(after, new RegExp(`${tomorrow} 09:00 ${ZONE}`));
      match(after, /pending/);
      await visit(page, "plugin-card-after");

      // Settings → Plugins → the plugin's page opens its calendar; Back to Stave returns.
      await page.goto(`${base}/admin/settings/plugins`);
      await visit(page, "plugins-list");
      await Promise.all([
        page.waitForURL(`${base}/admin/settings/plugins/${w.installationId}`),
        page.getByRole("link", { name: "Scheduling" }).first().click(),
      ]);
      await visit(page, "plugin-settings");
      await Promise.all([
        page.waitForURL((url) =>
          url.origin === w.scheduler.origin &&
          url.pathname === `/installations/${w.installationId}/calendar`
        ),
        page.getByRole("button", { name: "Schedule calendar" }).click(),
      ]);
      deepEqual(await axeProblems(page, "plugin-calendar"), []);
      await Promise.all([
        page.waitForURL(`${base}/admin/settings/plugins`),
        page.getByRole("link", { name: "Back to Stave" }).click(),
      ]);

      // Settings draws the plugin's settings_row cards; one opens the releases.
      await page.goto(`${base}/admin/settings`);
      const fromPlugins = page.getByRole("region", { name: "From plugins" });
      ok(await fromPlugins.getByRole("heading", { name: "Releases" }).count());
      await visit(page, "settings-plugin-cards");
      await Promise.all([
        page.waitForURL((url) =>
          url.origin === w.scheduler.origin &&
          url.pathname === `/installations/${w.installationId}/releases`
        ),
        fromPlugins.getByRole("button", { name: "Open releases" }).click(),
      ]);
      deepEqual(errors, []);
    } finally {
      await browser.close();
      await server.close();
      await w.close();
    }
  },
});
