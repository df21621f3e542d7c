// Settings → Plugins in headless Chromium: discover a plugin in a catalogue, review it from its manifest URL, install it with
// its activation code, open the installation's page, and run a site operation from the admin. axe-core on each page, screenshots at
// 390 and 1440 px, no sideways scroll (PLG-001, PLG-021).
import { deepEqual, equal, match } from "node:assert/strict";
import { axeProblems, screenshots, scrollsSideways } from "../support/axe.ts";
import {
  BROWSER_TIMEOUT_MS,
  browserTestsRun,
  launchChromium,
} from "../support/browser.ts";
import { startCatalogueServer } from "./catalogue_server.ts";
import { serveWorldLocally, withPluginWorld } from "./world.ts";

Deno.test({
  name:
    "Settings → Plugins in Chromium: discover in a catalogue, review, install with a code, the installation page with a policy's mode, a site operation run, an editor save with a policy warning (axe, 390/1440 px)",
  ignore: !browserTestsRun("the plugin admin browser test"),
  fn: async () => {
    const catalogue = startCatalogueServer();
    try {
      await withPluginWorld(async (w) => {
        catalogue.chain("/catalogue.json", [[{
          name: "Example publisher",
          description: "Publishes entries later, and checks titles",
          manifest_url: w.plugin.manifestUrl,
        }]]);
        w.plugin.behaviour.policies = [{
          id: "tone",
          kind: "save",
          mode: "blocking",
          answer: {
            decision: "warning",
            message: "The title shouts",
            fields: ["title"],
          },
        }];
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
          await page.goto(`${server.baseUrl}/admin/settings/plugins`);
          match(await page.textContent("main") ?? "", /No plugin is installed/);
          problems.push(...await axeProblems(page, "plugins"));
          await screenshots(page, "settings-plugins");

          // PLG-032: Discover reads the catalogue; an entry's link fills the install form.
          await page.click("text=Show plugins from catalogues");
          await page.getByRole("link", { name: "Use for Example publisher" })
            .waitFor();
          match(
            await page.textContent("#discover") ?? "",
            /gone\.json.*could not be read/,
          );
          problems.push(...await axeProblems(page, "plugins-discover"));
          await screenshots(page, "settings-plugins-discover");
          await page.setViewportSize({ width: 390, height: 844 });
          equal(await scrollsSideways(page), null);
          await page.setViewportSize({ width: 1440, height: 900 });
          await page.getByRole("link", { name: "Use for Example publisher" })
            .click();
          equal(
            await page.inputValue("#manifest-url"),
            w.plugin.manifestUrl,
          );
          await page.click("text=Review");
          await page.waitForSelector("#review-heading");
          problems.push(...await axeProblems(page, "plugin-review"));
          await screenshots(page, "settings-plugins-review");

          await page.fill("#activation-code", await w.plugin.issueCode());
          await page.getByRole("checkbox", { name: "Posts" }).check();
          await page.click("text=Install and activate");
          await page.waitForURL(/\/admin\/settings\/plugins\/[0-9a-f-]{36}/);
          match(await page.textContent("main") ?? "", /Example publisher/);
          problems.push(...await axeProblems(page, "plugin-installation"));
          await screenshots(page, "settings-plugins-installation");
          await page.setViewportSize({ width: 390, height: 844 });
          equal(await scrollsSideways(page), null);
          await page.setViewportSize({ width: 1440, height: 900 });
          await page.selectOption("#policy-mode-tone", "advisory");
          await page.getByRole("button", { name: "Save mode of Policy tone" })
            .click();
          await page.waitForSelector(
            "#policy-mode-tone option[value=advisory][selected]",
            { state: "attached" },
          );
          const installed = await w.services.db
            .selectFrom("plugin_installations").select("state")
            .executeTakeFirstOrThrow();
          equal(installed.state, "active");

          // Settings → Site operations: run the site report and read its blocks.
          await page.setViewportSize({ width: 1440, height: 900 });
          await page.goto(`${server.baseUrl}/admin/settings`);
          await page.click("text=Site operations");
          await page.waitForURL(/\/admin\/plugins\/operations$/);
          problems.push(...await axeProblems(page, "plugin-operations"));
          await page.getByRole("button", { name: "Run site report" }).click();
          await page.getByText("Site report ran.").waitFor();
          match(
            await page.textContent(".operation-result") ?? "",
            /Ran site-report/,
          );
          problems.push(...await axeProblems(page, "plugin-operation-result"));
          await screenshots(page, "plugin-operation-result");
          await page.setViewportSize({ width: 390, height: 844 });
          equal(await scrollsSideways(page), null);

          // The entry editor: a save the policy warns about shows the warning on the next page.
          await page.setViewportSize({ width: 1440, height: 900 });
          const { groupId } = await w.entry({ en: { title: "Hello" } });
          await page.goto(
            `${server.baseUrl}/admin/content/posts/${groupId}?lang=en`,
          );
          await page.fill("#field-title", "HELLO WORLD");
          await page.getByRole("button", { name: "Save draft" }).click();
          await page.waitForSelector("#policy-notes");
          match(
            await page.textContent("#policy-notes") ?? "",
            /Example publisher \(Policy tone\): The title shouts \(title\)/,
          );
          problems.push(...await axeProblems(page, "editor-policy-notes"));
          await screenshots(page, "editor-policy-notes");
          await page.setViewportSize({ width: 390, height: 844 });
          equal(await scrollsSideways(page), null);
          deepEqual(problems, []);
        } finally {
          await browser.close();
          await server.close();
        }
      }, {
        env: {
          PLUGIN_DEV_ORIGINS: catalogue.origin,
          // The second answers 404: it is shown left out with its reason.
          PLUGIN_CATALOGUES:
            `${catalogue.origin}/catalogue.json,${catalogue.origin}/gone.json`,
        },
      });
    } finally {
      await catalogue.close();
    }
  },
});
