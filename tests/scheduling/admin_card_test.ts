// What Stave's admin shows of the scheduling plugin over HTTP: the post's Schedule card lists the
// live schedules the plugin answers through `schedule-status`, and says so when the plugin cannot
// answer (the editor still opens); Settings draws the plugin's `settings_row` cards, each a manage
// launch of its view; the plugin's pages link back to the entry they were opened for.
import { equal, match, ok } from "node:assert/strict";
import { withSchedulingWorld } from "./world.ts";

Deno.test(
  "the Schedule card reads the entry's live schedules from the plugin, and says when the plugin cannot answer (PEXT-002, SUI-003)",
  () =>
    withSchedulingWorld(async (w) => {
      const { groupId, instances } = await w.entry({
        en: { title: "Winter issue" },
      });
      const editor = `/admin/content/posts/${groupId}?lang=en`;
      const before = await (await w.admin("GET", editor)).text();
      match(before, /Scheduled changes<\/h3><p class="muted">None\.<\/p>/);

      const browser = await w.launch(instances.en);
      const page = await (await browser.get(
        `/installations/${w.installationId}`,
      )).text();
      // The plugin's page links back to this entry through the admin's return route.
      match(
        page,
        new RegExp(
          `href="http://schedules\\.test/admin/plugins/return\\?instance=${instances.en}"`,
        ),
      );
      const due = new Date(w.clock.now().getTime() + 2 * 86_400_000)
        .toISOString().slice(0, 10);
      const made = await browser.post(
        `/installations/${w.installationId}/schedules`,
        {
          kind: "publish",
          locale: "",
          local: `${due}T10:15`,
          timezone: "Europe/Lisbon",
          fold: "later",
        },
      );
      equal(made.status, 303, await made.clone().text());
      await made.body?.cancel();

      const after = await (await w.admin("GET", editor)).text();
      match(after, /<strong>Publish, all languages<\/strong>/);
      match(after, new RegExp(`Local time: ${due} 10:15 Europe/Lisbon`));
      match(after, /Status: pending/);
      // The admin shows the instant as it shows every time: minutes and UTC, not ISO.
      match(after, /Due \(UTC\): \d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC/);

      // Settings draws the plugin's cards, each launching its view.
      const settings = await (await w.admin("GET", "/admin/settings")).text();
      match(settings, /From plugins/);
      ok(settings.includes('name="view" value="calendar"'));
      ok(settings.includes('name="view" value="releases"'));

      // A plugin that cannot answer leaves its reason on the card; the editor still opens.
      await w.scheduler.close();
      const down = await w.admin("GET", editor);
      equal(down.status, 200);
      match(await down.text(), /Not available now:/);
    }),
);
