// Tests of single-entry models: one logical entry counting Trash, and one winner of concurrent creates.
import assert from "node:assert/strict";
import { allCounts, create, model, rendezvous } from "./_rules_testing.ts";
import { code, ok, openWorld } from "./_testing.ts";
import { saveEntry, trashEntry } from "./lifecycle.ts";

const FIELDS = [{ key: "title", label: "Title", type: "text" }];

Deno.test("saveEntry() on a single-entry model refuses a second create with single_entry_exists naming the first (MOD-024)", async () => {
  const w = await openWorld();
  try {
    const home = await model(w, "home", FIELDS, { kind: "single" });
    const first = ok(await create(w, home.id, { title: "Home" }));
    const before = await allCounts(w);
    const second = await create(w, home.id, { title: "Again" });
    assert.deepEqual(second, {
      ok: false,
      code: "single_entry_exists",
      existing: { group_id: first.group_id },
    });
    assert.deepEqual(await allCounts(w), before);
    // The one entry still takes new versions and languages.
    ok(
      await saveEntry(w.ctx(), {
        group_id: first.group_id,
        locale: "de",
        slug: "home-de",
        fields: { title: "Start" },
        expected_current_version_id: null,
      }),
    );
  } finally {
    await w.close();
  }
});

Deno.test("saveEntry() on a single-entry model counts the entry in Trash: create after trash is single_entry_exists (MOD-024)", async () => {
  const w = await openWorld();
  try {
    const home = await model(w, "home", FIELDS, { kind: "single" });
    const first = ok(await create(w, home.id, { title: "Home" }));
    ok(await trashEntry(w.ctx(), { group_id: first.group_id }));
    const before = await allCounts(w);
    const second = await create(w, home.id, { title: "Again" });
    assert.equal(code(second), "single_entry_exists");
    assert.deepEqual(second.ok ? null : second.existing, {
      group_id: first.group_id,
    });
    assert.deepEqual(await allCounts(w), before);
  } finally {
    await w.close();
  }
});

Deno.test("saveEntry() on a collection model creates many entries (MOD-024 applies to single models only)", async () => {
  const w = await openWorld();
  try {
    const posts = await model(w, "posts", FIELDS);
    ok(await create(w, posts.id, { title: "One" }));
    ok(await create(w, posts.id, { title: "Two" }));
    assert.equal((await allCounts(w)).entry_single_claims, 0);
  } finally {
    await w.close();
  }
});

Deno.test("saveEntry() run as truly concurrent creates on a single-entry model: exactly one wins, the other is single_entry_exists (MOD-025)", async () => {
  const w = await openWorld();
  try {
    // Different slugs, then the same slug: the single-entry rule decides, not the slug index.
    for (
      const [n, slugs] of [[1, ["a", "b"]], [2, ["same", "same"]]] as const
    ) {
      const home = await model(w, `home-${n}`, FIELDS, { kind: "single" });
      const ctx = w.ctx(undefined, { validate: rendezvous() });
      const outcomes = await Promise.all(slugs.map((slug) =>
        saveEntry(ctx, {
          model_id: home.id,
          locale: "en",
          slug,
          fields: { title: slug },
          expected_current_version_id: null,
        })
      ));
      assert.deepEqual(outcomes.map(code).sort(), [
        "ok",
        "single_entry_exists",
      ]);
      const groups = await w.db.selectFrom("entry_groups").select("id")
        .where("model_id", "=", home.id).execute();
      assert.equal(groups.length, 1);
      const loser = outcomes.find((o) => !o.ok)!;
      assert.deepEqual(loser.ok ? null : loser.existing, {
        group_id: groups[0].id,
      });
    }
  } finally {
    await w.close();
  }
});
