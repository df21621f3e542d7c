// Upgrades through the routes an administrator uses (`/api/plugins/{id}/upgrade-preview` and
// `/upgrade`, core/plugins/installations.ts): the plugin id is fixed, the reviewed version is
// compared before confirming, and permissions an upgrade adds stay ungranted (spec 1 part 2.1).
import { deepEqual, equal, match, ok } from "node:assert/strict";
import { adminPage, withPluginWorld } from "./world.ts";

const PNG = await Deno.readFile(
  new URL("../../core/sites/demo_media/sunrise.png", import.meta.url),
);

function upload(delegationId: string): FormData {
  const form = new FormData();
  form.append("delegation_id", delegationId);
  form.append(
    "file",
    new File([PNG as Uint8Array<ArrayBuffer>], "sunrise.png"),
  );
  return form;
}

Deno.test("an upgrade whose manifest carries another plugin id is refused manifest_identity_changed and changes nothing (PLG-005)", () =>
  withPluginWorld(async (w) => {
    const id = await w.install();
    const row = () =>
      w.services.db.selectFrom("plugin_installations").selectAll()
        .where("id", "=", id).executeTakeFirstOrThrow();
    const before = await row();
    w.plugin.behaviour.manifest = "other_id";
    w.plugin.behaviour.version = "1.1.0";
    const preview = await w.admin(
      "POST",
      `/api/plugins/${id}/upgrade-preview`,
      {},
    );
    equal(preview.status, 409);
    equal((await preview.json()).error.code, "manifest_identity_changed");
    const upgraded = await w.admin("POST", `/api/plugins/${id}/upgrade`, {
      expected_version: "1.1.0",
    });
    equal(upgraded.status, 409);
    equal((await upgraded.json()).error.code, "manifest_identity_changed");
    deepEqual(await row(), before, "the installation is unchanged");
    equal(before.plugin_id, "com.example.publisher");
    const audit = await w.services.db.selectFrom("audit_entries")
      .select("action").where("action", "=", "plugin.upgrade").execute();
    equal(audit.length, 0, "no upgrade was recorded");
    const context = await (await w.plugin.api(id, "/context")).json();
    equal(context.data.plugin_id, "com.example.publisher");
    equal(context.data.version, "1.0.0");
  }));

Deno.test("permissions an upgrade adds stay ungranted: /context lacks them and a media upload is capability_refused until an administrator grants them (PLG-009, PLG-006)", () =>
  withPluginWorld(async (w) => {
    const id = await w.install();
    const granted = [...w.plugin.behaviour.capabilities];
    const { groupId, instances } = await w.entry({ en: { title: "Hello" } });
    const delegation = await w.delegate(id, instances.en);
    // The new release asks for media:write and no longer for content:propose, and its card
    // now declares a reviewed frame.
    w.plugin.behaviour.version = "1.1.0";
    w.plugin.behaviour.frame = true;
    w.plugin.behaviour.capabilities = [
      ...granted.filter((c) => c !== "content:propose"),
      "media:write",
    ];
    const preview = await w.admin(
      "POST",
      `/api/plugins/${id}/upgrade-preview`,
      {},
    );
    equal(preview.status, 200);
    const diff = (await preview.json()).data;
    equal(diff.from_version, "1.0.0");
    equal(diff.to_version, "1.1.0");
    deepEqual(diff.capabilities_added, ["media:write"]);
    deepEqual(diff.capabilities_removed, ["content:propose"]);
    // The manifest itself is compared too: declarations and the addresses they use.
    deepEqual(diff.declarations_added, []);
    deepEqual(diff.declarations_removed, []);
    deepEqual(diff.declarations_changed, [{
      list: "ui_extensions",
      id: "publish-card",
    }]);
    deepEqual(diff.urls_changed, [{
      path: "ui_extensions.0.frame.url",
      from: null,
      to: `${w.plugin.origin}/frames/card`,
    }]);
    const page = await adminPage(w, `/admin/settings/plugins/${id}`, {
      action: "check-upgrade",
    });
    equal(page.status, 200);
    const html = await page.text();
    match(
      html,
      /Changes the card &quot;publish-card&quot;|Changes the card "publish-card"/,
    );
    match(html, /Adds the address ui_extensions\.0\.frame\.url/);
    // Reviewed as 1.1.0 but the plugin now serves 1.2.0: review again, nothing changes.
    w.plugin.behaviour.version = "1.2.0";
    const stale = await w.admin("POST", `/api/plugins/${id}/upgrade`, {
      expected_version: "1.1.0",
    });
    equal(stale.status, 400);
    equal((await stale.json()).error.code, "invalid_request");
    w.plugin.behaviour.version = "1.1.0";
    const upgraded = await w.admin("POST", `/api/plugins/${id}/upgrade`, {
      expected_version: "1.1.0",
    });
    equal(upgraded.status, 200);
    const installation = (await upgraded.json()).data;
    equal(installation.version, "1.1.0");
    ok(installation.manifest.capabilities.includes("media:write"));
    const expected = granted.filter((c) => c !== "content:propose");
    deepEqual(installation.grant.capabilities, expected);

    const context = (await (await w.plugin.api(id, "/context")).json()).data;
    // PLG-006: name and version are the accepted release's.
    equal(context.version, "1.1.0");
    deepEqual(context.grant.capabilities, expected);
    ok(!context.grant.capabilities.includes("media:write"));
    // PLG-006: a transition after the upgrade is attributed to the accepted release.
    const read = (await (await w.plugin.api(
      id,
      `/content/${instances.en}?delegation_id=${delegation}`,
    )).json()).data;
    const published = await w.plugin.api(
      id,
      `/content/${instances.en}/transitions/published`,
      {
        body: {
          kind: "publish",
          expected_current_version_id: read.workflow.current_version_id,
          expected_workflow_revision: read.workflow.revision,
          delegation_id: delegation,
        },
        key: "publish-1",
      },
    );
    equal((await published.json()).outcome.code, "transition_applied");
    const event = await w.services.db.selectFrom("workflow_events")
      .select("actor").where("group_id", "=", groupId)
      .where("kind", "=", "publish").executeTakeFirstOrThrow();
    const actor = event.actor as Record<string, unknown>;
    equal(actor.installation_id, id);
    equal(actor.version, "1.1.0");

    const refused = await w.plugin.api(id, "/media", {
      body: upload(delegation),
      key: "upload-1",
    });
    equal(refused.status, 403);
    equal((await refused.json()).outcome.code, "capability_refused");
    const files = () =>
      w.services.db.selectFrom("media_files").select("id")
        .where("site_id", "=", w.siteId).execute();
    deepEqual(await files(), [], "nothing was stored");

    // Granted by an administrator's own act, the same upload goes through.
    const grant = await w.admin("POST", `/api/plugins/${id}/grant`, {
      capabilities: [...expected, "media:write"],
      model_ids: [w.modelId],
    });
    equal(grant.status, 200);
    const accepted = await w.plugin.api(id, "/media", {
      body: upload(delegation),
      key: "upload-2",
    });
    equal(accepted.status, 200);
    equal((await accepted.json()).outcome.code, "transition_applied");
    equal((await files()).length, 1);
  }));
