// Tests of relation fields: write forms, target checks, exclusive targets, Trash and per-language lists.
import assert from "node:assert/strict";
import {
  allCounts,
  create,
  linksOf,
  model,
  rendezvous,
} from "./_rules_testing.ts";
import { code, ok, openWorld, type World } from "./_testing.ts";
import { restoreEntry, saveEntry, trashEntry } from "./lifecycle.ts";
import { modelValidator } from "./model_validator.ts";
import type { LifecycleContext, LifecycleResult } from "./types.ts";

interface Setup {
  authors: string;
  tags: string;
  posts: string;
  a: string[];
  t: string[];
}

async function setup(w: World): Promise<Setup> {
  const authors = await model(w, "authors", [
    { key: "name", label: "Name", type: "text" },
  ]);
  const tags = await model(w, "tags", [
    { key: "name", label: "Name", type: "text" },
  ]);
  const relation = (
    key: string,
    targets: string[],
    cardinality: string,
    extra: Record<string, unknown> = {},
  ) => ({
    key,
    label: key,
    type: "relation",
    config: { targets, cardinality, ...extra },
  });
  const posts = await model(w, "posts", [
    { key: "title", label: "Title", type: "text" },
    relation("author", [authors.id], "many-to-one"),
    relation("editor", [authors.id], "one-to-one"),
    relation("tags", [tags.id], "many-to-many"),
    relation("chapters", [tags.id], "one-to-many"),
    relation("mixed", [authors.id, tags.id], "many-to-many"),
    relation("local", [tags.id], "many-to-many", {
      localizedMembership: true,
    }),
  ]);
  const a: string[] = [];
  const t: string[] = [];
  for (let i = 0; i < 3; i++) {
    a.push(ok(await create(w, authors.id, { name: `a${i}` })).group_id);
  }
  for (let i = 0; i < 5; i++) {
    t.push(ok(await create(w, tags.id, { name: `t${i}` })).group_id);
  }
  return { authors: authors.id, tags: tags.id, posts: posts.id, a, t };
}

function update(
  w: World,
  saved: LifecycleResult,
  fields: Record<string, unknown>,
  locale = "en",
  ctx: LifecycleContext = w.ctx(undefined, { validate: modelValidator() }),
) {
  const instance = saved.instances.find((i) => i.locale === locale);
  return saveEntry(ctx, {
    group_id: saved.group_id,
    locale,
    slug: instance ? undefined : `p-${locale}-${saved.group_id.slice(0, 6)}`,
    fields,
    expected_current_version_id: instance?.current_version_id ?? null,
  });
}

async function storedValues(w: World, versionId: string | null) {
  const row = await w.db.selectFrom("entry_versions").select("fields")
    .where("id", "=", versionId!).executeTakeFirstOrThrow();
  return row.fields as Record<string, unknown>;
}

Deno.test("saveEntry() stores each relation kind as ordered links and in the version (MOD-044)", async () => {
  const w = await openWorld();
  try {
    const s = await setup(w);
    const post = ok(
      await create(w, s.posts, {
        author: s.a[0],
        editor: s.a[1],
        tags: [s.t[2], s.t[0]],
        chapters: [s.t[3]],
        mixed: [{ model: s.tags, id: s.t[1] }, {
          model: s.authors,
          id: s.a[0],
        }],
      }),
    );
    assert.deepEqual(await linksOf(w, post.group_id), {
      author: [s.a[0]],
      chapters: [s.t[3]],
      editor: [s.a[1]],
      mixed: [s.t[1], s.a[0]],
      tags: [s.t[2], s.t[0]],
    });
    const values = await storedValues(w, post.current_version_id);
    assert.deepEqual(values.tags, [s.t[2], s.t[0]]);
  } finally {
    await w.close();
  }
});

Deno.test("saveEntry() applies { set } and { connect, disconnect, move } with start, end, before and after (MOD-045)", async () => {
  const w = await openWorld();
  try {
    const s = await setup(w);
    let post = ok(
      await create(w, s.posts, { tags: { set: [s.t[0], s.t[1]] } }),
    );
    post = ok(await update(w, post, { tags: { connect: [s.t[2]] } }));
    assert.deepEqual((await linksOf(w, post.group_id)).tags, [
      s.t[0],
      s.t[1],
      s.t[2],
    ]);
    post = ok(
      await update(w, post, {
        tags: {
          connect: [
            { id: s.t[3], position: "start" },
            { id: s.t[4], position: { before: s.t[1] } },
          ],
          disconnect: [s.t[0]],
        },
      }),
    );
    assert.deepEqual((await linksOf(w, post.group_id)).tags, [
      s.t[3],
      s.t[4],
      s.t[1],
      s.t[2],
    ]);
    post = ok(
      await update(w, post, {
        tags: {
          move: [{ id: s.t[3], position: "end" }, {
            id: s.t[2],
            position: { after: s.t[4] },
          }],
        },
      }),
    );
    const expected = [s.t[4], s.t[2], s.t[1], s.t[3]];
    assert.deepEqual((await linksOf(w, post.group_id)).tags, expected);
    assert.deepEqual(
      (await storedValues(w, post.current_version_id)).tags,
      expected,
    );
    // A to-one field takes a plain id, { set }, { connect } and { disconnect }.
    post = ok(
      await update(w, post, { tags: expected, author: { connect: s.a[2] } }),
    );
    assert.deepEqual((await linksOf(w, post.group_id)).author, [s.a[2]]);
    post = ok(
      await update(w, post, { tags: expected, author: { disconnect: true } }),
    );
    assert.equal((await linksOf(w, post.group_id)).author, undefined);
  } finally {
    await w.close();
  }
});

