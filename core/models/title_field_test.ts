// Tests of the list title each language instance keeps (entries.list_title, migration 0232):
// written by saves and restores, and rewritten when the model picks another title field.
import assert from "node:assert/strict";
import { create, model } from "../entries/_rules_testing.ts";
import { ok, openWorld, type World } from "../entries/_testing.ts";
import { saveEntry } from "../entries/lifecycle.ts";
import { restoreVersion } from "../entries/version_restore.ts";
import { NO_CONTENT } from "./change_safety.ts";
import { applyModelDefinition } from "./store.ts";
import { LIST_TITLE_MAX, listTitleOf, titleFieldOf } from "./title_field.ts";

async function listTitle(w: World, groupId: string): Promise<string> {
  const row = await w.db.selectFrom("entries").select("list_title")
    .where("site_id", "=", w.siteId).where("group_id", "=", groupId)
    .executeTakeFirstOrThrow();
  return row.list_title;
}

Deno.test("titleFieldOf() takes the text field keyed title, else name, else the first text field; listTitleOf() keeps 300 characters", () => {
  const text = (key: string) => ({ key, label: key, type: "text" as const });
  const number = { key: "title", label: "n", type: "number" as const };
  assert.equal(
    titleFieldOf({ fields: [text("a"), text("name"), text("title")] })?.key,
    "title",
  );
  assert.equal(
    titleFieldOf({ fields: [text("a"), text("name")] })?.key,
    "name",
  );
  assert.equal(titleFieldOf({ fields: [number, text("b")] })?.key, "b");
  assert.equal(titleFieldOf({ fields: [number] }), null);
  const long = "x".repeat(LIST_TITLE_MAX + 1);
  assert.equal(
    listTitleOf({ fields: [text("title")] }, { title: long }).length,
    LIST_TITLE_MAX,
  );
  assert.equal(listTitleOf({ fields: [text("title")] }, { title: 7 }), "");
  // Cut by characters: an emoji at the edge is kept whole, never half of its pair.
  const emoji = listTitleOf({ fields: [text("title")] }, {
    title: `${"x".repeat(LIST_TITLE_MAX - 1)}😀😀`,
  });
  assert.equal(Array.from(emoji).length, LIST_TITLE_MAX);
  assert.equal(emoji.endsWith("😀"), true);
  assert.equal(listTitleOf(null, { title: "T" }), "");
});

Deno.test("a save and a version restore write the list title; a model change that picks another title field rewrites every entry's", async () => {
  const w = await openWorld();
  try {
    const fields = [
      { key: "label", label: "Label", type: "text" },
      { key: "name", label: "Name", type: "text" },
    ];
    const posts = await model(w, "posts", fields);
    const v1 = ok(await create(w, posts.id, { label: "L1", name: "First" }));
    assert.equal(await listTitle(w, v1.group_id), "First");
    const v2 = ok(
      await saveEntry(w.ctx(), {
        group_id: v1.group_id,
        locale: "en",
        fields: { label: "L2", name: "Second" },
        expected_current_version_id: v1.current_version_id,
      }),
    );
    assert.equal(await listTitle(w, v1.group_id), "Second");
    ok(
      await restoreVersion(w.ctx(), {
        group_id: v1.group_id,
        version_id: v1.current_version_id!,
        expected_current_version_id: v2.current_version_id,
      }),
    );
    assert.equal(await listTitle(w, v1.group_id), "First");

    // Without "name", the first text field ("label") names the entry.
    const applied = await applyModelDefinition(
      { db: w.db, clock: w.clock, siteId: w.siteId },
      posts.id,
      { model: { name: "posts", slug: "posts" }, fields: [posts.fields[0]] },
      { baseRevision: posts.revision, facts: () => NO_CONTENT },
    );
    assert.equal(applied.ok, true, JSON.stringify(applied));
    assert.equal(await listTitle(w, v1.group_id), "L1");
  } finally {
    await w.close();
  }
});
