// Moderation commands a plugin drives keep the service's ordinary checks (spec 1 part 4.1 rule 4):
// removing a library file through `POST /api/plugin/v1/media/{media_id}/remove` is refused
// `media_in_use` exactly where the admin's removal is, and otherwise removes, replays and audits
// as the plugin acting for the delegated person (PAPI-033).
import { deepEqual, equal, match, ok } from "node:assert/strict";
import { createModel } from "../../core/models/store.ts";
import { saveTestEntry } from "../support/entries.ts";
import { adminPage, type PluginWorld, withPluginWorld } from "./world.ts";

const PNG = await Deno.readFile(
  new URL("../../core/sites/demo_media/sunrise.png", import.meta.url),
);

/** Uploads the picture (renamed, so each is its own file) through the plugin; answers its id. */
async function uploaded(
  w: PluginWorld,
  id: string,
  delegation: string,
  name: string,
): Promise<string> {
  const form = new FormData();
  form.append("delegation_id", delegation);
  form.append("on_duplicate", "copy");
  form.append("file", new File([PNG as Uint8Array<ArrayBuffer>], name));
  const res = await w.plugin.api(id, "/media", { body: form, key: name });
  const body = await res.json();
  equal(body.outcome.code, "transition_applied", JSON.stringify(body));
  return body.result.media.id;
}

Deno.test("a plugin-driven removal of a file an entry uses is refused media_in_use like the admin's; an unused file is removed once, audited for the person (PAPI-033)", () =>
  withPluginWorld(async (w) => {
    const made = await createModel(
      { db: w.services.db, clock: w.clock, siteId: w.siteId },
      {
        model: { name: "Stories", slug: "stories" },
        fields: [
          { key: "title", label: "Title", type: "text" },
          {
            key: "cover",
            label: "Cover",
            type: "media",
            config: JSON.stringify({ kinds: ["image"] }),
          },
        ],
      },
    );
    if (!made.ok) throw new Error(`Cannot create the model: ${made.code}`);
    w.plugin.behaviour.capabilities = [
      ...w.plugin.behaviour.capabilities,
      "media:write",
    ];
    const id = await w.install({ model_ids: [w.modelId] });
    const delegation = await w.delegate(id);
    const used = await uploaded(w, id, delegation, "used.png");
    const unused = await uploaded(w, id, delegation, "unused.png");
    // The entry using the file is of a model the plugin is not granted.
    await saveTestEntry({
      db: w.services.db,
      clock: w.clock,
      siteId: w.siteId,
      userId: w.adminId,
      modelId: made.model_id,
    }, { en: { title: "Story", cover: used } });
    const files = async () =>
      (await w.services.db.selectFrom("media_files").select("id")
        .where("site_id", "=", w.siteId).orderBy("id").execute()).map((r) =>
          r.id
        );
    const before = await files();

    // The administrator's own removal is refused...
    const admin = await adminPage(w, "/admin/media", {
      action: "remove",
      id: used,
    });
    equal(admin.status, 409);
    match(await admin.text(), /This file cannot be removed: 1 entry uses/);
    // ...and so is the plugin's, with the same code, nothing removed.
    const remove = (media: string, key: string) =>
      w.plugin.api(id, `/media/${media}/remove`, {
        body: { delegation_id: delegation },
        key,
      });
    const refused = await remove(used, "r1");
    equal(refused.status, 422);
    const answer = await refused.json();
    equal(answer.outcome.code, "transition_refused");
    match(answer.outcome.message, /^media_in_use:/);
    equal(answer.refusal.code, "media_in_use");
    // The using entry is counted, never named: its model is not granted to the plugin.
    deepEqual(answer.refusal.usage.used_by, []);
    equal(answer.refusal.usage.hidden, 1);
    equal(answer.refusal.usage.at_least, 1);
    deepEqual(await files(), before);

    const removed = await remove(unused, "r2");
    equal(removed.status, 200);
    const done = await removed.json();
    equal(done.outcome.code, "transition_applied");
    deepEqual(done.result, { id: unused, storage_cleanup: "complete" });
    deepEqual(await files(), before.filter((f) => f !== unused));
    const replay = await (await remove(unused, "r2")).json();
    equal(replay.outcome.code, "idempotent_replay");
    deepEqual(replay.result, done.result);
    const gone = await remove(unused, "r3");
    equal(gone.status, 404);
    equal((await gone.json()).outcome.code, "content_not_found");

    const audit = await w.services.db.selectFrom("audit_entries").selectAll()
      .where("action", "=", "plugin.media.remove").execute();
    equal(audit.length, 1);
    const actor = (typeof audit[0].actor === "string"
      ? JSON.parse(audit[0].actor)
      : audit[0].actor) as Record<string, unknown>;
    equal(actor.kind, "plugin");
    equal(actor.installation_id, id);
    equal(actor.person_id, w.adminId);
    ok(!JSON.stringify(audit[0]).includes('"r2"'), "never the key itself");
  }));

Deno.test("a plugin-driven removal needs the person's own media:delete permission and the grant's media:write (PAPI-033)", () =>
  withPluginWorld(async (w) => {
    w.plugin.behaviour.capabilities = [
      ...w.plugin.behaviour.capabilities,
      "media:write",
    ];
    const id = await w.install();
    const delegation = await w.delegate(id);
    const media = await uploaded(w, id, delegation, "kept.png");
    // The administrator's role loses media:delete: the person may not, so neither may the plugin.
    const roles = await w.services.db.selectFrom("roles")
      .innerJoin("site_members", "site_members.role_id", "roles.id")
      .select(["roles.id", "roles.permissions"])
      .where("site_members.user_id", "=", w.adminId).execute();
    for (const role of roles) {
      const permissions = (typeof role.permissions === "string"
        ? JSON.parse(role.permissions)
        : role.permissions) as { system: string[] };
      await w.services.db.updateTable("roles").set({
        permissions: JSON.stringify({
          ...permissions,
          system: permissions.system.filter((p) =>
            p !== "media:delete"
          ),
        }),
      }).where("id", "=", role.id).execute();
    }
    const res = await w.plugin.api(id, `/media/${media}/remove`, {
      body: { delegation_id: delegation },
      key: "r1",
    });
    equal(res.status, 403);
    equal((await res.json()).outcome.code, "requester_unauthorized");
    // Without media:write in the grant the route stops at the capability.
    await w.admin("POST", `/api/plugins/${id}/grant`, {
      capabilities: w.plugin.behaviour.capabilities.filter((c) =>
        c !== "media:write"
      ),
      model_ids: [w.modelId],
    });
    const ungranted = await w.plugin.api(id, `/media/${media}/remove`, {
      body: { delegation_id: delegation },
      key: "r2",
    });
    equal(ungranted.status, 403);
    equal((await ungranted.json()).outcome.code, "capability_refused");
    equal(
      (await w.services.db.selectFrom("media_files").select("id")
        .where("id", "=", media).execute()).length,
      1,
    );
  }));
