// Plugin content policies in the editors' admin, against the test plugin as a real HTTP server:
// the entry editor's save and workflow actions, a version restore and the page editor run the
// same policy checks as the Management API (`via: session`); warnings reach the next page, a
// refusal keeps what was typed; Settings → Plugins sets a policy's mode (PEXT-016, PEXT-020,
// PEXT-022, AUD-012).
import { deepEqual, equal, match, ok } from "node:assert/strict";
import type { ExamplePolicy } from "../../plugins/testing/plugin.ts";
import {
  adminPage as page,
  type PluginWorld,
  withPluginWorld,
} from "./world.ts";

async function setUp(w: PluginWorld, policies: ExamplePolicy[]) {
  w.plugin.behaviour.policies = policies;
  const installationId = await w.install();
  const { groupId, instances } = await w.entry({ en: { title: "Hello" } });
  return { installationId, groupId, instanceId: instances.en };
}

async function pins(w: PluginWorld, instanceId: string) {
  const row = await w.services.db.selectFrom("entries")
    .select(["current_version_id", "slug"])
    .where("id", "=", instanceId).executeTakeFirstOrThrow();
  return { version: row.current_version_id!, slug: row.slug };
}

async function title(w: PluginWorld, instanceId: string) {
  const row = await w.services.db.selectFrom("entries")
    .innerJoin("entry_versions as v", "v.id", "entries.current_version_id")
    .select("v.fields").where("entries.id", "=", instanceId)
    .executeTakeFirstOrThrow();
  return (row.fields as Record<string, unknown>).title;
}

async function saveForm(
  w: PluginWorld,
  set: Awaited<ReturnType<typeof setUp>>,
  text: string,
) {
  const { version, slug } = await pins(w, set.instanceId);
  return await page(w, `/admin/content/posts/${set.groupId}?lang=en`, {
    action: "save",
    lang: "en",
    slug,
    expected_current_version_id: version,
    "f.title": text,
  });
}

Deno.test("the entry editor's save runs save policies as the person: a warning is shown on the next page, a refusal keeps the typed text (PEXT-016, PEXT-020, PEXT-022)", () =>
  withPluginWorld(async (w) => {
    const set = await setUp(w, [{
      id: "tone",
      kind: "save",
      mode: "blocking",
      answer: (check) =>
        String((check.changed_fields as Record<string, unknown>).title)
            .includes("lorem")
          ? {
            decision: "refuse",
            code: "placeholder",
            message: "Replace the placeholder text",
            fields: ["title"],
          }
          : {
            decision: "warning",
            message: "The title shouts",
            fields: ["title"],
          },
    }]);
    const saved = await saveForm(w, set, "HELLO");
    equal(saved.status, 303, await saved.clone().text());
    const next = saved.headers.get("location")!;
    match(next, /done=saved&notes=[0-9a-f-]{36}$/);
    deepEqual(w.plugin.policyChecks.at(-1)!.caller, { via: "session" });
    const shown = await (await page(w, next)).text();
    match(shown, /Plugin policies said:/);
    match(
      shown,
      /Example publisher \(Policy tone\): The title shouts \(title\)/,
    );
    // The note is shown once.
    ok(!(await (await page(w, next)).text()).includes("The title shouts"));

    const refused = await saveForm(w, set, "lorem ipsum");
    equal(refused.status, 422);
    const html = await refused.text();
    match(
      html,
      /Not saved: Example publisher \(Policy tone\) says: Replace the placeholder text/,
    );
    match(html, /value="lorem ipsum"/);
    equal(await title(w, set.instanceId), "HELLO");
  }));

