// Tests of purgeEntry(), listDependents() and listRelatedFrom(): permanent delete and "who links here".
import assert from "node:assert/strict";
import { allCounts, create, linksOf, model } from "./_rules_testing.ts";
import { code, ok, openWorld, type World } from "./_testing.ts";
import { listDependents, listRelatedFrom } from "./dependents.ts";
import { saveEntry, trashEntry } from "./lifecycle.ts";
import { purgeEntry } from "./purge.ts";

async function setup(w: World) {
  const tags = await model(w, "tags", [
    { key: "name", label: "Name", type: "text", unique: true },
  ]);
  const posts = await model(w, "posts", [
    { key: "title", label: "Title", type: "text" },
    {
      key: "tags",
      label: "Tags",
      type: "relation",
      config: { targets: [tags.id], cardinality: "many-to-many" },
    },
    {
      key: "hero",
      label: "Hero",
      type: "relation",
      config: { targets: [tags.id], cardinality: "many-to-one" },
    },
  ]);
  const tag = ok(await create(w, tags.id, { name: "deno" })).group_id;
  const other = ok(await create(w, tags.id, { name: "other" })).group_id;
  const post = ok(await create(w, posts.id, { tags: [tag, other], hero: tag }));
  return { tags: tags.id, posts: posts.id, tag, other, post };
}

Deno.test("listDependents() names the groups linking to an entry with their field keys; unreadable ones are only counted (ENT-006)", async () => {
  const w = await openWorld();
  try {
    const s = await setup(w);
    const second = ok(await create(w, s.posts, { tags: [s.tag] }));
    const dependents = await listDependents(w.ctx(), { group_id: s.tag });
    assert.deepEqual(dependents, {
      ok: true,
      group_id: s.tag,
      hidden: 0,
      dependents: [
        {
          group_id: s.post.group_id,
          model_id: s.posts,
          trashed: false,
          fields: [{ key: "hero", locale: null }, {
            key: "tags",
            locale: null,
          }],
        },
        {
          group_id: second.group_id,
          model_id: s.posts,
          trashed: false,
          fields: [{ key: "tags", locale: null }],
        },
      ],
    });
    const tagReader = await w.person({
      models: { [s.tags]: ["read"] },
      system: [],
    });
    const limited = await listDependents(w.ctx(tagReader), { group_id: s.tag });
    assert.deepEqual(limited.ok ? [limited.dependents, limited.hidden] : null, [
      [],
      2,
    ]);
    const nobody = await w.person({ models: {}, system: [] });
    assert.equal(
      code(await listDependents(w.ctx(nobody), { group_id: s.tag })),
      "not_found",
    );
  } finally {
    await w.close();
  }
});

Deno.test("listRelatedFrom() lists the linking items per source model and field (ENT-016)", async () => {
  const w = await openWorld();
  try {
    const s = await setup(w);
    const related = await listRelatedFrom(w.ctx(), { group_id: s.other });
    assert.deepEqual(related, {
      ok: true,
      group_id: s.other,
      hidden: 0,
      related_from: [{
        model_id: s.posts,
        field: "tags",
        locale: null,
        group_ids: [s.post.group_id],
      }],
    });
  } finally {
    await w.close();
  }
});

Deno.test("purgeEntry() refuses an entry not in Trash with transition_unavailable, writing nothing (ENT-015)", async () => {
  const w = await openWorld();
  try {
    const s = await setup(w);
    const before = await allCounts(w);
    assert.deepEqual(await purgeEntry(w.ctx(), { group_id: s.tag }), {
      ok: false,
      code: "transition_unavailable",
    });
    assert.equal(
      code(await purgeEntry(w.ctx(), { group_id: crypto.randomUUID() })),
      "not_found",
    );
    assert.deepEqual(await allCounts(w), before);
  } finally {
    await w.close();
  }
});

Deno.test("purgeEntry() needs delete on the model: a role without it is missing_permission, nothing changed (ENT-015, MCR-017)", async () => {
  const w = await openWorld();
  try {
    const s = await setup(w);
    ok(await trashEntry(w.ctx(), { group_id: s.tag }));
    const before = await allCounts(w);
    const reader = await w.person({
      models: { "*": ["read", "update", "restore"] },
      system: [],
    });
    const refused = await purgeEntry(w.ctx(reader), { group_id: s.tag });
    assert.deepEqual(refused, {
      ok: false,
      code: "missing_permission",
      missing: ["delete"],
    });
    assert.equal(
      code(
        await purgeEntry(w.ctx(), {
          group_id: s.tag,
          expected_workflow_revision: 0,
        }),
      ),
      "workflow_conflict",
    );
    assert.deepEqual(await allCounts(w), before);
  } finally {
    await w.close();
  }
});

Deno.test("purgeEntry() deletes a trashed entry for good: languages, versions, links both ways, unique claims; audit kept (ENT-015, MOD-050)", async () => {
  const w = await openWorld();
  try {
    const s = await setup(w);
    ok(
      await saveEntry(w.ctx(), {
        group_id: s.tag,
        locale: "de",
        slug: "deno-de",
        fields: { name: "deno" },
        expected_current_version_id: null,
      }),
    );
    const trashed = ok(await trashEntry(w.ctx(), { group_id: s.tag }));
    // Links survive Trash.
    assert.deepEqual((await linksOf(w, s.post.group_id)).tags, [
      s.tag,
      s.other,
    ]);
    const purged = await purgeEntry(w.ctx(), {
      group_id: s.tag,
      expected_workflow_revision: trashed.revision,
    });
    assert.deepEqual(purged, {
      ok: true,
      group_id: s.tag,
      model_id: s.tags,
      purged: { languages: ["en", "de"], versions: 2, links: 2 },
    });
    for (
      const table of [
        "entry_groups",
        "entries",
        "entry_versions",
        "workflow_events",
      ] as const
    ) {
      const rows = await w.db.selectFrom(table).select("site_id")
        .where(table === "entry_groups" ? "id" : "group_id", "=", s.tag)
        .execute();
      assert.equal(rows.length, 0, table);
    }
    assert.deepEqual(await linksOf(w, s.post.group_id), { tags: [s.other] });
    const audit = await w.db.selectFrom("audit_entries").selectAll()
      .where("action", "=", "entry.purge").executeTakeFirstOrThrow();
    assert.equal((audit.target as { group_id: string }).group_id, s.tag);
    // The unique value is free again.
    ok(await create(w, s.tags, { name: "deno" }));
  } finally {
    await w.close();
  }
});

Deno.test("purgeEntry() of a linking entry removes its outgoing links, and frees a single-entry model (MOD-050, MOD-024)", async () => {
  const w = await openWorld();
  try {
    const s = await setup(w);
    ok(await trashEntry(w.ctx(), { group_id: s.post.group_id }));
    ok(await purgeEntry(w.ctx(), { group_id: s.post.group_id }));
    assert.equal((await allCounts(w)).entry_links, 0);
    const home = await model(w, "home", [
      { key: "title", label: "Title", type: "text" },
    ], { kind: "single" });
    const first = ok(await create(w, home.id, {}));
    ok(await trashEntry(w.ctx(), { group_id: first.group_id }));
    assert.equal(code(await create(w, home.id, {})), "single_entry_exists");
    ok(await purgeEntry(w.ctx(), { group_id: first.group_id }));
    ok(await create(w, home.id, {}));
  } finally {
    await w.close();
  }
});
