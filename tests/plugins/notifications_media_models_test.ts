// Outbound notifications of media and model changes (AUD-014 to AUD-016): queued in the change's
// own transaction for the installations allowed to see it, none for a refusal, and delivered
// only after the commit, so a failing endpoint never undoes the change.
import { deepEqual, equal, ok } from "node:assert/strict";
import { FileStorage } from "../../core/media/file_storage.ts";
import type { MediaContext } from "../../core/media/items.ts";
import { encodePng } from "../../core/media/png.ts";
import { moveMedia, updateMedia } from "../../core/media/edit.ts";
import { API_UPLOAD_LIMIT, uploadMedia } from "../../core/media/upload.ts";
import { removeMedia } from "../../core/media/usage.ts";
import { entryContentFacts } from "../../core/manage/content_facts.ts";
import {
  createModel,
  removeModel,
  setModelFolder,
  updateModelInfo,
} from "../../core/models/mod.ts";
import { assignEntry, moveReview } from "../../core/entries/review.ts";
import { pluginCallOf } from "../../core/plugins/calls.ts";
import { drainNotifications } from "../../core/plugins/notifications.ts";
import type { Db } from "../../core/db/database.ts";
import type { StoredModel } from "../../core/models/store_rows.ts";
import { type PluginWorld, withPluginWorld } from "./world.ts";

type Payload = Record<string, unknown>;

function drain(w: PluginWorld) {
  return drainNotifications({
    db: w.services.db,
    now: () => w.clock.now(),
    call: pluginCallOf(w.services),
  });
}

async function queued(w: PluginWorld): Promise<Payload[]> {
  const rows = await w.services.db.selectFrom("plugin_notifications")
    .select("payload").where("site_id", "=", w.siteId)
    .orderBy("created_at").orderBy("id").execute();
  return rows.map((r) =>
    (typeof r.payload === "string"
      ? JSON.parse(r.payload)
      : r.payload) as Payload
  );
}

async function mediaContext(w: PluginWorld): Promise<MediaContext> {
  const dir = await Deno.makeTempDir({ prefix: "stave-notify-" });
  return {
    db: w.services.db,
    storage: new FileStorage(`${dir}/media`),
    clock: w.clock,
    siteId: w.siteId,
    publicUrl: w.services.config.publicUrl,
    keyDigest: null,
  };
}

function png(seed: number): Promise<Uint8Array> {
  return encodePng(4, 3, (x, y) => [seed, x * 40, y * 60]);
}

const modelContext = (w: PluginWorld) => ({
  db: w.services.db,
  clock: w.clock,
  siteId: w.siteId,
});

const facts = (w: PluginWorld) => (db: Db, model: StoredModel) =>
  entryContentFacts(db, w.siteId, model);

Deno.test("media upload, edit, move and removal each queue media.changed for an installation granted media:read; a refusal queues none (AUD-014, AUD-015)", () =>
  withPluginWorld(async (w) => {
    w.plugin.behaviour.capabilities = [
      "content:read",
      "workflow:read",
      "media:read",
    ];
    const id = await w.install();
    const media = await mediaContext(w);
    const before = (await queued(w)).length;
    const uploaded = await uploadMedia(media, {
      bytes: await png(1),
      fileName: "a.png",
    }, { limitBytes: API_UPLOAD_LIMIT });
    ok(uploaded.ok);
    const mediaId = uploaded.item.id;
    // Rows are read back in the order they were queued, by time.
    w.clock.advance(1_000);
    ok((await updateMedia(media, mediaId, { loading: "eager" })).ok);
    w.clock.advance(1_000);
    ok((await moveMedia(media, [mediaId], null)).ok);
    w.clock.advance(1_000);
    // AUD-015: a refused command queues nothing.
    const refused = await updateMedia(media, crypto.randomUUID(), {
      loading: "lazy",
    });
    equal(refused.ok, false);
    ok((await removeMedia(media, mediaId, () => true)).ok);
    const events = (await queued(w)).slice(before);
    deepEqual(events, [
      { event: "media.changed", media_id: mediaId, deleted: false },
      { event: "media.changed", media_id: mediaId, deleted: false },
      { event: "media.changed", media_id: mediaId, deleted: false },
      { event: "media.changed", media_id: mediaId, deleted: true },
    ]);
    deepEqual(await drain(w), { delivered: 4, retrying: 0, failed: 0 });
    const sent = w.plugin.events.slice(-4) as Payload[];
    deepEqual(sent.map((e) => [e.event, e.installation_id, e.media_id]), [
      ["media.changed", id, mediaId],
      ["media.changed", id, mediaId],
      ["media.changed", id, mediaId],
      ["media.changed", id, mediaId],
    ]);
  }));

Deno.test("media changes queue nothing for an installation not granted media:read (AUD-014)", () =>
  withPluginWorld(async (w) => {
    await w.install();
    const media = await mediaContext(w);
    const before = (await queued(w)).length;
    const uploaded = await uploadMedia(media, {
      bytes: await png(2),
      fileName: "b.png",
    }, { limitBytes: API_UPLOAD_LIMIT });
    ok(uploaded.ok);
    equal((await queued(w)).length, before);
  }));