Deno.test("saveEntry() refuses a position or move on a to-one field with relation_position_not_ordered, writing nothing (MOD-046)", async () => {
  const w = await openWorld();
  try {
    const s = await setup(w);
    const post = ok(await create(w, s.posts, { author: s.a[0] }));
    const before = await allCounts(w);
    for (
      const author of [
        { connect: { id: s.a[1], position: "start" } },
        { move: [{ id: s.a[0], position: "end" }] },
      ]
    ) {
      const refused = await update(w, post, { author });
      assert.equal(code(refused), "relation_position_not_ordered");
      assert.equal(refused.ok ? null : refused.relation?.field, "author");
    }
    assert.deepEqual(await allCounts(w), before);
    assert.deepEqual((await linksOf(w, post.group_id)).author, [s.a[0]]);
  } finally {
    await w.close();
  }
});

Deno.test("saveEntry() refuses a target named twice, or connected while linked, with relation_duplicate_target (MOD-047)", async () => {
  const w = await openWorld();
  try {
    const s = await setup(w);
    const before = await allCounts(w);
    for (const tags of [[s.t[0], s.t[0]], { set: [s.t[1], s.t[1]] }]) {
      const refused = await create(w, s.posts, { tags });
      assert.equal(code(refused), "relation_duplicate_target");
    }
    assert.deepEqual(await allCounts(w), before);
    const post = ok(await create(w, s.posts, { tags: [s.t[0]] }));
    const after = await allCounts(w);
    const refused = await update(w, post, { tags: { connect: [s.t[0]] } });
    assert.deepEqual(refused.ok ? null : refused.relation, {
      field: "tags",
      locale: null,
      ids: [s.t[0]],
    });
    assert.deepEqual(await allCounts(w), after);
  } finally {
    await w.close();
  }
});

Deno.test("saveEntry() refuses missing, wrong-model and unreadable targets with relation_target_not_found naming them (MOD-047, MOD-049)", async () => {
  const w = await openWorld();
  try {
    const s = await setup(w);
    const missing = crypto.randomUUID();
    const before = await allCounts(w);
    const refused = await create(w, s.posts, {
      tags: [s.t[0], missing, s.a[0]],
    });
    assert.deepEqual(refused.ok ? null : [refused.code, refused.relation], [
      "relation_target_not_found",
      { field: "tags", locale: null, ids: [missing, s.a[0]] },
    ]);
    // Naming the wrong model of a multi-model field.
    const wrong = await create(w, s.posts, {
      mixed: [{ model: s.authors, id: s.t[0] }],
    });
    assert.equal(code(wrong), "relation_target_not_found");
    // A writer who cannot read tags cannot choose one.
    const writer = await w.person({
      models: {
        [s.posts]: ["read", "create", "update"],
        [s.authors]: ["read"],
      },
      system: [],
    });
    const unreadable = await create(
      w,
      s.posts,
      { author: s.a[0], tags: [s.t[1]] },
      w.ctx(writer),
    );
    assert.deepEqual(unreadable.ok ? null : unreadable.relation, {
      field: "tags",
      locale: null,
      ids: [s.t[1]],
    });
    assert.deepEqual(await allCounts(w), before);
    ok(await create(w, s.posts, { author: s.a[0] }, w.ctx(writer)));
  } finally {
    await w.close();
  }
});

Deno.test("saveEntry() refuses a target another entry holds in a one-to-one or one-to-many field with relation_target_taken (MOD-048)", async () => {
  const w = await openWorld();
  try {
    const s = await setup(w);
    const first = ok(
      await create(w, s.posts, { editor: s.a[0], chapters: [s.t[0], s.t[1]] }),
    );
    const before = await allCounts(w);
    for (
      const [fields, field, id] of [
        [{ editor: s.a[0] }, "editor", s.a[0]],
        [{ chapters: [s.t[2], s.t[1]] }, "chapters", s.t[1]],
      ] as const
    ) {
      assert.deepEqual(await create(w, s.posts, fields), {
        ok: false,
        code: "relation_target_taken",
        relation: { field, locale: null, ids: [id] },
        existing: { group_id: first.group_id },
      });
    }
    assert.deepEqual(await allCounts(w), before);
    // Many-to-one and many-to-many targets may be shared.
    ok(await create(w, s.posts, { author: s.a[0], tags: [s.t[0]] }));
    ok(await create(w, s.posts, { author: s.a[0], tags: [s.t[0]] }));
    // Once released, the target may be taken.
    ok(await update(w, first, { chapters: [s.t[0]] }));
    ok(await create(w, s.posts, { chapters: [s.t[1]] }));
  } finally {
    await w.close();
  }
});