Deno.test("the editor's publish and a version restore run their policies; a refusal says which plugin and writes nothing (PEXT-016, PEXT-020)", () =>
  withPluginWorld(async (w) => {
    const set = await setUp(w, [
      {
        id: "ready",
        kind: "transition",
        mode: "blocking",
        answer: { decision: "refuse", code: "not_ready", message: "Not yet" },
      },
      {
        id: "restore-tag",
        kind: "restore",
        mode: "blocking",
        answer: { decision: "transform", values: { title: "Restored" } },
      },
    ]);
    const first = await pins(w, set.instanceId);
    equal((await saveForm(w, set, "Second")).status, 303);
    const group = await w.services.db.selectFrom("entry_groups")
      .select("revision").where("id", "=", set.groupId)
      .executeTakeFirstOrThrow();
    const now = await pins(w, set.instanceId);
    const publish = await page(
      w,
      `/admin/content/posts/${set.groupId}?lang=en`,
      {
        action: "publish",
        lang: "en",
        revision: String(group.revision),
        expected_current_version_id: now.version,
      },
    );
    equal(publish.status, 422);
    match(
      await publish.text(),
      /Not saved: Example publisher \(Policy ready\) says: Not yet/,
    );
    const published = await w.services.db.selectFrom("entries")
      .select("published_version_id").where("id", "=", set.instanceId)
      .executeTakeFirstOrThrow();
    equal(published.published_version_id, null);

    const restored = await page(
      w,
      `/admin/content/posts/${set.groupId}/versions?lang=en`,
      {
        lang: "en",
        version_id: first.version,
        expected_current_version_id: now.version,
      },
    );
    equal(restored.status, 303, await restored.clone().text());
    const next = restored.headers.get("location")!;
    match(next, /done=restored_version&notes=/);
    match(
      await (await page(w, next)).text(),
      /Example publisher \(Policy restore-tag\) changed title/,
    );
    equal(await title(w, set.instanceId), "Restored");
  }));

Deno.test("Settings → Plugins lists the content policies and sets a mode, audited as plugin.policy.mode (AUD-012)", () =>
  withPluginWorld(async (w) => {
    const set = await setUp(w, [{
      id: "gate",
      kind: "save",
      mode: "blocking",
      answer: "unavailable",
    }]);
    const path = `/admin/settings/plugins/${set.installationId}`;
    const html = await (await page(w, path)).text();
    match(html, /<h2 id="policies-heading">Content policies<\/h2>/);
    match(html, /<label for="policy-mode-gate">Mode<\/label>/);
    match(html, /The plugin declares it blocking\./);
    equal((await saveForm(w, set, "Blocked")).status, 503);
    const changed = await page(w, path, {
      action: "policy-mode",
      policy: "gate",
      mode: "advisory",
    });
    equal(changed.status, 303);
    match(
      await (await page(w, path)).text(),
      /<option value="advisory" selected>/,
    );
    const saved = await saveForm(w, set, "Through");
    equal(saved.status, 303);
    match(
      await (await page(w, saved.headers.get("location")!)).text(),
      /Policy gate\) did not answer \(plugin_unavailable\); saved without it/,
    );
    const bad = await page(w, path, {
      action: "policy-mode",
      policy: "gate",
      mode: "sometimes",
    });
    equal(bad.status, 400);
    const audits = await w.services.db.selectFrom("audit_entries")
      .select("details").where("site_id", "=", w.siteId)
      .where("action", "=", "plugin.policy.mode").execute();
    equal(audits.length, 1);
    match(await (await page(w, path)).text(), /Policy mode changed/);
  }));

Deno.test("a list's bulk publish runs transition policies for each entry: a refused one says why, the others go through with their warnings (PEXT-016, PEXT-020)", () =>
  withPluginWorld(async (w) => {
    const set = await setUp(w, [{
      id: "ready",
      kind: "transition",
      mode: "blocking",
      answer: (check) =>
        check.entry_id === refusedGroup
          ? { decision: "refuse", code: "not_ready", message: "Not yet" }
          : { decision: "warning", message: "Check the links" },
    }]);
    const other = await w.entry({ en: { title: "Other" } });
    const refusedGroup = set.groupId;
    const selection = [];
    for (const groupId of [set.groupId, other.groupId]) {
      const group = await w.services.db.selectFrom("entry_groups")
        .select("revision").where("id", "=", groupId)
        .executeTakeFirstOrThrow();
      selection.push(`${groupId}:${group.revision}`);
    }
    const body = new URLSearchParams({ action: "publish", lang: "en" });
    for (const s of selection) body.append("select", s);
    const res = await page(w, "/admin/content/posts", body);
    equal(res.status, 200);
    const html = await res.text();
    match(
      html,
      /Not saved: Example publisher \(Policy ready\) says: Not yet/,
    );
    match(html, /Done\. Example publisher \(Policy ready\): Check the links/);
    const published = await w.services.db.selectFrom("entries")
      .select(["group_id", "published_version_id"])
      .where("group_id", "in", [set.groupId, other.groupId]).execute();
    deepEqual(
      Object.fromEntries(
        published.map((p) => [p.group_id, p.published_version_id !== null]),
      ),
      { [set.groupId]: false, [other.groupId]: true },
    );
  }));
