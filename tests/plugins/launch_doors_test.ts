// The launch doors and the activation hand-off answer by the spec's status table: model_not_granted
// is 403 on each of the three launch routes (admin JSON, the editor's card form, the Management
// API), and a hand-off that is unreachable or not answered in time is activation_refused like a
// refused one, with a token that never works (spec 1 parts 3.1, 5.5, 5.7 and 7).
import { deepEqual, equal, ok } from "node:assert/strict";
import { createModel } from "../../core/models/store.ts";
import {
  adminPage,
  manager,
  type PluginWorld,
  withPluginWorld,
} from "./world.ts";

/** Launch codes held in KV (each stored by its digest with its purpose). */
async function launchCodes(w: PluginWorld): Promise<number> {
  let n = 0;
  for await (const entry of w.services.kv.list({ prefix: [] })) {
    const purpose = (entry.value as { purpose?: unknown } | null)?.purpose;
    if (typeof purpose === "string" && purpose.startsWith("launch:")) n++;
  }
  return n;
}

async function outcomeCode(res: Response): Promise<string> {
  return (await res.json()).outcome?.code;
}

Deno.test("model_not_granted answers 403 on every launch route and mints nothing (LAU-009)", () =>
  withPluginWorld(async (w) => {
    const id = await w.install();
    const { instances } = await w.entry({ en: { title: "Ungranted" } });
    // Granted, the launch mints one code (what the refusals below must not do).
    const granted = await w.admin("POST", `/api/plugins/${id}/launch`, {
      kind: "content_action",
      action: "publish-later",
      instance_id: instances.en,
    });
    equal(granted.status, 201);
    await granted.body?.cancel();
    equal(await launchCodes(w), 1);
    // The plugin keeps its capabilities but loses the entry's model.
    const narrowed = await w.admin("POST", `/api/plugins/${id}/grant`, {
      capabilities: w.plugin.behaviour.capabilities,
      model_ids: [],
    });
    equal(narrowed.status, 200);
    const minted = await launchCodes(w);

    const json = await w.admin("POST", `/api/plugins/${id}/launch`, {
      kind: "content_action",
      action: "publish-later",
      instance_id: instances.en,
    });
    equal(json.status, 403);
    equal((await json.json()).error.code, "model_not_granted");

    const form = await adminPage(w, "/admin/plugins/launch", {
      installation_id: id,
      action: "publish-later",
      instance_id: instances.en,
    });
    equal(form.status, 403);
    equal(form.headers.get("location"), null);
    ok((await form.text()).includes("model_not_granted"));

    const call = await manager(w, ["content:read", "plugins:use"]);
    const content = await call(
      "POST",
      `/plugins/${id}/content-actions/publish-later/entries/${instances.en}/launch`,
      {},
    );
    equal(content.status, 403, JSON.stringify(content.body));
    equal(
      (content.body.error as { code: string }).code,
      "model_not_granted",
    );
    equal(await launchCodes(w), minted, "no launch code was minted");
    // A manage view launched by a credential whose models are none of the granted ones.
    const other = await createModel(
      { db: w.services.db, clock: w.clock, siteId: w.siteId },
      {
        model: { name: "Other", slug: "other" },
        fields: [{ key: "title", label: "Title", type: "text" }],
      },
    );
    if (!other.ok) throw new Error(`Cannot create the model: ${other.code}`);
    equal(
      (await w.admin("POST", `/api/plugins/${id}/grant`, {
        capabilities: w.plugin.behaviour.capabilities,
        model_ids: [w.modelId],
      })).status,
      200,
    );
    const minted2 = await launchCodes(w);
    const outside = await manager(w, ["content:read", "plugins:use"], {
      models: [other.model_id],
    });
    const view = await outside(
      "POST",
      `/plugins/${id}/manage-views/calendar/launch`,
      {},
    );
    equal(view.status, 403, JSON.stringify(view.body));
    equal((view.body.error as { code: string }).code, "model_not_granted");
    equal(await launchCodes(w), minted2, "no launch code was minted");
    deepEqual(w.plugin.launchRequests, []);
  }));

