// POST /api/plugin/v1/releases/commit (spec 1 parts 3.3, 4.1, 4.5 item 7): several items and
// languages committed together, or refused whole with nothing changed (REL-001, REL-010,
// REL-011, REL-019, REL-021, REL-027).
import { deepEqual, equal, ok } from "node:assert/strict";
import { personActor } from "../../core/access/actor.ts";
import { publishEntry } from "../../core/entries/mod.ts";
import { createModel } from "../../core/models/store.ts";
import { saveTestEntry } from "../support/entries.ts";
import { type PluginWorld, withPluginWorld } from "./world.ts";

type Json = Record<string, unknown>;

async function readItem(
  w: PluginWorld,
  id: string,
  instance: string,
  delegation: string,
) {
  const res = await w.plugin.api(
    id,
    `/content/${instance}?delegation_id=${delegation}`,
  );
  return (await res.json()).data as {
    workflow: { revision: number; current_version_id: string };
    published_version_id: string | null;
    current_version_id: string;
    languages: { locale: string; current_version_id: string }[];
  };
}

async function published(w: PluginWorld): Promise<number> {
  const rows = await w.services.db.selectFrom("entries").select("id")
    .where("site_id", "=", w.siteId)
    .where("published_version_id", "is not", null).execute();
  return rows.length;
}

async function commit(
  w: PluginWorld,
  id: string,
  body: unknown,
  key = `rel:${crypto.randomUUID()}:a1`,
) {
  const res = await w.plugin.api(id, "/releases/commit", { body, key });
  return { status: res.status, body: await res.json() as Json };
}

Deno.test("a release of three changes across two items and two languages commits together; its receipt names each published version (REL-001, REL-010, REL-021, REL-027)", () =>
  withPluginWorld(async (w) => {
    const id = await w.install();
    const delegation = await w.delegate(id);
    const a = await w.entry({ en: { title: "A" }, de: { title: "A de" } });
    const b = await w.entry({ en: { title: "B" } });
    const readA = await readItem(w, id, a.instances.en, delegation);
    const versionOf = (locale: string) =>
      readA.languages.find((l) => l.locale === locale)!.current_version_id;
    const readB = await readItem(w, id, b.instances.en, delegation);
    const body = {
      delegation_id: delegation,
      changes: [
        {
          instance_id: a.instances.en,
          kind: "publish",
          locale: "en",
          expected_current_version_id: versionOf("en"),
          expected_workflow_revision: readA.workflow.revision,
        },
        {
          instance_id: a.instances.de,
          kind: "publish",
          locale: "de",
          expected_current_version_id: versionOf("de"),
          expected_workflow_revision: readA.workflow.revision,
        },
        {
          instance_id: b.instances.en,
          kind: "publish",
          expected_current_version_id: readB.workflow.current_version_id,
          expected_workflow_revision: readB.workflow.revision,
        },
      ],
    };
    const key = `rel:${crypto.randomUUID()}:a1`;
    const done = await commit(w, id, body, key);
    equal(done.status, 200, JSON.stringify(done.body));
    equal((done.body.outcome as Json).code, "release_applied");
    const changes = (done.body.result as { changes: Json[] }).changes;
    deepEqual(changes.map((c) => [c.instance_id, c.kind, c.locale]), [
      [a.instances.en, "publish", "en"],
      [a.instances.de, "publish", "de"],
      [b.instances.en, "publish", null],
    ]);
    equal(changes[0].published_version_id, versionOf("en"));
    equal(changes[1].published_version_id, versionOf("de"));
    equal(await published(w), 3);
    // The same key and body answer the first result again; another body is refused.
    const replay = await commit(w, id, body, key);
    equal((replay.body.outcome as Json).code, "idempotent_replay");
    deepEqual(replay.body.result, done.body.result);
    const reused = await commit(
      w,
      id,
      { ...body, changes: [body.changes[0]] },
      key,
    );
    equal((reused.body.outcome as Json).code, "idempotency_key_reused");
  }));

Deno.test("one stale pin refuses the whole release and changes nothing (REL-011, PAPI-028)", () =>
  withPluginWorld(async (w) => {
    const id = await w.install();
    const delegation = await w.delegate(id);
    const a = await w.entry({ en: { title: "A" } });
    const b = await w.entry({ en: { title: "B" } });
    const readA = await readItem(w, id, a.instances.en, delegation);
    const readB = await readItem(w, id, b.instances.en, delegation);
    const events = async () =>
      (await w.services.db.selectFrom("workflow_events").select("id")
        .where("site_id", "=", w.siteId).execute()).length;
    const before = await events();
    const refused = await commit(w, id, {
      delegation_id: delegation,
      changes: [
        {
          instance_id: a.instances.en,
          kind: "publish",
          expected_current_version_id: readA.workflow.current_version_id,
          expected_workflow_revision: readA.workflow.revision,
        },
        {
          instance_id: b.instances.en,
          kind: "publish",
          expected_current_version_id: crypto.randomUUID(),
          expected_workflow_revision: readB.workflow.revision,
        },
      ],
    });
    equal(refused.status, 409, JSON.stringify(refused.body));
    equal((refused.body.outcome as Json).code, "scheduled_target_stale");
    equal(await published(w), 0);
    equal(await events(), before);
    const twice = await commit(w, id, {
      delegation_id: delegation,
      changes: [0, 1].map(() => ({
        instance_id: a.instances.en,
        kind: "publish",
        expected_current_version_id: readA.workflow.current_version_id,
        expected_workflow_revision: readA.workflow.revision,
      })),
    });
    equal((twice.body.outcome as Json).code, "invalid_request");
    const unknown = await commit(w, id, {
      delegation_id: delegation,
      changes: [{
        instance_id: crypto.randomUUID(),
        kind: "publish",
        expected_current_version_id: null,
        expected_workflow_revision: 0,
      }],
    });
    equal((unknown.body.outcome as Json).code, "content_not_found");
    equal(await published(w), 0);
  }));

