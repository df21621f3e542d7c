// Long on purpose: every search and suggestion parameter against one indexed world.
// /v1/_search and /v1/_search/suggest over HTTP (SRCH-001 to SRCH-013, SRCH-016 to SRCH-026).
// deno-lint-ignore-file no-explicit-any -- answers are parsed JSON checked field by field
import assert from "node:assert/strict";
import { sql } from "kysely";
import { articleModels, type AuxWorld, openAuxWorld } from "./helpers.ts";

/**
 * Writes the `search` settings document directly: `matching` per type is not in the settings
 * schema yet (docs/sync-and-search.md), so tests store it the way a migrated schema would.
 */
async function searchSettings(
  w: AuxWorld,
  types: {
    model: string;
    fields: { field: string; weight: number }[];
    matching?: string;
  }[],
  enabled = true,
): Promise<void> {
  const document = JSON.stringify({ enabled, types });
  await w.services.db.insertInto("site_settings").values({
    site_id: w.siteId,
    key: "search",
    document,
    revision: 1,
    updated_at: new Date(),
    updated_by: null,
  }).onConflict((oc) =>
    oc.columns(["site_id", "key"]).doUpdateSet({
      document,
      revision: sql`site_settings.revision + 1`,
    })
  ).execute();
}

async function item(
  w: AuxWorld,
  model: string,
  slug: string,
  fields: Record<string, unknown>,
  locale = "en",
): Promise<string> {
  const saved = await w.save({ model, locale, slug, fields });
  await w.publish(saved.group_id);
  w.clock.advance(60_000);
  return saved.group_id;
}

async function slugs(w: AuxWorld, query: string): Promise<string[]> {
  const r = await w.json(`/v1/_search?${query}`);
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body.data.map((d: { slug: string }) => d.slug);
}

Deno.test("/v1/_search: every word must match; title matches first, then newest; results carry kind, model, slug, locale (SRCH-001, SRCH-002, SRCH-003)", async () => {
  const w = await openAuxWorld();
  try {
    const { articles } = await articleModels(w);
    await searchSettings(w, [{ model: "articles", fields: [] }]);
    await item(w, articles, "body-old", {
      title: "Shop news",
      body: "Red shoes are back",
    });
    await item(w, articles, "title-hit", {
      title: "Red shoes",
      body: "Nothing else",
    });
    await item(w, articles, "body-new", {
      title: "Latest",
      body: "Shoes, red ones!",
    });
    await item(w, articles, "one-word", {
      title: "Red hats",
      body: "Only hats",
    });
    assert.deepEqual(await slugs(w, "q=red%20shoes"), [
      "title-hit",
      "body-new",
      "body-old",
    ]);
    const r = await w.json("/v1/_search?q=red+shoes&limit=1");
    assert.deepEqual(Object.keys(r.body.data[0]).sort(), [
      "kind",
      "locale",
      "model",
      "slug",
      "summary",
      "title",
    ]);
    assert.deepEqual(r.body.data[0], {
      kind: "item",
      model: "articles",
      slug: "title-hit",
      locale: "en",
      title: "Red shoes",
      summary: "Nothing else",
    });
    assert.equal(r.res.headers.get("cache-control"), "no-store");
  } finally {
    await w.close();
  }
});

Deno.test("/v1/_search matching modes: whole words, English word forms (en only), parts of words, space-less runs (SRCH-020, SRCH-021, SRCH-022)", async () => {
  const w = await openAuxWorld();
  try {
    const { articles } = await articleModels(w);
    await item(w, articles, "runner", {
      title: "We run daily",
      body: "東京タワーの夜",
    });
    await item(w, articles, "laufen", { title: "We run daily" }, "de");
    await searchSettings(w, [{ model: "articles", fields: [] }]);
    assert.deepEqual(await slugs(w, "q=running"), []);
    assert.deepEqual(await slugs(w, "q=ru"), []);
    assert.deepEqual(await slugs(w, "q=東京"), []);
    assert.deepEqual(
      await slugs(w, `q=${encodeURIComponent("東京タワーの夜")}`),
      ["runner"],
    );
    await searchSettings(w, [{
      model: "articles",
      fields: [],
      matching: "english_word_forms",
    }]);
    assert.deepEqual(await slugs(w, "q=running"), ["runner"]);
    assert.deepEqual(
      await slugs(w, "q=running&locale=de"),
      [],
      "de follows whole words",
    );
    assert.deepEqual(await slugs(w, "q=run&locale=de"), ["laufen"]);
    await searchSettings(w, [{
      model: "articles",
      fields: [],
      matching: "parts_of_words",
    }]);
    assert.deepEqual(await slugs(w, "q=aily"), ["runner"]);
    assert.deepEqual(await slugs(w, "q=タワー"), ["runner"]);
    assert.deepEqual(await slugs(w, "q=running"), []);
  } finally {
    await w.close();
  }
});

