// Tests of publishEntry(), unpublishEntry(), trashEntry() and restoreEntry(): pins, availability, permissions.
import assert from "node:assert/strict";
import { article, code, ok, openWorld } from "./_testing.ts";
import {
  publishEntry,
  restoreEntry,
  saveEntry,
  trashEntry,
  unpublishEntry,
} from "./lifecycle.ts";
import { createModel } from "../models/store.ts";
import { modelValidator } from "./model_validator.ts";

Deno.test("publishEntry() publishes every language, bumps the revision and records one event per language (ENT-007)", async () => {
  const w = await openWorld();
  try {
    const a = await article(w);
    const published = ok(
      await publishEntry(w.ctx(), {
        group_id: a.group_id,
        expected_current_version_id: a.current_version_id,
        expected_workflow_revision: 0,
      }),
    );
    assert.equal(published.state, "published");
    assert.equal(published.revision, 1);
    for (const i of published.instances) {
      assert.equal(i.published_version_id, i.current_version_id);
      assert.deepEqual(i.published_at, w.clock.now());
    }
    assert.equal(published.published_version_id, a.current_version_id);
    const events = await w.db.selectFrom("workflow_events").select([
      "kind",
      "locale",
      "to_state",
    ])
      .where("kind", "=", "publish").orderBy("locale").execute();
    assert.deepEqual(events, [
      { kind: "publish", locale: "de", to_state: "published" },
      { kind: "publish", locale: "en", to_state: "published" },
    ]);
    const audits = await w.db.selectFrom("audit_entries").select("action")
      .where("action", "=", "entry.publish").execute();
    assert.equal(audits.length, 1);
  } finally {
    await w.close();
  }
});

Deno.test("publishEntry() refuses stale pins with workflow_conflict or version_conflict and writes nothing (ENT-007)", async () => {
  const w = await openWorld();
  try {
    const a = await article(w);
    const before = await w.counts();
    const staleRevision = await publishEntry(w.ctx(), {
      group_id: a.group_id,
      expected_current_version_id: a.current_version_id,
      expected_workflow_revision: 1,
    });
    assert.deepEqual(staleRevision, { ok: false, code: "workflow_conflict" });
    const staleVersion = await publishEntry(w.ctx(), {
      group_id: a.group_id,
      locale: "en",
      expected_current_version_id: a.current_version_id, // the group's newest is de's
      expected_workflow_revision: 0,
    });
    assert.deepEqual(staleVersion, { ok: false, code: "version_conflict" });
    assert.deepEqual(await w.counts(), before);
    const group = await w.db.selectFrom("entry_groups").select("revision")
      .executeTakeFirstOrThrow();
    assert.equal(group.revision, 0);
  } finally {
    await w.close();
  }
});

Deno.test("publishEntry() of one language leaves the others, and a repeat is transition_unavailable", async () => {
  const w = await openWorld();
  try {
    const a = await article(w);
    const en = a.instances.find((i) => i.locale === "en")!;
    const one = ok(
      await publishEntry(w.ctx(), {
        group_id: a.group_id,
        locale: "en",
        expected_current_version_id: en.current_version_id,
        expected_workflow_revision: 0,
      }),
    );
    assert.deepEqual(
      one.instances.map((i) => i.published_version_id !== null),
      [true, false],
    );
    const again = await publishEntry(w.ctx(), {
      group_id: a.group_id,
      locale: "en",
      expected_current_version_id: en.current_version_id,
      expected_workflow_revision: 1,
    });
    assert.deepEqual(again, { ok: false, code: "transition_unavailable" });
  } finally {
    await w.close();
  }
});

Deno.test("unpublishEntry() pins the published version, and refuses what is not published (ENT-008)", async () => {
  const w = await openWorld();
  try {
    const a = await article(w);
    const notLive = await unpublishEntry(w.ctx(), {
      group_id: a.group_id,
      expected_published_version_id: null,
      expected_workflow_revision: 0,
    });
    assert.deepEqual(notLive, { ok: false, code: "transition_unavailable" });
    const p = ok(
      await publishEntry(w.ctx(), {
        group_id: a.group_id,
        expected_current_version_id: a.current_version_id,
        expected_workflow_revision: 0,
      }),
    );
    const de = p.instances.find((i) => i.locale === "de")!;
    const en = p.instances.find((i) => i.locale === "en")!;
    const stale = await unpublishEntry(w.ctx(), {
      group_id: a.group_id,
      locale: "de",
      expected_published_version_id: en.published_version_id,
      expected_workflow_revision: 1,
    });
    assert.deepEqual(stale, { ok: false, code: "version_conflict" });
    const u = ok(
      await unpublishEntry(w.ctx(), {
        group_id: a.group_id,
        locale: "de",
        expected_published_version_id: de.published_version_id,
        expected_workflow_revision: 1,
      }),
    );
    assert.equal(u.revision, 2);
    assert.equal(u.state, "published");
    assert.equal(u.published_version_id, en.published_version_id);
    const all = ok(
      await unpublishEntry(w.ctx(), {
        group_id: a.group_id,
        expected_published_version_id: en.published_version_id,
        expected_workflow_revision: 2,
      }),
    );
    assert.equal(all.state, "draft");
    assert.equal(all.published_version_id, null);
  } finally {
    await w.close();
  }
});

