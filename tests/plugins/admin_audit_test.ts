// Administrative acts on an installation go to the admin audit ledger under the acting person
// (spec 1 parts 2.9 and 6; AUD-004).
import { deepEqual, equal } from "node:assert/strict";
import { withPluginWorld } from "./world.ts";

type Json = Record<string, unknown>;

function parsed(value: unknown): Json {
  return (typeof value === "string" ? JSON.parse(value) : value) as Json;
}

Deno.test("install, grant change, manifest acceptance, rotation, disable, enable and uninstall each write one ledger entry by the acting person (AUD-004)", () =>
  withPluginWorld(async (w) => {
    const id = await w.install();
    const act = async (path: string, body: unknown) => {
      const res = await w.admin("POST", `/api/plugins/${id}/${path}`, body);
      equal(res.status, 200, `${path}: ${await res.clone().text()}`);
      await res.body?.cancel();
    };
    await act("grant", {
      capabilities: ["content:read"],
      model_ids: [w.modelId],
    });
    w.plugin.behaviour.version = "1.1.0";
    await act("upgrade", { expected_version: "1.1.0" });
    await act("rotate", { code: await w.plugin.issueCode(id) });
    await act("disable", {});
    await act("enable", {});
    await act("uninstall", {});

    const rows = await w.services.db.selectFrom("audit_entries").selectAll()
      .where("site_id", "=", w.siteId).where("action", "like", "plugin.%")
      .orderBy("created_at").orderBy("id").execute();
    const byAction = new Map<string, Json[]>();
    for (const row of rows) {
      byAction.set(row.action, [...byAction.get(row.action) ?? [], row]);
    }
    for (
      const action of [
        "plugin.install",
        "plugin.grant",
        "plugin.upgrade",
        "plugin.rotate",
        "plugin.disable",
        "plugin.enable",
        "plugin.uninstall",
      ]
    ) {
      const entries = byAction.get(action) ?? [];
      equal(entries.length, 1, `one ${action}`);
      deepEqual(parsed(entries[0].actor), {
        kind: "person",
        person_id: w.adminId,
        email: "admin@plugins.test",
      }, action);
      const target = parsed(entries[0].target);
      equal(target.installation_id, id, action);
      equal(target.plugin_id, "com.example.publisher", action);
    }
    // A refused act is not an act: nothing more is written.
    const before = rows.length;
    const refused = await w.admin("POST", `/api/plugins/${id}/enable`, {});
    equal(refused.status, 409);
    await refused.body?.cancel();
    const after = await w.services.db.selectFrom("audit_entries").select("id")
      .where("site_id", "=", w.siteId).where("action", "like", "plugin.%")
      .execute();
    equal(after.length, before);
  }));