Deno.test("a release holds 25 changes; the 26th is refused (REL-019)", () =>
  withPluginWorld(async (w) => {
    const id = await w.install();
    const delegation = await w.delegate(id);
    const changes = [];
    for (let i = 0; i < 26; i++) {
      const e = await w.entry({ en: { title: `Item ${i}` } });
      const read = await readItem(w, id, e.instances.en, delegation);
      changes.push({
        instance_id: e.instances.en,
        kind: "publish",
        expected_current_version_id: read.workflow.current_version_id,
        expected_workflow_revision: read.workflow.revision,
      });
    }
    const full = await commit(w, id, { delegation_id: delegation, changes });
    equal((full.body.outcome as Json).code, "invalid_request");
    equal(await published(w), 0);
    const last = await commit(w, id, {
      delegation_id: delegation,
      changes: changes.slice(0, 25),
    });
    equal((last.body.outcome as Json).code, "release_applied");
    equal(await published(w), 25);
  }));

Deno.test("a release needs workflow:release besides the capabilities of its changes (PAPI-026)", () =>
  withPluginWorld(async (w) => {
    const id = await w.install({
      capabilities: ["content:read", "workflow:read", "workflow:publish"],
    });
    const delegation = await w.delegate(id);
    const e = await w.entry({ en: { title: "Item" } });
    const read = await readItem(w, id, e.instances.en, delegation);
    const refused = await commit(w, id, {
      delegation_id: delegation,
      changes: [{
        instance_id: e.instances.en,
        kind: "publish",
        expected_current_version_id: read.workflow.current_version_id,
        expected_workflow_revision: read.workflow.revision,
      }],
    });
    equal((refused.body.outcome as Json).code, "capability_refused");
    equal(await published(w), 0);
  }));

Deno.test("a release is judged on its final state: a linked item and its target withdraw together even with the target listed first, while a target withdrawn under a still-published language of its dependent is dependent_content (PAPI-027)", () =>
  withPluginWorld(async (w) => {
    const cards = await createModel(
      { db: w.services.db, clock: w.clock, siteId: w.siteId },
      {
        model: { name: "Cards", slug: "cards", enableI18n: true },
        fields: [
          { key: "title", label: "Title", type: "text", localized: true },
          {
            key: "post",
            label: "Post",
            type: "relation",
            config: { targets: [w.modelId], cardinality: "many-to-one" },
          },
        ],
      },
    );
    if (!cards.ok) throw new Error(JSON.stringify(cards));
    const id = await w.install({ model_ids: [w.modelId, cards.model_id] });
    const delegation = await w.delegate(id);
    const publishAll = async (groupId: string) => {
      const group = await w.services.db.selectFrom("entry_groups")
        .selectAll().where("id", "=", groupId).executeTakeFirstOrThrow();
      const done = await publishEntry({
        db: w.services.db,
        clock: w.clock,
        siteId: w.siteId,
        actor: personActor(w.adminId),
      }, {
        group_id: groupId,
        expected_current_version_id: group.current_version_id,
        expected_workflow_revision: group.revision,
      });
      ok(done.ok, JSON.stringify(done));
    };
    const post = await w.entry({ en: { title: "Target" } });
    const card = await saveTestEntry({
      db: w.services.db,
      clock: w.clock,
      siteId: w.siteId,
      userId: w.adminId,
      modelId: cards.model_id,
    }, {
      en: { title: "Card", post: post.groupId },
      de: { title: "Karte", post: post.groupId },
    });
    await publishAll(post.groupId);
    await publishAll(card.groupId);
    equal(await published(w), 3);
    const withdraw = async (instance: string, locale?: string) => {
      const read = await readItem(w, id, instance, delegation);
      const language = locale === undefined
        ? undefined
        : (read.languages as unknown as {
          locale: string;
          published_version_id: string | null;
        }[]).find((l) => l.locale === locale);
      return {
        instance_id: instance,
        kind: "unpublish",
        ...(locale === undefined ? {} : { locale }),
        expected_published_version_id: language
          ? language.published_version_id
          : read.published_version_id,
        expected_workflow_revision: read.workflow.revision,
      };
    };
    // The target alone: its published dependent blocks it.
    const alone = await commit(w, id, {
      delegation_id: delegation,
      changes: [await withdraw(post.instances.en)],
    });
    equal((alone.body.outcome as Json).code, "dependent_content");
    // The target and one language of its dependent: the other language still links to it.
    const partly = await commit(w, id, {
      delegation_id: delegation,
      changes: [
        await withdraw(post.instances.en),
        await withdraw(card.instances.de, "de"),
      ],
    });
    equal(
      (partly.body.outcome as Json).code,
      "dependent_content",
      JSON.stringify(partly.body),
    );
    equal(await published(w), 3, "a refused release changes nothing");
    // Both whole, the target listed before its dependent: the final state holds.
    const together = await commit(w, id, {
      delegation_id: delegation,
      changes: [
        await withdraw(post.instances.en),
        await withdraw(card.instances.en),
      ],
    });
    equal(
      (together.body.outcome as Json).code,
      "release_applied",
      JSON.stringify(together.body),
    );
    equal(await published(w), 0);
  }));
