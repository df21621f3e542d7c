// The admin's operation runner (/admin/plugins/operations) with a real plugin server: site and
// entry operations listed by what the person may run, a form per declared input, a run as the
// person with its result blocks, refusals beside the field, destructive runs confirmed first
// (spec 1 part 2.5; spec 2 part 2.5; SOP, MPL-009, AUD rows).
import { equal, match, ok } from "node:assert/strict";
import { adminPage as page, withPluginWorld } from "./world.ts";

Deno.test("site operations: listed for a person with site:plugins, run as that person, result blocks shown, audited (SOP, AUD)", () =>
  withPluginWorld(async (w) => {
    const id = await w.install();
    const list = await page(w, "/admin/plugins/operations");
    equal(list.status, 200);
    const html = await list.text();
    match(html, /<h1[^>]*>Site operations<\/h1>/);
    match(html, /Site report/);
    equal(/Count words/.test(html), false, "entry operations need an entry");
    const ran = await page(w, "/admin/plugins/operations", {
      installation_id: id,
      operation: "site-report",
    });
    equal(ran.status, 200);
    const result = await ran.text();
    match(result, /<p>Ran site-report<\/p>/);
    match(result, /<code>exchange\.json<\/code>/);
    match(result, /Site report ran\./);
    const envelope = w.plugin.invocations.at(-1)!;
    equal(envelope.installation_id, id);
    const audit = await w.services.db.selectFrom("audit_entries")
      .select(["action", "details"]).where("site_id", "=", w.siteId)
      .where("action", "=", "plugin.operation.run").execute();
    equal(audit.length, 1);
    match(JSON.stringify(audit[0].details), /session/);
  }));

Deno.test("entry operations: the editor links the runner; input is checked by the declaration, refusals beside the field; a destructive run is confirmed first (MPL-009)", () =>
  withPluginWorld(async (w) => {
    const id = await w.install();
    const { groupId, instances } = await w.entry({ en: { title: "Hello" } });
    const editor = await (await page(
      w,
      `/admin/content/posts/${groupId}?lang=en`,
    )).text();
    match(editor, /Plugin operations/);
    match(
      editor,
      new RegExp(`href="/admin/plugins/operations\\?instance=${instances.en}"`),
    );
    const url = `/admin/plugins/operations?instance=${instances.en}`;
    const html = await (await page(w, url)).text();
    match(html, /Operations on “Hello” \(en\)/);
    match(html, /Count words/);
    equal(/Site report/.test(html), false);
    match(html, /<label for="op-[^"]+-note">Note/);

    // Note is declared with max_length 20: 21 characters are refused beside the field.
    const refused = await page(w, url, {
      installation_id: id,
      operation: "word-count",
      "in.note": "x".repeat(21),
      "in.mode": "fast",
    });
    equal(refused.status, 400);
    const refusedHtml = await refused.text();
    match(refusedHtml, /input_invalid/);
    match(
      refusedHtml,
      /class="field-error" id="op-[^"]+-note-error">at most 20 characters/,
    );
    match(refusedHtml, new RegExp(`value="${"x".repeat(21)}"`));
    const before = w.plugin.invocations.length;

    const run = await page(w, url, {
      installation_id: id,
      operation: "word-count",
      "in.note": "x".repeat(20),
      "in.mode": "full",
    });
    equal(run.status, 200);
    match(await run.text(), /Ran word-count/);
    equal(w.plugin.invocations.length, before + 1);

    // A destructive operation is not sent until the person confirms it.
    const unconfirmed = await page(w, url, {
      installation_id: id,
      operation: "archive",
    });
    equal(unconfirmed.status, 422);
    match(await unconfirmed.text(), /tick the box to confirm/);
    equal(w.plugin.invocations.length, before + 1, "nothing was sent");
    const confirmed = await page(w, url, {
      installation_id: id,
      operation: "archive",
      confirm: "1",
    });
    equal(confirmed.status, 200);
    match(await confirmed.text(), /Ran archive/);

    // The plugin's own refusal is shown by name.
    w.plugin.behaviour.operation = "refuse";
    const pluginRefused = await page(w, url, {
      installation_id: id,
      operation: "word-count",
    });
    ok(pluginRefused.status >= 400);
    match(
      await pluginRefused.text(),
      /Nothing to count in this entry|plugin_refused/,
    );

    // An operation of another plugin or one not offered here is 404.
    const unknown = await page(w, url, {
      installation_id: id,
      operation: "site-report",
    });
    equal(unknown.status, 404);
  }));

Deno.test("a person without site:plugins sees no site operations, and an entry they cannot read is 404 (SOP)", () =>
  withPluginWorld(async (w) => {
    await w.install();
    const { instances } = await w.entry({ en: { title: "Hello" } });
    const member = await w.services.db.selectFrom("site_members")
      .select("role_id").where("user_id", "=", w.adminId)
      .where("site_id", "=", w.siteId).executeTakeFirstOrThrow();
    await w.services.db.updateTable("roles").set({
      permissions: JSON.stringify({ models: {}, system: [] }),
    }).where("id", "=", member.role_id).execute();
    const html = await (await page(w, "/admin/plugins/operations")).text();
    match(html, /No plugin offers an operation you may run here/);
    const entry = await page(
      w,
      `/admin/plugins/operations?instance=${instances.en}`,
    );
    equal(entry.status, 404);
  }));
