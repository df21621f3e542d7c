// Media → Plugin sources in headless Chromium: the source's previews load from the plugin with no
// Referer (PEXT-025), a copy import lands on the new library file; axe-core on each page,
// screenshots at 390 and 1440 px, no sideways scroll.
import { deepEqual, equal, match, ok } from "node:assert/strict";
import { axeProblems, screenshots, scrollsSideways } from "../support/axe.ts";
import {
  BROWSER_TIMEOUT_MS,
  browserTestsRun,
  launchChromium,
} from "../support/browser.ts";
import { serveWorldLocally, withPluginWorld } from "./world.ts";

Deno.test({
  name:
    "Media → Plugin sources in Chromium: previews reach the plugin without a Referer (PEXT-025), a copy import opens the new file (axe, 390/1440 px)",
  ignore: !browserTestsRun("the plugin media sources browser test"),
  fn: () =>
    withPluginWorld(async (w) => {
      w.plugin.behaviour.mediaSources = true;
      w.plugin.behaviour.capabilities = [
        ...w.plugin.behaviour.capabilities,
        "media:source",
      ];
      await w.install();
      // The browser talks to 127.0.0.1; the service sees the site's host and origin.
      const server = serveWorldLocally(w);
      const browser = await launchChromium();
      try {
        const context = await browser.newContext({
          viewport: { width: 1440, height: 900 },
        });
        await context.addCookies([{
          name: "stave_session",
          value: w.session,
          url: server.baseUrl,
        }]);
        const page = await context.newPage();
        page.setDefaultTimeout(BROWSER_TIMEOUT_MS);
        const problems = [];

        await page.goto(`${server.baseUrl}/admin/media`);
        await page.getByRole("link", { name: "Browse plugin media sources" })
          .click();
        await page.waitForURL(/\/admin\/media\/sources$/);
        const preview = page.getByRole("img", { name: "The sun over the sea" });
        await preview.waitFor();
        // The preview really loaded (the page's policy lets the plugin's origin show it).
        await page.waitForFunction(() => {
          const img = document.querySelector("main img") as HTMLImageElement;
          return img?.complete && img.naturalWidth > 0;
        });
        const asked = w.plugin.fileReferers.filter((r) =>
          r.path === "/files/sunrise.png"
        );
        ok(asked.length > 0, "the browser asked the plugin for the preview");
        deepEqual(
          asked.map((r) => r.referer),
          asked.map(() => null),
          "no Referer reached the plugin",
        );
        problems.push(...await axeProblems(page, "media-sources"));
        await screenshots(page, "media-sources");
        await page.setViewportSize({ width: 390, height: 844 });
        equal(await scrollsSideways(page), null);
        await page.setViewportSize({ width: 1440, height: 900 });

        // Browse the other source with a search (a GET form, no script needed).
        await page.selectOption("#source-pick", {
          label: "Team uploads (Example publisher)",
        });
        await page.fill("#source-q", "gone");
        await page.getByRole("button", { name: "Browse" }).click();
        await page.waitForURL(/q=gone/);
        await page.getByRole("img", { name: "Gone" }).waitFor();
        equal(
          await page.getByRole("button", { name: "Import as a link" }).count(),
          0,
        );

        // Import the sunrise as a copy: the library opens on the new file.
        await page.goto(`${server.baseUrl}/admin/media/sources`);
        await page.getByRole("button", { name: "Import a copy" }).click();
        await page.waitForURL(/\/admin\/media\?item=[0-9a-f-]{36}$/);
        match(await page.textContent("main") ?? "", /sunrise\.png/);
        const rows = await w.services.db.selectFrom("media_files")
          .select("external").where("site_id", "=", w.siteId).execute();
        deepEqual(rows, [{ external: false }]);

        // A second copy is named a duplicate in words, with a link to the file.
        await page.goto(`${server.baseUrl}/admin/media/sources`);
        await page.getByRole("button", { name: "Import a copy" }).click();
        await page.getByRole("alert").waitFor();
        match(
          await page.textContent("[role=alert]") ?? "",
          /already in the library/,
        );
        problems.push(...await axeProblems(page, "media-sources-duplicate"));
        await screenshots(page, "media-sources-duplicate");
        await page.setViewportSize({ width: 390, height: 844 });
        equal(await scrollsSideways(page), null);
        deepEqual(
          w.plugin.fileReferers.filter((r) => r.referer !== null),
          [],
          "no request of the plugin's files carried a Referer",
        );
        deepEqual(problems, []);
      } finally {
        await browser.close();
        await server.close();
      }
    }),
});
