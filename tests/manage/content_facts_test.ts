// entryContentFacts() over the real entries tables: entries, current values, kept versions, drafts and duplicates.
import assert from "node:assert/strict";
import { createModel } from "../../core/models/mod.ts";
import {
  entryContentFacts,
  isFilled,
  missesValue,
  valuesAt,
} from "../../core/manage/content_facts.ts";
import { type ManageFixture, withManageApp } from "./helpers.ts";
import { insertEntry } from "./model_fixtures.ts";

async function model(t: ManageFixture, slug: string): Promise<string> {
  const created = await createModel(
    { db: t.services.db, clock: t.clock, siteId: t.siteId },
    {
      model: { name: slug, slug },
      fields: [{ key: "title", label: "Title", type: "text" }],
    },
  );
  assert.ok(created.ok);
  return created.model_id;
}

Deno.test("isFilled(), valuesAt() and missesValue() read key paths through components and lists", () => {
  for (
    const empty of [
      undefined,
      null,
      "",
      "  ",
      [],
      {},
      "<p></p>",
      "<p> &nbsp;</p>",
    ]
  ) {
    assert.equal(isFilled(empty), false, JSON.stringify(empty));
  }
  for (
    const filled of [
      0,
      false,
      "a",
      "a < b",
      [1],
      { a: 1 },
      "<p>x</p>",
      '<figure data-figure="media" data-media="m"></figure>',
    ]
  ) {
    assert.equal(isFilled(filled), true, JSON.stringify(filled));
  }
  const fields = {
    title: "T",
    seo: { meta_title: "" },
    faqs: [{ question: "Q1" }, { question: "" }],
  };
  assert.deepEqual(valuesAt(fields, "faqs.question"), ["Q1", ""]);
  assert.deepEqual(valuesAt(fields, "seo.meta_title"), [""]);
  assert.equal(missesValue(fields, "faqs.question"), true);
  assert.equal(missesValue(fields, "seo.meta_title"), true);
  assert.equal(missesValue(fields, "title"), false);
  assert.equal(missesValue(fields, "summary"), true);
  // An absent component asks nothing of its fields.
  assert.equal(missesValue({ title: "T" }, "seo.meta_title"), false);
  assert.equal(missesValue({ faqs: [] }, "faqs.question"), false);
});

Deno.test("entryContentFacts() counts entries (Trash included), values in any language and missing values per entry", () =>
  withManageApp(async (t) => {
    const posts = await model(t, "posts");
    const other = await model(t, "other");
    await insertEntry(t, posts, {
      en: { title: "Hello", faqs: [{ question: "Q" }] },
      de: { title: "" },
    });
    await insertEntry(t, posts, { en: { title: "  " } }, { trashed: true });
    await insertEntry(t, posts, {
      en: { summary: "s", faqs: [{ question: "" }] },
    });
    await insertEntry(t, other, { en: { title: "Elsewhere" } });
    const facts = entryContentFacts(t.services.db, t.siteId, { id: posts });
    assert.equal(await facts.countEntries(), 3);
    assert.equal(await facts.countEntriesWithValue("title"), 1);
    assert.equal(await facts.countEntriesWithValue("summary"), 1);
    assert.equal(await facts.countEntriesWithValue("faqs.question"), 1);
    assert.equal(await facts.countEntriesWithValue("nothing"), 0);
    // The first entry misses a title in de, the second is blank, the third has none.
    assert.equal(await facts.countEntriesMissingValue("title"), 3);
    assert.equal(await facts.countEntriesMissingValue("faqs.question"), 1);
    assert.equal(await facts.countEntriesMissingValue("seo.meta_title"), 0);
    const empty = entryContentFacts(t.services.db, t.siteId, {
      id: crypto.randomUUID(),
    });
    assert.equal(await empty.countEntries(), 0);
  }));

Deno.test("entryContentFacts() counts kept versions and working drafts holding a value", () =>
  withManageApp(async (t) => {
    const posts = await model(t, "posts");
    const group = await insertEntry(t, posts, { en: { title: "Now" } }, {
      history: [{ title: "Old", summary: "was here" }, { title: "Older" }],
    });
    const facts = entryContentFacts(t.services.db, t.siteId, { id: posts });
    assert.equal(await facts.countVersionsWithValue("summary"), 1);
    assert.equal(await facts.countVersionsWithValue("title"), 3);
    await t.services.db.insertInto("entry_drafts").values({
      id: crypto.randomUUID(),
      site_id: t.siteId,
      group_id: group,
      locale: "en",
      holder_id: t.adminId,
      fields: JSON.stringify({ summary: "draft" }),
      base_version_id: null,
      revision: 1,
      taken_over_from: null,
      taken_over_at: null,
      created_at: t.clock.now(),
      updated_at: t.clock.now(),
    }).execute();
    assert.equal(await facts.countVersionsWithValue("summary"), 2);
    assert.equal(await facts.countEntriesWithValue("summary"), 0);
  }));

Deno.test("entryContentFacts() counts entries sharing values, by model or by language; an empty member claims nothing", () =>
  withManageApp(async (t) => {
    const posts = await model(t, "posts");
    await insertEntry(t, posts, {
      en: { code: "A", n: 1 },
      de: { code: "A", n: 1 },
    });
    await insertEntry(t, posts, { de: { code: "A", n: 1 } });
    await insertEntry(t, posts, { en: { code: "B", n: 1 } });
    await insertEntry(t, posts, { de: { code: "B", n: "1" } });
    await insertEntry(t, posts, { en: { code: "", n: 2 } });
    await insertEntry(t, posts, { de: { code: " ", n: 2 } });
    const facts = entryContentFacts(t.services.db, t.siteId, { id: posts });
    // A and B are each held by two entries; per language only A repeats (in de).
    assert.equal(await facts.countDuplicateValues(["code"], "model"), 4);
    assert.equal(await facts.countDuplicateValues(["code"], "language"), 2);
    // "1" is not 1: values compare as typed JSON.
    assert.equal(await facts.countDuplicateValues(["code", "n"], "model"), 2);
    // 1 is held by three entries, 2 by two (blank codes do not matter here).
    assert.equal(await facts.countDuplicateValues(["n"], "model"), 5);
  }));