Deno.test("a hand-off answered too late is activation_refused: pending, no digest, and the token handed over never works (PLG-004)", () =>
  withPluginWorld(async (w) => {
    w.plugin.behaviour.activation = "late";
    const res = await w.admin("POST", "/api/plugins", {
      manifest_url: w.plugin.manifestUrl,
      activation_code: await w.plugin.issueCode(),
      grant: { capabilities: ["content:read"], model_ids: [] },
    });
    equal(res.status, 502);
    equal((await res.json()).error.code, "activation_refused");
    const row = await w.services.db.selectFrom("plugin_installations")
      .selectAll().executeTakeFirstOrThrow();
    equal(row.state, "pending");
    equal(row.token_hash, null);
    // The plugin kept the token it was handed before it stopped answering.
    const late = w.plugin.installations.get(row.id)!;
    ok(late.token.startsWith("svp_"));
    const refused = await w.plugin.api(row.id, "/context");
    equal(refused.status, 401);
    equal(await outcomeCode(refused), "plugin_unauthorized");

    // A later hand-off activates with a new token; the late one still never works.
    w.plugin.installations.delete(row.id);
    w.plugin.behaviour.activation = "ok";
    const retried = await w.admin("POST", `/api/plugins/${row.id}/activate`, {
      code: await w.plugin.issueCode(),
    });
    equal(retried.status, 200);
    const fresh = w.plugin.installations.get(row.id)!;
    equal((await w.plugin.api(row.id, "/context")).status, 200);
    w.plugin.installations.set(row.id, late);
    const stale = await w.plugin.api(row.id, "/context");
    equal(stale.status, 401);
    equal(await outcomeCode(stale), "plugin_unauthorized");
    w.plugin.installations.set(row.id, fresh);
  }, { timeoutMs: 500 }));

/** Stops the world's plugin server: nothing listens on its origin any more. */
async function pluginGone(w: PluginWorld): Promise<void> {
  await w.plugin.close();
  w.plugin.close = () => Promise.resolve();
}

Deno.test("an unreachable activation hand-off is activation_refused and the installation stays pending with no digest (PLG-004)", () =>
  withPluginWorld(async (w) => {
    w.plugin.behaviour.activation = "refuse";
    const first = await w.admin("POST", "/api/plugins", {
      manifest_url: w.plugin.manifestUrl,
      activation_code: await w.plugin.issueCode(),
      grant: { capabilities: ["content:read"], model_ids: [] },
    });
    equal((await first.json()).error.code, "activation_refused");
    const row = await w.services.db.selectFrom("plugin_installations")
      .selectAll().executeTakeFirstOrThrow();
    const code = await w.plugin.issueCode();
    await pluginGone(w);
    const res = await w.admin("POST", `/api/plugins/${row.id}/activate`, {
      code,
    });
    equal(res.status, 502);
    equal((await res.json()).error.code, "activation_refused");
    deepEqual(
      await w.services.db.selectFrom("plugin_installations").selectAll()
        .executeTakeFirstOrThrow(),
      row,
      "still pending with no token digest",
    );
    equal(row.state, "pending");
    equal(row.token_hash, null);
  }));

Deno.test("an unreachable rotation hand-off is activation_refused and the old token keeps working (PLG-004, PLG-027)", () =>
  withPluginWorld(async (w) => {
    const id = await w.install();
    const token = w.plugin.installations.get(id)!.token;
    const code = await w.plugin.issueCode(id);
    const before = await w.services.db.selectFrom("plugin_installations")
      .selectAll().where("id", "=", id).executeTakeFirstOrThrow();
    await pluginGone(w);
    const rotated = await w.admin("POST", `/api/plugins/${id}/rotate`, {
      code,
    });
    equal(rotated.status, 502);
    equal((await rotated.json()).error.code, "activation_refused");
    deepEqual(
      await w.services.db.selectFrom("plugin_installations").selectAll()
        .where("id", "=", id).executeTakeFirstOrThrow(),
      before,
      "a refused rotation changes nothing",
    );
    equal(w.plugin.installations.get(id)!.token, token);
    equal((await w.plugin.api(id, "/context")).status, 200);
  }));