Deno.test("/v1/_search finds items by linked names only while the linked item is live, public and not in Trash; summaries never show them (SRCH-023, SRCH-024)", async () => {
  const w = await openAuxWorld();
  try {
    const { articles, people } = await articleModels(w);
    await searchSettings(w, [{ model: "articles", fields: [] }]);
    const ada = await item(w, people, "ada", { name: "Ada Lovelace" });
    await item(w, articles, "engine", {
      title: "Analytical engine",
      author: ada,
    });
    const found = await w.json("/v1/_search?q=lovelace");
    assert.deepEqual(found.body.data.map((d: any) => d.slug), ["engine"]);
    assert.ok(!JSON.stringify(found.body).includes("Ada"), "linked name shown");
    await w.trash(ada);
    assert.deepEqual(await slugs(w, "q=lovelace"), []);
    await w.restore(ada);
    assert.deepEqual(await slugs(w, "q=lovelace"), ["engine"]);
    await w.unpublish(ada);
    assert.deepEqual(await slugs(w, "q=lovelace"), []);
    await w.publish(ada);
    assert.deepEqual(await slugs(w, "q=lovelace"), ["engine"]);
    // A private relation field or a private target type adds nothing (MOD-029).
    const memosPeople = await w.model({
      model: { name: "Staff", slug: "staff", isPublic: false },
      fields: [{ key: "name", label: "Name", type: "text" }],
    });
    const notes = await w.model({
      model: { name: "Notes", slug: "notes" },
      fields: [
        { key: "title", label: "Title", type: "text" },
        {
          key: "owner",
          label: "Owner",
          type: "relation",
          private: true,
          config: { targets: [people], cardinality: "many-to-one" },
        },
        {
          key: "staff",
          label: "Staff",
          type: "relation",
          config: { targets: [memosPeople], cardinality: "many-to-one" },
        },
      ],
    });
    await searchSettings(w, [{ model: "articles", fields: [] }, {
      model: "notes",
      fields: [],
    }]);
    const grace = await item(w, memosPeople, "grace", { name: "Grace Hopper" });
    await item(w, notes, "note", { title: "A note", owner: ada, staff: grace });
    assert.deepEqual(await slugs(w, "q=hopper"), []);
    assert.deepEqual(await slugs(w, "q=lovelace"), ["engine"]);
  } finally {
    await w.close();
  }
});

Deno.test("/v1/_search never shows drafts, private types or fields, Trash, unpublished languages or items hidden from search engines (SRCH-016, SRCH-025)", async () => {
  const w = await openAuxWorld();
  try {
    const { articles, memos } = await articleModels(w);
    await searchSettings(w, [{ model: "articles", fields: [] }, {
      model: "memos",
      fields: [],
    }]);
    await item(w, memos, "memo", { title: "Zebra memo" });
    await w.save({
      model: articles,
      locale: "en",
      slug: "draft",
      fields: { title: "Zebra draft" },
    });
    await item(w, articles, "secret", { title: "Plain", secret: "zebra" });
    const trashed = await item(w, articles, "trashed", {
      title: "Zebra trashed",
    });
    await w.trash(trashed);
    const both = await item(w, articles, "both", { title: "Zebra both" });
    await w.save({
      group: both,
      locale: "de",
      slug: "both-de",
      fields: { title: "Zebra beide" },
    });
    await w.publish(both, "de");
    await w.unpublish(both, "en");
    const hidden = await w.model({
      model: { name: "Hidden", slug: "hidden" },
      fields: [
        { key: "title", label: "Title", type: "text" },
        { key: "noindex", label: "Hide from search engines", type: "boolean" },
      ],
    });
    await searchSettings(w, [
      { model: "articles", fields: [] },
      { model: "memos", fields: [] },
      { model: "hidden", fields: [] },
    ]);
    await item(w, hidden, "hid", { title: "Zebra hidden", noindex: true });
    await item(w, hidden, "shown", { title: "Zebra shown", noindex: false });
    assert.deepEqual(await slugs(w, "q=zebra"), ["shown"]);
    assert.deepEqual(await slugs(w, "q=zebra&locale=de"), ["both-de"]);
  } finally {
    await w.close();
  }
});

