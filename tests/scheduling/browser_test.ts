// The scheduling plugin's pages in headless Chromium: an editor's launch opens the content page,
// the form schedules a publish, the confirmation shows local time and UTC; a manage launch
// opens the calendar and the agenda. axe-core on each page, screenshots at 390 and 1440 px,
// no sideways scroll (SUI rows).
import { deepEqual, equal, match } from "node:assert/strict";
import { axeProblems, screenshots, scrollsSideways } from "../support/axe.ts";
import { browserTestsRun, launchChromium } from "../support/browser.ts";
import { withSchedulingWorld } from "./world.ts";

Deno.test({
  name:
    "the plugin's content page, confirmation, calendar and agenda in Chromium (axe, 390/1440 px)",
  ignore: !browserTestsRun("the scheduling browser test"),
  fn: () =>
    withSchedulingWorld(async (w) => {
      const { instances } = await w.entry({
        en: { title: "Autumn issue" },
        de: { title: "Herbstausgabe" },
      });
      const launch = await w.admin(
        "POST",
        `/api/plugins/${w.installationId}/launch`,
        {
          kind: "content_action",
          action: "schedule",
          instance_id: instances.en,
        },
      );
      const url = (await launch.json()).data.url as string;
      const browser = await launchChromium();
      try {
        const page = await browser.newPage({
          viewport: { width: 1440, height: 900 },
        });
        const problems = [];
        await page.goto(url);
        equal(new URL(page.url()).searchParams.has("svc_launch"), false);
        match(await page.title(), /Autumn issue/);
        problems.push(...await axeProblems(page, "content"));
        await screenshots(page, "scheduling-content");

        await page.selectOption("#kind", "publish");
        await page.selectOption("#locale", "de");
        await page.fill("#new-local", "2026-11-24T09:30");
        await page.selectOption("#new-zone", "America/New_York");
        // The page's small script previews the UTC instant before anything is sent.
        await page.waitForFunction(() =>
          document.querySelector("output")?.textContent?.includes(
            "2026-11-24 14:30 UTC",
          )
        );
        // A time in New York's autumn fold previews each reading as chosen.
        await page.fill("#new-local", "2026-11-01T01:30");
        await page.check('input[name="fold"][value="earlier"]');
        await page.waitForFunction(() =>
          document.querySelector("output")?.textContent?.includes(
            "2026-11-01 05:30 UTC",
          )
        );
        await page.check('input[name="fold"][value="later"]');
        await page.waitForFunction(() =>
          document.querySelector("output")?.textContent?.includes(
            "2026-11-01 06:30 UTC",
          )
        );
        await page.fill("#new-local", "2026-11-24T09:30");
        await page.click("button[type=submit]");
        await page.waitForURL(/\/schedules\//);
        const text = await page.textContent("main") ?? "";
        match(text, /Publish de/);
        match(text, /2026-11-24 09:30 America\/New_York/);
        match(text, /2026-11-24 14:30 UTC/);
        problems.push(...await axeProblems(page, "schedule"));
        await screenshots(page, "scheduling-schedule");
        await page.setViewportSize({ width: 390, height: 844 });
        equal(await scrollsSideways(page), null);

        const manage = await w.admin(
          "POST",
          `/api/plugins/${w.installationId}/launch`,
          { kind: "manage", view: "calendar" },
        );
        const manageUrl = (await manage.json()).data.url as string;
        const managePage = await browser.newPage({
          viewport: { width: 1440, height: 900 },
        });
        await managePage.goto(manageUrl);
        await managePage.goto(
          `${
            new URL(manageUrl).origin
          }/installations/${w.installationId}/calendar?month=2026-11&zone=America/New_York`,
        );
        match(await managePage.textContent("main") ?? "", /241\s?scheduled/);
        problems.push(...await axeProblems(managePage, "calendar"));
        await screenshots(managePage, "scheduling-calendar");
        await managePage.click('a[href*="/calendar/2026-11-24"]');
        await managePage.waitForURL(/\/calendar\/2026-11-24/);
        match(await managePage.textContent("main") ?? "", /Autumn issue/);
        problems.push(...await axeProblems(managePage, "day"));
        await managePage.click("text=Back to the calendar");
        await managePage.click("text=Agenda");
        match(await managePage.textContent("main") ?? "", /Autumn issue/);
        problems.push(...await axeProblems(managePage, "agenda"));
        await screenshots(managePage, "scheduling-agenda");
        await managePage.click("text=Releases");
        problems.push(...await axeProblems(managePage, "releases"));
        await managePage.fill("#release-name", "Winter issue");
        await managePage.click("text=Create");
        await managePage.waitForURL(/\/releases\/[0-9a-f-]{36}/);
        match(await managePage.textContent("main") ?? "", /Release created/);
        problems.push(...await axeProblems(managePage, "release"));
        await screenshots(managePage, "scheduling-release");
        await managePage.setViewportSize({ width: 390, height: 844 });
        equal(await scrollsSideways(managePage), null);
        deepEqual(problems, []);
      } finally {
        await browser.close();
      }
    }),
});