Deno.test("model changes queue model.changed for installations granted the model: model part, folder, removal; a stale write queues none (AUD-014, AUD-015)", () =>
  withPluginWorld(async (w) => {
    const ctx = modelContext(w);
    const extra = await createModel(ctx, {
      model: { name: "Notes", slug: "notes" },
      fields: [{ key: "title", label: "Title", type: "text" }],
    });
    ok(extra.ok);
    await w.install({ model_ids: [w.modelId, extra.model_id] });
    const before = (await queued(w)).length;
    // A model created after the grant is granted to no installation: nothing is queued.
    ok(
      (await createModel(ctx, {
        model: { name: "Hidden", slug: "hidden" },
        fields: [{ key: "title", label: "Title", type: "text" }],
      })).ok,
    );
    const current = extra.model;
    const info = {
      name: "Notebook",
      slug: "notes",
      description: current.description,
      kind: current.kind,
      isPublic: current.isPublic,
      enableI18n: current.enableI18n,
      settings: current.settings,
    };
    ok(
      (await updateModelInfo(ctx, extra.model_id, info, {
        baseRevision: 1,
        facts: facts(w),
      })).ok,
    );
    // AUD-015: a stale revision is refused and queues nothing.
    const stale = await updateModelInfo(ctx, extra.model_id, info, {
      baseRevision: 1,
      facts: facts(w),
    });
    equal(stale.ok, false);
    // Rows are read back in the order they were queued, by time.
    w.clock.advance(1_000);
    ok((await setModelFolder(ctx, extra.model_id, "Desk")).ok);
    w.clock.advance(1_000);
    ok(
      (await removeModel(ctx, extra.model_id, {
        baseRevision: 2,
        confirm: extra.model_id,
        facts: facts(w),
      })).ok,
    );
    deepEqual((await queued(w)).slice(before), [
      {
        event: "model.changed",
        model_id: extra.model_id,
        revision: 2,
        deleted: false,
      },
      {
        event: "model.changed",
        model_id: extra.model_id,
        revision: 2,
        deleted: false,
      },
      {
        event: "model.changed",
        model_id: extra.model_id,
        revision: null,
        deleted: true,
      },
    ]);
  }));

Deno.test("media and model changes commit before delivery: nothing is sent inside the command, and a failing endpoint leaves both changes in place (AUD-016)", () =>
  withPluginWorld(async (w) => {
    w.plugin.behaviour.capabilities = [
      "content:read",
      "workflow:read",
      "media:read",
    ];
    await w.install();
    await drain(w);
    const sent = w.plugin.events.length;
    w.plugin.behaviour.events = 400;
    const media = await mediaContext(w);
    const uploaded = await uploadMedia(media, {
      bytes: await png(3),
      fileName: "c.png",
    }, { limitBytes: API_UPLOAD_LIMIT });
    ok(uploaded.ok);
    ok((await setModelFolder(modelContext(w), w.modelId, "Blog")).ok);
    equal(w.plugin.events.length, sent, "nothing sent inside the commands");
    deepEqual(await drain(w), { delivered: 0, retrying: 0, failed: 2 });
    equal(w.plugin.events.length, sent + 2, "the endpoint was called");
    const row = await w.services.db.selectFrom("media_files").select("id")
      .where("site_id", "=", w.siteId).where("id", "=", uploaded.item.id)
      .executeTakeFirst();
    equal(row?.id, uploaded.item.id);
    const model = await w.services.db.selectFrom("models").select("folder")
      .where("id", "=", w.modelId).executeTakeFirstOrThrow();
    equal(model.folder, "Blog");
    // A retryable failure waits for its next attempt; the changes stay committed meanwhile.
    w.plugin.behaviour.events = 503;
    ok((await updateMedia(media, uploaded.item.id, { loading: "eager" })).ok);
    deepEqual(await drain(w), { delivered: 0, retrying: 1, failed: 0 });
    const edited = await w.services.db.selectFrom("media_files")
      .select("loading").where("id", "=", uploaded.item.id)
      .executeTakeFirstOrThrow();
    equal(edited.loading, "eager");
  }));

Deno.test("a workflow move and an assignment queue content.changed for the group like any other lifecycle command (AUD-014)", () =>
  withPluginWorld(async (w) => {
    await w.install();
    const { groupId } = await w.entry({ en: { title: "Hello" } });
    const before = (await queued(w)).length;
    const lifecycle = {
      db: w.services.db,
      clock: w.clock,
      siteId: w.siteId,
      actor: { kind: "person" as const, userId: w.adminId },
    };
    const revision = async () =>
      (await w.services.db.selectFrom("entry_groups").select("revision")
        .where("id", "=", groupId).executeTakeFirstOrThrow()).revision;
    const moved = await moveReview(lifecycle, {
      group_id: groupId,
      move: "submit",
      expected_workflow_revision: await revision(),
    });
    ok(moved.ok, JSON.stringify(moved));
    w.clock.advance(1_000);
    const assigned = await assignEntry(lifecycle, {
      group_id: groupId,
      assignee_id: w.adminId,
    });
    ok(assigned.ok, JSON.stringify(assigned));
    const events = (await queued(w)).slice(before);
    deepEqual(events.map((e) => [e.event, e.group_id]), [
      ["content.changed", groupId],
      ["content.changed", groupId],
    ]);
  }));