Deno.test("/v1/_search tuned types match ticked fields only and rank by the highest weight; a change applies at once and refuses older cursors (SRCH-004, SRCH-013, SRCH-017, SRCH-019)", async () => {
  const w = await openAuxWorld();
  try {
    const { articles } = await articleModels(w);
    await item(w, articles, "in-title", { title: "Kiwi", body: "fruit" });
    await item(w, articles, "in-body", { title: "Fruit", body: "kiwi" });
    await item(w, articles, "in-both", {
      title: "Kiwi again",
      body: "kiwi too",
    });
    await searchSettings(w, [{ model: "articles", fields: [] }]);
    assert.deepEqual(await slugs(w, "q=kiwi"), [
      "in-both",
      "in-title",
      "in-body",
    ]);
    const first = await w.json("/v1/_search?q=kiwi&limit=1");
    assert.equal(first.body.page.has_more, true);
    const cursor = encodeURIComponent(first.body.page.next_cursor);
    const second = await w.json(`/v1/_search?q=kiwi&limit=1&cursor=${cursor}`);
    assert.deepEqual(second.body.data.map((d: any) => d.slug), ["in-title"]);
    const third = await w.json(
      `/v1/_search?q=kiwi&limit=2&cursor=${
        encodeURIComponent(second.body.page.next_cursor)
      }`,
    );
    assert.deepEqual(third.body.data.map((d: any) => d.slug), ["in-body"]);
    assert.deepEqual(third.body.page, {
      limit: 2,
      has_more: false,
      next_cursor: null,
    });
    // The cursor belongs to its query.
    const other = await w.json(`/v1/_search?q=fruit&limit=1&cursor=${cursor}`);
    assert.equal(other.body.error.code, "public_search_invalid");
    // Body weighs more than title now; only body is ticked.
    await searchSettings(w, [{
      model: "articles",
      fields: [{ field: "body", weight: 7 }],
    }]);
    const stale = await w.json(`/v1/_search?q=kiwi&limit=1&cursor=${cursor}`);
    assert.equal(stale.status, 400);
    assert.equal(stale.body.error.code, "public_search_invalid");
    assert.deepEqual(await slugs(w, "q=kiwi"), ["in-both", "in-body"]);
    await searchSettings(w, [{
      model: "articles",
      fields: [{ field: "title", weight: 2 }, { field: "body", weight: 9 }],
    }]);
    assert.deepEqual(await slugs(w, "q=kiwi"), [
      "in-both",
      "in-body",
      "in-title",
    ]);
    await searchSettings(w, [{
      model: "articles",
      fields: [{ field: "title", weight: 10 }, { field: "body", weight: 1 }],
    }]);
    assert.deepEqual(await slugs(w, "q=kiwi"), [
      "in-both",
      "in-title",
      "in-body",
    ]);
  } finally {
    await w.close();
  }
});

Deno.test("/v1/_search limits: q 1 to 200 characters, 32 words, limit 1 to 50, known parameters once; off and unavailable answers (SRCH-005, SRCH-006)", async () => {
  const w = await openAuxWorld();
  try {
    const { articles } = await articleModels(w);
    await item(w, articles, "a", { title: "Alpha" });
    const ok = [
      "q=a",
      `q=${"a".repeat(200)}`,
      `q=${Array.from({ length: 32 }, (_, i) => `w${i}`).join("+")}`,
      "q=alpha&limit=1",
      "q=alpha&limit=50",
      "q=alpha&locale=de",
    ];
    for (const query of ok) {
      assert.equal((await w.json(`/v1/_search?${query}`)).status, 200, query);
    }
    const bad = [
      "",
      "q=",
      `q=${"a".repeat(201)}`,
      `q=${Array.from({ length: 33 }, (_, i) => `w${i}`).join("+")}`,
      "q=%21%21",
      "q=alpha&limit=0",
      "q=alpha&limit=51",
      "q=alpha&q=beta",
      "q=alpha&locale=xx",
      "q=alpha&page=2",
      "q=alpha&cursor=forged",
    ];
    for (const query of bad) {
      const r = await w.json(`/v1/_search?${query}`);
      assert.equal(r.status, 400, query);
      assert.equal(r.body.error.code, "public_search_invalid", query);
    }
    await searchSettings(w, [], false);
    for (
      const path of [
        "/v1/_search?q=alpha",
        "/v1/_search/suggest?q=al&locale=en",
      ]
    ) {
      const off = await w.json(path);
      assert.equal(off.status, 404);
      assert.equal(off.body.error.code, "search_off");
    }
    await searchSettings(w, [], true);
    assert.deepEqual(
      await slugs(w, "q=alpha"),
      [],
      "articles are not searched unless added",
    );
    await searchSettings(w, [{ model: "articles", fields: [] }]);
    await sql`alter table search_documents rename to search_documents_away`
      .execute(w.services.db);
    for (
      const path of [
        "/v1/_search?q=alpha",
        "/v1/_search/suggest?q=al&locale=en",
      ]
    ) {
      const down = await w.json(path);
      assert.equal(down.status, 503);
      assert.equal(down.body.error.code, "search_unavailable");
    }
    await sql`alter table search_documents_away rename to search_documents`
      .execute(w.services.db);
    assert.deepEqual(await slugs(w, "q=alpha"), ["a"]);
  } finally {
    await w.close();
  }
});