Deno.test("publishEntry() needs publish and unpublishEntry() needs unpublish, per language (locale_denied)", async () => {
  const w = await openWorld();
  try {
    const a = await article(w);
    const writer = await w.person({
      models: { "*": ["read", "create", "update"] },
      system: [],
    });
    const enPublisher = await w.person({
      models: { article: ["publish", "unpublish"] },
      system: [],
      languages: { publish: ["en"] },
    });
    const pins = {
      group_id: a.group_id,
      expected_current_version_id: a.current_version_id,
      expected_workflow_revision: 0,
    };
    assert.deepEqual(await publishEntry(w.ctx(writer), pins), {
      ok: false,
      code: "missing_permission",
      missing: ["publish"],
    });
    assert.deepEqual(await publishEntry(w.ctx(enPublisher), pins), {
      ok: false,
      code: "locale_denied",
      languages: ["de"],
    });
    ok(await publishEntry(w.ctx(), pins));
    assert.equal(
      code(
        await unpublishEntry(w.ctx(writer), {
          group_id: a.group_id,
          expected_published_version_id: a.current_version_id,
          expected_workflow_revision: 1,
        }),
      ),
      "missing_permission",
    );
  } finally {
    await w.close();
  }
});

Deno.test("publishEntry() validates the exact snapshot against the stored model and names each path (field_validation_failed)", async () => {
  const w = await openWorld();
  try {
    const created = await createModel({
      db: w.db,
      clock: w.clock,
      siteId: w.siteId,
    }, {
      model: { name: "Posts", slug: "posts" },
      fields: [
        { key: "title", label: "Title", type: "text", required: true },
        {
          key: "seo",
          label: "SEO",
          type: "component",
          config:
            '{"fields":[{"key":"meta_title","label":"Meta","type":"text","required":true}]}',
        },
      ],
    });
    if (!created.ok) throw new Error(JSON.stringify(created));
    const ctx = w.ctx(undefined, { validate: modelValidator() });
    const draft = ok(
      await saveEntry(ctx, {
        model_id: created.model_id,
        locale: "en",
        slug: "p",
        fields: { title: "Draft", seo: {} },
        expected_current_version_id: null,
      }),
    );
    const wrongType = await saveEntry(ctx, {
      group_id: draft.group_id,
      locale: "en",
      fields: { title: 5 },
      expected_current_version_id: draft.current_version_id,
    });
    assert.equal(code(wrongType), "field_validation_failed");
    const before = await w.counts();
    const refused = await publishEntry(ctx, {
      group_id: draft.group_id,
      expected_current_version_id: draft.current_version_id,
      expected_workflow_revision: 0,
    });
    assert.equal(code(refused), "field_validation_failed");
    assert.deepEqual(
      refused.ok ? [] : refused.errors!.map((e) => [e.locale, e.path]),
      [["en", "seo.meta_title"]],
    );
    assert.deepEqual(await w.counts(), before);
  } finally {
    await w.close();
  }
});

Deno.test("trashEntry() and restoreEntry() move the whole group and keep publication as before (ENT-014)", async () => {
  const w = await openWorld();
  try {
    const a = await article(w);
    const p = ok(
      await publishEntry(w.ctx(), {
        group_id: a.group_id,
        expected_current_version_id: a.current_version_id,
        expected_workflow_revision: 0,
      }),
    );
    const t = ok(
      await trashEntry(w.ctx(), {
        group_id: a.group_id,
        expected_workflow_revision: 1,
      }),
    );
    assert.equal(t.state, "trashed");
    assert.equal(t.revision, 2);
    const pins = {
      group_id: a.group_id,
      expected_current_version_id: a.current_version_id,
      expected_workflow_revision: 2,
    };
    assert.equal(
      code(await publishEntry(w.ctx(), pins)),
      "transition_unavailable",
    );
    assert.equal(
      code(
        await saveEntry(w.ctx(), {
          group_id: a.group_id,
          locale: "en",
          fields: {},
          expected_current_version_id: p.instances[0].current_version_id,
        }),
      ),
      "transition_unavailable",
    );
    assert.equal(
      code(await trashEntry(w.ctx(), { group_id: a.group_id })),
      "transition_unavailable",
    );
    const r = ok(
      await restoreEntry(w.ctx(), {
        group_id: a.group_id,
        expected_workflow_revision: 2,
      }),
    );
    assert.equal(r.state, "published");
    assert.equal(r.revision, 3);
    assert.deepEqual(r.instances, p.instances);
    assert.equal(
      code(await restoreEntry(w.ctx(), { group_id: a.group_id })),
      "transition_unavailable",
    );
    const kinds = await w.db.selectFrom("workflow_events").select([
      "kind",
      "from_state",
      "to_state",
    ])
      .where("entry_id", "is", null).orderBy("created_at").orderBy(
        "kind",
        "desc",
      ).execute();
    assert.deepEqual(kinds, [
      { kind: "trash", from_state: "published", to_state: "trashed" },
      { kind: "restore", from_state: "trashed", to_state: "published" },
    ]);
  } finally {
    await w.close();
  }
});

Deno.test("trashEntry() needs delete and restoreEntry() needs restore; a stale revision is workflow_conflict", async () => {
  const w = await openWorld();
  try {
    const a = await article(w);
    const writer = await w.person({
      models: { "*": ["read", "create", "update"] },
      system: [],
    });
    assert.equal(
      code(await trashEntry(w.ctx(writer), { group_id: a.group_id })),
      "missing_permission",
    );
    assert.equal(
      code(
        await trashEntry(w.ctx(), {
          group_id: a.group_id,
          expected_workflow_revision: 5,
        }),
      ),
      "workflow_conflict",
    );
    ok(await trashEntry(w.ctx(), { group_id: a.group_id }));
    assert.equal(
      code(await restoreEntry(w.ctx(writer), { group_id: a.group_id })),
      "missing_permission",
    );
  } finally {
    await w.close();
  }
});
