// Tests of restoreVersion(): an old version becomes a new draft, checked against the current model and role.
import assert from "node:assert/strict";
import { applyModelDefinition } from "../models/store.ts";
import { NO_CONTENT } from "../models/change_safety.ts";
import { allCounts, create, linksOf, model } from "./_rules_testing.ts";
import { code, ok, openWorld, type World } from "./_testing.ts";
import { publishEntry, saveEntry, trashEntry } from "./lifecycle.ts";
import { modelValidator } from "./model_validator.ts";
import type { LifecycleContext, LifecycleResult } from "./types.ts";
import { restoreVersion } from "./version_restore.ts";

async function setup(w: World) {
  const tags = await model(w, "tags", [
    { key: "name", label: "Name", type: "text" },
  ]);
  const fields = [
    { key: "title", label: "Title", type: "text" },
    { key: "body", label: "Body", type: "text" },
    {
      key: "tags",
      label: "Tags",
      type: "relation",
      config: { targets: [tags.id], cardinality: "many-to-many" },
    },
  ];
  const posts = await model(w, "posts", fields);
  const tag = ok(await create(w, tags.id, { name: "t" })).group_id;
  const v1 = ok(
    await create(w, posts.id, { title: "One", body: "B1", tags: [tag] }),
  );
  const v2 = ok(
    await saveEntry(w.ctx(), {
      group_id: v1.group_id,
      locale: "en",
      fields: { title: "Two", body: "B1", tags: [] },
      expected_current_version_id: v1.current_version_id,
    }),
  );
  return { tags: tags.id, posts, fields, tag, v1, v2 };
}

const validating = (w: World, actor?: Parameters<World["ctx"]>[0]) =>
  w.ctx(actor, { validate: modelValidator() });

function restore(
  ctx: LifecycleContext,
  from: LifecycleResult,
  to: LifecycleResult,
) {
  return restoreVersion(ctx, {
    group_id: from.group_id,
    version_id: from.current_version_id!,
    expected_current_version_id: to.current_version_id,
  });
}

Deno.test("restoreVersion() writes the old values as a new draft version, links included; publication untouched (ENT-009)", async () => {
  const w = await openWorld();
  try {
    const s = await setup(w);
    const live = ok(
      await publishEntry(w.ctx(), {
        group_id: s.v2.group_id,
        expected_current_version_id: s.v2.current_version_id,
        expected_workflow_revision: 0,
      }),
    );
    const restored = ok(await restore(validating(w), s.v1, s.v2));
    assert.notEqual(restored.current_version_id, s.v1.current_version_id);
    assert.equal(restored.published_version_id, live.published_version_id);
    const version = await w.db.selectFrom("entry_versions").selectAll()
      .where("id", "=", restored.current_version_id!)
      .executeTakeFirstOrThrow();
    assert.deepEqual(version.fields, {
      title: "One",
      body: "B1",
      tags: [s.tag],
    });
    assert.equal(version.number, 3);
    assert.deepEqual(await linksOf(w, s.v1.group_id), { tags: [s.tag] });
    const event = await w.db.selectFrom("workflow_events").selectAll()
      .where("kind", "=", "version_restore").executeTakeFirstOrThrow();
    assert.equal(event.previous_version_id, s.v2.current_version_id);
    const audit = await w.db.selectFrom("audit_entries").selectAll()
      .where("action", "=", "entry.version.restore").executeTakeFirstOrThrow();
    assert.deepEqual(audit.details, {
      version_id: restored.current_version_id,
      restored_from: s.v1.current_version_id,
    });
  } finally {
    await w.close();
  }
});

Deno.test("restoreVersion() refuses a stale pin, a missing version and a trashed entry, writing nothing (ENT-009)", async () => {
  const w = await openWorld();
  try {
    const s = await setup(w);
    const before = await allCounts(w);
    assert.equal(
      code(await restore(validating(w), s.v1, s.v1)),
      "version_conflict",
    );
    assert.equal(
      code(
        await restoreVersion(validating(w), {
          group_id: s.v1.group_id,
          version_id: crypto.randomUUID(),
          expected_current_version_id: s.v2.current_version_id,
        }),
      ),
      "not_found",
    );
    assert.deepEqual(await allCounts(w), before);
    ok(await trashEntry(w.ctx(), { group_id: s.v1.group_id }));
    const trashed = await allCounts(w);
    assert.equal(
      code(await restore(validating(w), s.v1, s.v2)),
      "transition_unavailable",
    );
    assert.deepEqual(await allCounts(w), trashed);
  } finally {
    await w.close();
  }
});