Deno.test("/v1/_search/suggest: q 2 to 100 characters once, locale once, limit 1 to 10 default 5; unfinished last word; title order (SRCH-007 to SRCH-011)", async () => {
  const w = await openAuxWorld();
  try {
    const { articles } = await articleModels(w);
    await searchSettings(w, [{ model: "articles", fields: [] }]);
    await item(w, articles, "rest", {
      title: "Catalogue",
      body: "red shoes inside",
    });
    await item(w, articles, "contains", { title: "Our red shoes", body: "x" });
    await item(w, articles, "starts", { title: "Red shoes sale", body: "x" });
    for (let i = 0; i < 4; i++) {
      await item(w, articles, `more-${i}`, { title: `Red shoelaces ${i}` });
    }
    const r = await w.json("/v1/_search/suggest?q=red%20sho&locale=en");
    assert.equal(r.status, 200);
    // SRCH-008: the answer is { query, data, limit, locale }; items have the search-result fields.
    assert.deepEqual(Object.keys(r.body).sort(), [
      "data",
      "limit",
      "locale",
      "query",
    ]);
    assert.equal(r.body.query, "red sho");
    assert.equal(r.body.locale, "en");
    for (const found of r.body.data) {
      assert.deepEqual(Object.keys(found).sort(), [
        "kind",
        "locale",
        "model",
        "slug",
        "summary",
        "title",
      ]);
    }
    assert.deepEqual(r.body.data[4], {
      kind: "item",
      model: "articles",
      slug: "starts",
      locale: "en",
      title: "Red shoes sale",
      summary: "x",
    });
    // SRCH-009: without `limit`, at most five suggestions (seven items match).
    assert.equal(r.body.limit, 5);
    assert.equal(r.body.data.length, 5);
    // SRCH-010: the unfinished last word "sho" matches the start of "shoes" and "shoelaces".
    // Five titles start with the words: titles containing them are not even looked for.
    const starting = ["more-3", "more-2", "more-1", "more-0", "starts"];
    const slugsOf = async (limit: number) =>
      (await w.json(`/v1/_search/suggest?q=red%20sho&locale=en&limit=${limit}`))
        .body.data.map((d: any) => d.slug);
    assert.deepEqual(r.body.data.map((d: any) => d.slug), starting);
    assert.deepEqual(await slugsOf(6), [...starting, "contains"]);
    assert.deepEqual(await slugsOf(10), [...starting, "contains", "rest"]);
    // SRCH-010: under whole words the unfinished word matches only the start of a word...
    assert.deepEqual(
      (await w.json("/v1/_search/suggest?q=hoes&locale=en")).body.data,
      [],
    );
    await searchSettings(w, [{
      model: "articles",
      fields: [],
      matching: "parts_of_words",
    }]);
    // ...and anywhere inside a word under Parts of words (SRCH-010).
    const inside = await w.json(
      "/v1/_search/suggest?q=hoes&locale=en&limit=10",
    );
    assert.equal(inside.body.data.length, 3);
    const ok = [
      "q=ab&locale=en",
      `q=${"a".repeat(100)}&locale=en`,
      "q=ab&locale=en&limit=1",
      "q=ab&locale=en&limit=10",
    ];
    for (const query of ok) {
      assert.equal(
        (await w.json(`/v1/_search/suggest?${query}`)).status,
        200,
        query,
      );
    }
    const bad = [
      "q=a&locale=en",
      `q=${"a".repeat(101)}&locale=en`,
      "q=ab&q=cd&locale=en",
      "q=ab",
      "q=ab&locale=en&locale=de",
      "q=ab&locale=en&limit=0",
      "q=ab&locale=en&limit=11",
      "q=ab&locale=en&cursor=x",
    ];
    for (const query of bad) {
      const res = await w.json(`/v1/_search/suggest?${query}`);
      assert.equal(res.status, 400, query);
      assert.equal(res.body.error.code, "public_search_invalid", query);
    }
  } finally {
    await w.close();
  }
});

