// Moderation commands a plugin drives keep the service's ordinary checks (spec 1 part 4.1 rule 4):
// removing a library file through `POST /api/plugin/v1/media/{media_id}/remove` is refused
// `media_in_use` exactly where the admin's removal is, and otherwise removes, replays and audits
// as the plugin acting for the delegated person; a Trash restore through
// `POST /api/plugin/v1/content/{instance_id}/restore` keeps the lifecycle's checks (PAPI-033).
import { deepEqual, equal, match, ok } from "node:assert/strict";
import { personActor } from "../../core/access/actor.ts";
import { modelValidator, trashEntry } from "../../core/entries/mod.ts";
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

/** The administrator's role without one model permission (for every model). */
async function withoutModelPermission(w: PluginWorld, permission: string) {
  const roles = await w.services.db.selectFrom("roles")
    .innerJoin("site_members", "site_members.role_id", "roles.id")
    .select(["roles.id", "roles.permissions"])
    .where("site_members.user_id", "=", w.adminId).execute();
  for (const role of roles) {
    const permissions = (typeof role.permissions === "string"
      ? JSON.parse(role.permissions)
      : role.permissions) as { models: Record<string, string[]> };
    const models = Object.fromEntries(
      Object.entries(permissions.models).map((
        [model, held],
      ) => [
        model,
        held.filter((p) =>
          p !== permission
        ),
      ]),
    );
    await w.services.db.updateTable("roles").set({
      permissions: JSON.stringify({ ...permissions, models }),
    }).where("id", "=", role.id).execute();
  }
}

Deno.test("a plugin-driven Trash restore keeps the lifecycle's checks: Trash state, revision pin, the person's restore permission and the grant's content:delete (PAPI-033)", () =>
  withPluginWorld(async (w) => {
    w.plugin.behaviour.capabilities = [
      ...w.plugin.behaviour.capabilities,
      "content:delete",
    ];
    const id = await w.install();
    const { groupId, instances } = await w.entry({ en: { title: "Binned" } });
    const delegation = await w.delegate(id, instances.en);
    const group = () =>
      w.services.db.selectFrom("entry_groups")
        .select(["revision", "trashed_at"]).where("id", "=", groupId)
        .executeTakeFirstOrThrow();
    const restore = (revision: number, key: string) =>
      w.plugin.api(id, `/content/${instances.en}/restore`, {
        body: {
          delegation_id: delegation,
          expected_workflow_revision: revision,
        },
        key,
      });
    // Not in Trash: nothing to restore.
    const live = await restore((await group()).revision, "r0");
    equal(live.status, 409);
    equal((await live.json()).outcome.code, "transition_unavailable");

    const trashed = await trashEntry({
      db: w.services.db,
      clock: w.clock,
      siteId: w.siteId,
      actor: personActor(w.adminId),
      validate: modelValidator(),
    }, { group_id: groupId });
    ok(trashed.ok);
    const inTrash = await group();
    ok(inTrash.trashed_at !== null);

    const stale = await restore(inTrash.revision - 1, "r1");
    equal(stale.status, 409);
    equal((await stale.json()).outcome.code, "workflow_conflict");
    deepEqual(await group(), inTrash);

    // The person loses the restore permission: refused as their own restore would be.
    await withoutModelPermission(w, "restore");
    const denied = await restore(inTrash.revision, "r2");
    equal(denied.status, 403);
    equal((await denied.json()).outcome.code, "requester_unauthorized");
    deepEqual(await group(), inTrash);

    // Without content:delete in the grant the route stops at the capability.
    const narrowed = await w.admin("POST", `/api/plugins/${id}/grant`, {
      capabilities: w.plugin.behaviour.capabilities.filter((c) =>
        c !== "content:delete"
      ),
      model_ids: [w.modelId],
    });
    equal(narrowed.status, 200);
    const ungranted = await restore(inTrash.revision, "r3");
    equal(ungranted.status, 403);
    equal((await ungranted.json()).outcome.code, "capability_refused");
    deepEqual(await group(), inTrash);
  }));

Deno.test("a plugin-driven Trash restore by a person who may restore brings the entry back once, attributed to the plugin and the person (PAPI-033)", () =>
  withPluginWorld(async (w) => {
    w.plugin.behaviour.capabilities = [
      ...w.plugin.behaviour.capabilities,
      "content:delete",
    ];
    const id = await w.install();
    const { groupId, instances } = await w.entry({ en: { title: "Binned" } });
    const delegation = await w.delegate(id, instances.en);
    ok(
      (await trashEntry({
        db: w.services.db,
        clock: w.clock,
        siteId: w.siteId,
        actor: personActor(w.adminId),
        validate: modelValidator(),
      }, { group_id: groupId })).ok,
    );
    const { revision } = await w.services.db.selectFrom("entry_groups")
      .select("revision").where("id", "=", groupId).executeTakeFirstOrThrow();
    const body = {
      delegation_id: delegation,
      expected_workflow_revision: revision,
    };
    const first = await w.plugin.api(id, `/content/${instances.en}/restore`, {
      body,
      key: "restore-1",
    });
    equal(first.status, 200);
    const applied = await first.json();
    equal(applied.outcome.code, "transition_applied");
    equal(applied.result.state, "draft");
    equal(applied.result.revision, revision + 1);
    const replay = await (await w.plugin.api(
      id,
      `/content/${instances.en}/restore`,
      { body, key: "restore-1" },
    )).json();
    equal(replay.outcome.code, "idempotent_replay");
    deepEqual(replay.result, applied.result);
    const after = await w.services.db.selectFrom("entry_groups")
      .select(["trashed_at", "revision"]).where("id", "=", groupId)
      .executeTakeFirstOrThrow();
    equal(after.trashed_at, null);
    equal(after.revision, revision + 1);
    const events = await w.services.db.selectFrom("workflow_events")
      .select("actor").where("group_id", "=", groupId)
      .where("kind", "=", "restore").execute();
    equal(events.length, 1, "restored once");
    const actor = events[0].actor as Record<string, unknown>;
    equal(actor.kind, "plugin");
    equal(actor.installation_id, id);
    equal(actor.person_email, "admin@plugins.test");
  }));
