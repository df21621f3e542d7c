// Settings → Plugins: install from a manifest URL after a review of what it asks for, change the
// grant, check an upgrade, disable, enable, uninstall with a confirmation, and the audit trail
// (spec 1 parts 2.9, 3.1; PLG rows), all as forms that work without JavaScript.
import { equal, match, ok } from "node:assert/strict";
import { type PluginWorld, SITE_HOST, withPluginWorld } from "./world.ts";

const CSRF = "c".repeat(43);

function form(
  w: PluginWorld,
  path: string,
  fields: Record<string, string | string[]>,
  session = w.session,
): Promise<Response> {
  const body = new URLSearchParams();
  body.set("_csrf", CSRF);
  for (const [k, v] of Object.entries(fields)) {
    for (const one of Array.isArray(v) ? v : [v]) body.append(k, one);
  }
  return Promise.resolve(w.app.request(`http://${SITE_HOST}${path}`, {
    method: "POST",
    headers: {
      host: SITE_HOST,
      cookie: `stave_session=${session}; stave_csrf=${CSRF}`,
      origin: `http://${SITE_HOST}`,
      "content-type": "application/x-www-form-urlencoded",
      accept: "text/html",
    },
    body,
  }));
}

function get(w: PluginWorld, path: string, session = w.session) {
  return Promise.resolve(w.app.request(`http://${SITE_HOST}${path}`, {
    headers: {
      host: SITE_HOST,
      cookie: `stave_session=${session}; stave_csrf=${CSRF}`,
      accept: "text/html",
    },
  }));
}

async function installations(w: PluginWorld) {
  return await w.services.db.selectFrom("plugin_installations").selectAll()
    .where("site_id", "=", w.siteId).execute();
}

Deno.test("Settings → Plugins installs a plugin after a review of its capabilities and models, in words (PLG-001)", () =>
  withPluginWorld(async (w) => {
    const empty = await get(w, "/admin/settings/plugins");
    equal(empty.status, 200);
    match(await empty.text(), /No plugin is installed on this site/);
    const review = await form(w, "/admin/settings/plugins", {
      action: "review",
      manifest_url: w.plugin.manifestUrl,
    });
    equal(review.status, 200);
    const html = await review.text();
    match(html, /Install Example publisher 1\.0\.0/);
    match(html, /Publish entries for a person/);
    match(html, /name="capability" value="workflow:publish" checked/);
    match(html, /name="model" value="[0-9a-f-]{36}"/);
    // Without `events` the plugin hears of every kind of change.
    match(
      html,
      /Stave tells it when content, media or models it may read change/,
    );
    w.plugin.behaviour.subscribes = [];
    match(
      await (await form(w, "/admin/settings/plugins", {
        action: "review",
        manifest_url: w.plugin.manifestUrl,
      })).text(),
      /Stave does not tell it when anything changes/,
    );
    w.plugin.behaviour.subscribes = undefined;
    equal((await installations(w)).length, 0, "a review installs nothing");

    // A wrong activation code is refused in words and keeps what was chosen.
    const wrong = await form(w, "/admin/settings/plugins", {
      action: "install",
      manifest_url: w.plugin.manifestUrl,
      activation_code: "not-the-code",
      capability: ["content:read", "workflow:read"],
      model: w.modelId,
    });
    equal(wrong.status, 422);
    const wrongHtml = await wrong.text();
    match(wrongHtml, /role="alert"/);
    match(wrongHtml, new RegExp(`name="model" value="${w.modelId}" checked`));
    equal(
      (await installations(w)).filter((i) => i.state === "active").length,
      0,
    );

    // The failed hand-off leaves the installation pending, to activate with a new code.
    const [pending] = await installations(w);
    equal(pending.state, "pending");
    match(wrongHtml, new RegExp(`/admin/settings/plugins/${pending.id}`));
    const pendingPage = await (await get(
      w,
      `/admin/settings/plugins/${pending.id}`,
    )).text();
    match(pendingPage, /has not accepted its token yet/);
    const code = await w.plugin.issueCode();
    const activated = await form(w, `/admin/settings/plugins/${pending.id}`, {
      action: "activate",
      code,
    });
    equal(activated.status, 303);
    const [row] = (await installations(w)).filter((i) => i.state === "active");
    ok(row);
    equal(row.id, pending.id);
    const detail = await (await get(w, `/admin/settings/plugins/${row.id}`))
      .text();
    match(detail, /Active/);
    match(detail, /Installed/);
    match(detail, /Activated/);
    match(
      detail,
      /<dt>Notifications<\/dt><dd>Stave tells it when content, media or models it may read change/,
    );
    ok(!detail.includes(code), "the activation code is never shown again");
    const list = await (await get(w, "/admin/settings/plugins")).text();
    match(list, /Example publisher/);
    match(list, /2 capabilities; Posts/);
  }));