Deno.test("restoreVersion() refuses values that no longer fit the current model with field_validation_failed (MOD-037)", async () => {
  const w = await openWorld();
  try {
    const s = await setup(w);
    // The model loses "body" and gains a length rule on "title".
    const applied = await applyModelDefinition(
      { db: w.db, clock: w.clock, siteId: w.siteId },
      s.posts.id,
      {
        model: { name: "posts", slug: "posts" },
        fields: [
          { ...s.posts.fields[0], validation: { minLength: 4 } },
          s.posts.fields[2],
        ],
      },
      { baseRevision: s.posts.revision, facts: () => NO_CONTENT },
    );
    assert.equal(code(applied), "ok");
    const before = await allCounts(w);
    const refused = await restore(validating(w), s.v1, s.v2);
    assert.equal(code(refused), "field_validation_failed");
    assert.deepEqual(
      refused.ok ? null : refused.errors?.map((e) => [e.path, e.code]).sort(),
      [["body", "unknown_field"], ["title", "too_short"]].sort(),
    );
    assert.deepEqual(await allCounts(w), before);
  } finally {
    await w.close();
  }
});

Deno.test("restoreVersion() that would rewrite a field the role cannot write is field_denied; without content:restore missing_permission (MOD-041)", async () => {
  const w = await openWorld();
  try {
    const s = await setup(w);
    const limited = await w.person({
      models: { "*": ["read", "create", "update", "restore"] },
      system: ["content:restore"],
      fields: { [s.posts.id]: { write: ["title", "tags"] } },
    });
    const before = await allCounts(w);
    // v1 -> v2 changed title and tags only: allowed for the limited role.
    const body = ok(
      await saveEntry(w.ctx(), {
        group_id: s.v2.group_id,
        locale: "en",
        fields: { title: "Two", body: "B2", tags: [] },
        expected_current_version_id: s.v2.current_version_id,
      }),
    );
    const afterSave = await allCounts(w);
    assert.notDeepEqual(afterSave, before);
    const refused = await restore(validating(w, limited), s.v1, body);
    assert.deepEqual(refused, {
      ok: false,
      code: "field_denied",
      fields: ["body"],
    });
    const noRestore = await w.person({
      models: { "*": ["read", "create", "update", "restore"] },
      system: [],
    });
    const missing = await restore(validating(w, noRestore), s.v1, body);
    assert.deepEqual(missing, {
      ok: false,
      code: "missing_permission",
      missing: ["content:restore"],
    });
    assert.deepEqual(await allCounts(w), afterSave);
    // Back to body "B1" under another title: restoring v2 now rewrites the title only.
    const v4 = ok(
      await saveEntry(w.ctx(), {
        group_id: body.group_id,
        locale: "en",
        fields: { title: "Four", body: "B1", tags: [] },
        expected_current_version_id: body.current_version_id,
      }),
    );
    ok(await restore(validating(w, limited), s.v2, v4));
  } finally {
    await w.close();
  }
});

Deno.test("restoreVersion() re-checks restored relation targets: a trashed target cannot be chosen again (MOD-050)", async () => {
  const w = await openWorld();
  try {
    const s = await setup(w);
    ok(await trashEntry(w.ctx(), { group_id: s.tag }));
    const before = await allCounts(w);
    const refused = await restore(validating(w), s.v1, s.v2);
    assert.deepEqual(refused.ok ? null : [refused.code, refused.relation], [
      "relation_target_not_found",
      { field: "tags", locale: null, ids: [s.tag] },
    ]);
    assert.deepEqual(await allCounts(w), before);
  } finally {
    await w.close();
  }
});