Deno.test("saveEntry() run as truly concurrent saves taking one one-to-many target: exactly one wins (MOD-048)", async () => {
  const w = await openWorld();
  try {
    const s = await setup(w);
    const ctx = w.ctx(undefined, { validate: rendezvous() });
    const outcomes = await Promise.all(
      ["x", "y"].map((slug) =>
        saveEntry(ctx, {
          model_id: s.posts,
          locale: "en",
          slug,
          fields: { chapters: [s.t[0]] },
          expected_current_version_id: null,
        })
      ),
    );
    assert.deepEqual(outcomes.map(code).sort(), [
      "ok",
      "relation_target_taken",
    ]);
    const links = await w.db.selectFrom("entry_links").select("source_group_id")
      .where("target_group_id", "=", s.t[0]).execute();
    assert.equal(links.length, 1);
  } finally {
    await w.close();
  }
});

Deno.test("saveEntry() keeps links to a trashed target but refuses choosing a trashed target anew (MOD-050)", async () => {
  const w = await openWorld();
  try {
    const s = await setup(w);
    const post = ok(await create(w, s.posts, { tags: [s.t[0]] }));
    const trashed = ok(await trashEntry(w.ctx(), { group_id: s.t[0] }));
    ok(await trashEntry(w.ctx(), { group_id: s.t[1] }));
    assert.deepEqual((await linksOf(w, post.group_id)).tags, [s.t[0]]);
    const kept = ok(await update(w, post, { tags: [s.t[0], s.t[2]] }));
    const before = await allCounts(w);
    const refused = await update(w, kept, { tags: { connect: [s.t[1]] } });
    assert.deepEqual(
      refused.ok ? null : [refused.code, refused.relation?.ids],
      [
        "relation_target_not_found",
        [s.t[1]],
      ],
    );
    assert.equal(
      code(await create(w, s.posts, { tags: [s.t[0]] })),
      "relation_target_not_found",
    );
    assert.deepEqual(await allCounts(w), before);
    ok(await restoreEntry(w.ctx(), { group_id: trashed.group_id }));
    ok(await create(w, s.posts, { tags: [s.t[0]] }));
  } finally {
    await w.close();
  }
});

Deno.test("saveEntry() keeps a localizedMembership field's ordered list per language, each checked per language (MOD-051)", async () => {
  const w = await openWorld();
  try {
    const s = await setup(w);
    let post = ok(await create(w, s.posts, { local: [s.t[0], s.t[1]] }));
    post = ok(await update(w, post, { local: [s.t[2]] }, "de"));
    post = ok(
      await update(w, post, {
        local: { connect: [{ id: s.t[3], position: "start" }] },
      }, "de"),
    );
    assert.deepEqual((await linksOf(w, post.group_id)).local, [
      `de:${s.t[3]}`,
      `de:${s.t[2]}`,
      `en:${s.t[0]}`,
      `en:${s.t[1]}`,
    ]);
    const refused = await update(
      w,
      post,
      { local: { connect: [s.t[2]] } },
      "de",
    );
    assert.deepEqual(refused.ok ? null : refused.relation, {
      field: "local",
      locale: "de",
      ids: [s.t[2]],
    });
    // The same id is new in en.
    ok(await update(w, post, { local: { connect: [s.t[2]] } }, "en"));
  } finally {
    await w.close();
  }
});

Deno.test("saveEntry() checks relation targets inside components like top-level ones: a missing target is refused at its path, a trashed one only when newly chosen (MOD-047, MOD-050)", async () => {
  const w = await openWorld();
  try {
    const s = await setup(w);
    const cards = await model(w, "cards", [
      { key: "title", label: "Title", type: "text" },
      {
        key: "hero",
        label: "Hero",
        type: "component",
        config: {
          fields: [{
            key: "tag",
            label: "Tag",
            type: "relation",
            config: { targets: [s.tags], cardinality: "many-to-one" },
          }],
        },
      },
    ]);
    const missing = crypto.randomUUID();
    const refused = await create(w, cards.id, { hero: { tag: missing } });
    assert.deepEqual(refused.ok ? null : [refused.code, refused.relation], [
      "relation_target_not_found",
      { field: "hero.tag", locale: null, ids: [missing] },
    ]);
    const card = ok(await create(w, cards.id, { hero: { tag: s.t[0] } }));
    ok(await trashEntry(w.ctx(), { group_id: s.t[0] }));
    ok(await trashEntry(w.ctx(), { group_id: s.t[1] }));
    // The target the card already held stays allowed; a trashed one chosen anew does not.
    const kept = ok(
      await update(w, card, { title: "Kept", hero: { tag: s.t[0] } }),
    );
    const anew = await update(w, kept, { hero: { tag: s.t[1] } });
    assert.deepEqual(anew.ok ? null : anew.relation, {
      field: "hero.tag",
      locale: null,
      ids: [s.t[1]],
    });
  } finally {
    await w.close();
  }
});