Deno.test("an installation's page narrows the grant, checks an upgrade, disables, enables and uninstalls with a confirmation", () =>
  withPluginWorld(async (w) => {
    const id = await w.install();
    const path = `/admin/settings/plugins/${id}`;
    const narrowed = await form(w, path, {
      action: "grant",
      capability: ["content:read"],
    });
    equal(narrowed.status, 303);
    const [afterGrant] = await installations(w);
    equal(JSON.stringify(afterGrant.grant_capabilities), '["content:read"]');
    equal(JSON.stringify(afterGrant.grant_model_ids), "[]");

    w.plugin.behaviour.version = "1.1.0";
    w.plugin.behaviour.capabilities = [
      ...w.plugin.behaviour.capabilities,
      "media:read",
    ];
    const diff = await form(w, path, { action: "check-upgrade" });
    equal(diff.status, 200);
    const diffHtml = await diff.text();
    match(diffHtml, /1\.0\.0 → 1\.1\.0/);
    match(diffHtml, /<code>media:read<\/code> — Read the media library/);
    equal(
      (await form(w, path, {
        action: "upgrade",
        expected_version: "1.1.0",
      })).status,
      303,
    );
    equal((await installations(w))[0].version, "1.1.0");

    equal((await form(w, path, { action: "disable" })).status, 303);
    equal((await installations(w))[0].state, "disabled");
    equal((await form(w, path, { action: "enable" })).status, 303);
    equal((await installations(w))[0].state, "active");
    const unconfirmed = await form(w, path, { action: "uninstall" });
    equal(unconfirmed.status, 400);
    equal((await installations(w))[0].state, "active");
    equal(
      (await form(w, path, { action: "uninstall", confirm: "yes" })).status,
      303,
    );
    equal((await installations(w))[0].state, "revoked");
    const trail = await (await get(w, path)).text();
    for (
      const words of [
        "Installed",
        "Grant changed",
        "Upgraded",
        "Disabled",
        "Enabled",
        "Uninstalled",
      ]
    ) {
      match(trail, new RegExp(`<td>${words}</td>`), words);
    }
    match(trail, /admin@plugins\.test/);
  }));

Deno.test("Settings → Plugins refuses a person without site:plugins, in words", () =>
  withPluginWorld(async (w) => {
    const editor = await w.services.db.selectFrom("users").select("id")
      .executeTakeFirstOrThrow();
    await w.services.db.updateTable("roles").set({
      permissions: JSON.stringify({ models: { "*": ["read"] }, system: [] }),
    }).where("site_id", "=", w.siteId).execute();
    const res = await get(
      w,
      "/admin/settings/plugins",
      await w.sessionFor(editor.id),
    );
    equal(res.status, 403);
    match(await res.text(), /site:plugins/);
  }));

Deno.test("The entry editor shows a granted plugin's card, and its button launches the plugin with no referrer (LAU-001, PLG-021)", () =>
  withPluginWorld(async (w) => {
    const { groupId, instances } = await w.entry({ en: { title: "Hello" } });
    const editorPath = `/admin/content/posts/${groupId}?lang=en`;

    // Without an installation the sidebar has no card.
    const before = await (await get(w, editorPath)).text();
    equal(before.includes("plugin-card"), false);

    const installationId = await w.install();
    const html = await (await get(w, editorPath)).text();
    match(html, /class="card plugin-card"/);
    match(html, /Choose a time to publish this entry\./);
    match(
      html,
      new RegExp(`name="instance_id" value="${instances.en}"`),
    );

    const launched = await form(w, "/admin/plugins/launch", {
      installation_id: installationId,
      action: "publish-later",
      instance_id: instances.en,
    });
    equal(launched.status, 303);
    equal(launched.headers.get("referrer-policy"), "no-referrer");
    const location = launched.headers.get("location") ?? "";
    ok(location.startsWith(w.plugin.origin), location);
    const stored = await w.services.db.selectFrom("plugin_installations")
      .select("state").where("id", "=", installationId).executeTakeFirst();
    equal(stored?.state, "active");

    // LAU-010: a model outside the grant gets no card (no plugin action) and the launch is refused.
    const narrowed = await w.admin(
      "POST",
      `/api/plugins/${installationId}/grant`,
      { capabilities: w.plugin.behaviour.capabilities, model_ids: [] },
    );
    equal(narrowed.status, 200, await narrowed.text());
    equal(
      (await (await get(w, editorPath)).text()).includes("plugin-card"),
      false,
    );
    const ungranted = await form(w, "/admin/plugins/launch", {
      installation_id: installationId,
      action: "publish-later",
      instance_id: instances.en,
    });
    equal(ungranted.status, 403); // LAU-009: model_not_granted, as on every launch route
    await ungranted.body?.cancel();
  }));