Deno.test("/v1/_search stores and logs nothing about what visitors type (SRCH-026)", async () => {
  const w = await openAuxWorld();
  try {
    const { articles } = await articleModels(w);
    await searchSettings(w, [{ model: "articles", fields: [] }]);
    await item(w, articles, "a", { title: "Alpha" });
    const count = async () => {
      const { rows } = await sql<{ n: number }>`
        select (select count(*) from search_documents) + (select count(*) from sync_changes)
          + (select count(*) from audit_entries) + (select count(*) from instance_keys) as n
      `.execute(w.services.db);
      return Number(rows[0].n);
    };
    await w.json("/v1/_search?q=warmup"); // creates the cursor key once
    const before = await count();
    await w.json("/v1/_search?q=xylophonequery");
    await w.json("/v1/_search/suggest?q=xylophonesuggest&locale=en");
    assert.equal(await count(), before);
    assert.ok(!JSON.stringify(w.logs).includes("xylophone"));
    const { rows } = await sql<{ n: number }>`
      select count(*) as n from site_settings where document::text like '%xylophone%'
    `.execute(w.services.db);
    assert.equal(Number(rows[0].n), 0);
  } finally {
    await w.close();
  }
});

Deno.test("/v1/_search always covers published pages and posts; up to 16 other public types may be added, a 17th is refused (SRCH-015)", async () => {
  const w = await openAuxWorld();
  try {
    const titled = (slug: string) =>
      w.model({
        model: { name: slug, slug },
        fields: [{ key: "title", label: "Title", type: "text" }],
      });
    const pages = await titled("pages");
    const posts = await titled("posts");
    const { articles } = await articleModels(w);
    await item(w, pages, "page", { title: "Zebra page" });
    await item(w, posts, "post", { title: "Zebra post" });
    await item(w, articles, "article", { title: "Zebra article" });
    await searchSettings(w, []);
    assert.deepEqual(await slugs(w, "q=zebra"), ["post", "page"]);
    const others = ["articles"];
    for (let i = 1; i < 16; i++) others.push(await titled(`extra-${i}`));
    const types = (models: string[]) =>
      models.map((model) => ({ model, fields: [] }));
    await w.settings("search", { enabled: true, types: types(others) });
    assert.deepEqual(await slugs(w, "q=zebra"), ["article", "post", "page"]);
    const before = await w.services.db.selectFrom("site_settings")
      .select(["document", "revision"]).where("site_id", "=", w.siteId)
      .where("key", "=", "search").executeTakeFirstOrThrow();
    await assert.rejects(
      w.settings("search", {
        enabled: true,
        types: types([...others, await titled("extra-16")]),
      }),
      /input_invalid/,
    );
    const after = await w.services.db.selectFrom("site_settings")
      .select(["document", "revision"]).where("site_id", "=", w.siteId)
      .where("key", "=", "search").executeTakeFirstOrThrow();
    assert.deepEqual(after, before);
    assert.deepEqual(await slugs(w, "q=zebra"), ["article", "post", "page"]);
  } finally {
    await w.close();
  }
});

Deno.test("/v1/_search: an untuned type counts its title match as 10 against tuned weights (SRCH-018)", async () => {
  const w = await openAuxWorld();
  try {
    const { articles } = await articleModels(w);
    const notes = await w.model({
      model: { name: "Notes", slug: "notes" },
      fields: [
        { key: "title", label: "Title", type: "text" },
        { key: "body", label: "Body", type: "text" },
      ],
    });
    await item(w, articles, "article-title", { title: "Quokka", body: "x" });
    await item(w, articles, "article-body", { title: "Other", body: "quokka" });
    await item(w, notes, "note-body", { title: "Note", body: "quokka" });
    const tuned = (weight: number) =>
      searchSettings(w, [{ model: "articles", fields: [] }, {
        model: "notes",
        fields: [{ field: "body", weight }],
      }]);
    // Weight 9 ranks below the untuned title; 10 ties with it, and the newest comes first.
    await tuned(9);
    assert.deepEqual(await slugs(w, "q=quokka"), [
      "article-title",
      "note-body",
      "article-body",
    ]);
    await tuned(10);
    assert.deepEqual(await slugs(w, "q=quokka"), [
      "note-body",
      "article-title",
      "article-body",
    ]);
  } finally {
    await w.close();
  }
});
