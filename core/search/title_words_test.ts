// The title word lists (migration 0239) that let a search find its top-ranked documents newest
// first: kept in step with `search_documents` by a trigger, and giving the very answers the
// spec's order asks for (title matches first, then newest; SRCH-001, SRCH-002), page by page.
import { deepEqual, equal } from "node:assert/strict";
import fc from "fast-check";
import { sql } from "kysely";
import type { Db } from "../db/database.ts";
import { systemClock } from "../clock.ts";
import { createModel } from "../models/store.ts";
import { loadModels } from "../models/store_rows.ts";
import { SETTINGS_DEFAULTS } from "../sites/settings_documents.ts";
import { openTestDb } from "../../tests/support/db.ts";
import { insertSite } from "../../tests/support/sites.ts";
import { searchPlan } from "./plan.ts";
import { search } from "./search.ts";

const VOCAB = ["alpha", "beta", "gamma", "delta", "omega"];

interface Doc {
  slug: string;
  model: string;
  title: string[];
  body: string[];
  /** Minutes after the first document. */
  at: number;
}

async function world(db: Db) {
  const siteId = await insertSite(db, { domain: "s.test" });
  const model = async (slug: string) => {
    const created = await createModel({ db, clock: systemClock, siteId }, {
      model: { name: slug, slug, description: "" },
      fields: [
        { key: "title", label: "Title", type: "text", required: true },
        { key: "body", label: "Body", type: "text" },
      ],
    });
    if (!created.ok) throw new Error(JSON.stringify(created));
    return created.model_id!;
  };
  // Posts are searched by default; notes are public but not searched.
  const posts = await model("posts");
  const notes = await model("notes");
  const models = await loadModels(db, siteId, [posts, notes]);
  /** The plan under search settings with these `types` (the defaults: none tuned). */
  const planWith = (
    types: typeof SETTINGS_DEFAULTS.search.types = [],
  ) => searchPlan({ ...SETTINGS_DEFAULTS.search, types }, models);
  return { siteId, posts, notes, plan: planWith(), planWith };
}

/** Writes documents as the indexer does for whole-word matching, in one statement. */
async function insertDocs(db: Db, siteId: string, docs: Doc[]): Promise<void> {
  if (docs.length === 0) return;
  await sql`
    insert into search_documents (site_id, entry_id, group_id, model_id, locale, slug,
      published_at, title, summary, is_english, field_words, field_stems, title_words,
      words, stems, parts)
    select ${siteId}, gen_random_uuid(), gen_random_uuid(), d.model, 'en', d.slug,
      timestamptz '2026-01-01' + d.at * interval '1 minute', d.title, '', false,
      jsonb_build_object('title', ' ' || d.title || ' ', 'body', ' ' || d.body || ' '),
      jsonb_build_object('title', ' ' || d.title || ' ', 'body', ' ' || d.body || ' '),
      ' ' || d.title || ' ',
      array_to_tsvector(string_to_array(btrim(d.title || ' ' || d.body), ' ')),
      array_to_tsvector(string_to_array(btrim(d.title || ' ' || d.body), ' ')),
      array_to_tsvector(string_to_array(btrim(d.title || ' ' || d.body), ' '))
    from jsonb_to_recordset(${
    JSON.stringify(docs.map((d) => ({
      ...d,
      title: d.title.join(" "),
      body: d.body.join(" "),
    })))
  }::jsonb) as d(slug text, model text, title text, body text, at int)
  `.execute(db);
}

/** Title word rows the documents call for and the table lacks, and rows it holds in excess. */
async function drift(db: Db, siteId: string): Promise<number> {
  const { rows } = await sql<{ n: number }>`
    select count(*)::int as n from (
      (select d.site_id, d.locale, w, d.published_at, d.entry_id
       from search_documents d, unnest(string_to_array(btrim(d.title_words), ' ')) w
       where d.site_id = ${siteId} and w <> ''
       except
       select site_id, locale, word, published_at, entry_id from search_title_words
       where site_id = ${siteId})
      union all
      (select site_id, locale, word, published_at, entry_id from search_title_words
       where site_id = ${siteId}
       except
       select d.site_id, d.locale, w, d.published_at, d.entry_id
       from search_documents d, unnest(string_to_array(btrim(d.title_words), ' ')) w
       where d.site_id = ${siteId} and w <> '')
    ) x
  `.execute(db);
  return rows[0].n;
}

/** Every page of a search, following its cursors. */
async function allPages(
  db: Db,
  plan: ReturnType<typeof searchPlan>,
  siteId: string,
  words: string[],
  limit: number,
): Promise<string[]> {
  const seen: string[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < 100; page++) {
    const r = await search({ db, clock: systemClock }, plan, {
      siteId,
      locale: "en",
      words,
      limit,
      cursor,
    });
    if (!r.ok) throw new Error(r.message);
    seen.push(...r.answer.data.map((d) => d.slug));
    if (!r.answer.page.next_cursor) return seen;
    cursor = r.answer.page.next_cursor;
  }
  throw new Error("more than 100 pages");
}

/** The spec's order: posts holding every word; title holders first; then newest. */
function expected(docs: Doc[], posts: string, words: string[]): string[] {
  const holds = (ws: string[]) => words.every((w) => ws.includes(w));
  return docs
    .filter((d) => d.model === posts && holds([...d.title, ...d.body]))
    .sort((a, b) =>
      Number(holds(b.title)) - Number(holds(a.title)) || b.at - a.at
    )
    .map((d) => d.slug);
}

Deno.test("search pages follow the spec's order through the title word lists, page by page; a trigger keeps the lists with their documents", async () => {
  const { db, close } = await openTestDb();
  try {
    const { siteId, posts, notes, plan } = await world(db);
    const words = fc.uniqueArray(fc.constantFrom(...VOCAB), {
      minLength: 1,
      maxLength: 3,
    });
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(
          fc.record({
            title: words,
            body: fc.uniqueArray(fc.constantFrom(...VOCAB), { maxLength: 3 }),
            notes: fc.boolean(),
            at: fc.integer({ min: 0, max: 10_000 }),
          }),
          { maxLength: 30, selector: (d) => d.at },
        ),
        words,
        fc.integer({ min: 1, max: 4 }),
        async (drawn, query, limit) => {
          const docs = drawn.map((d, i) => ({
            slug: `d${i}`,
            model: d.notes ? notes : posts,
            title: d.title,
            body: d.body,
            at: d.at,
          }));
          await insertDocs(db, siteId, docs);
          try {
            equal(await drift(db, siteId), 0);
            deepEqual(
              await allPages(db, plan, siteId, query, limit),
              expected(docs, posts, query),
            );
          } finally {
            await db.deleteFrom("search_documents")
              .where("site_id", "=", siteId).execute();
          }
          equal(await drift(db, siteId), 0);
        },
      ),
      { numRuns: 40 },
    );

    // Five title matches walked two at a time: each page starts below the last one served.
    const five = [1, 2, 3, 4, 5].map((at) => ({
      slug: `a${at}`,
      model: posts,
      title: ["alpha"],
      body: [],
      at,
    }));
    await insertDocs(db, siteId, five);
    deepEqual(await allPages(db, plan, siteId, ["alpha"], 2), [
      "a5",
      "a4",
      "a3",
      "a2",
      "a1",
    ]);
    await db.deleteFrom("search_documents").where("site_id", "=", siteId)
      .execute();

    // An update of a document's title words moves its rows with it.
    await insertDocs(db, siteId, [
      { slug: "u", model: posts, title: ["alpha"], body: [], at: 1 },
    ]);
    await sql`update search_documents set title_words = ' beta gamma ',
      published_at = published_at + interval '1 minute'
      where site_id = ${siteId}`.execute(db);
    equal(await drift(db, siteId), 0);
    const { rows } = await sql<{ word: string }>`
      select word from search_title_words where site_id = ${siteId} order by word
    `.execute(db);
    deepEqual(rows.map((r) => r.word), ["beta", "gamma"]);
  } finally {
    await close();
  }
});

Deno.test("a search whose window of title matches holds no searched type's page still finds the older ones", async () => {
  const { db, close } = await openTestDb();
  try {
    const { siteId, posts, notes, plan } = await world(db);
    const both = ["alpha", "beta"];
    // 1,100 newer notes hold both words in their title: more than the window of 1,000 the first
    // look reads, and none is of a searched type.
    const docs: Doc[] = [
      { slug: "p1", model: posts, title: both, body: [], at: 1 },
      { slug: "b1", model: posts, title: ["x"], body: both, at: 2 },
      { slug: "p2", model: posts, title: both, body: [], at: 3 },
      {
        slug: "p3",
        model: posts,
        title: ["beta", "x", "alpha"],
        body: [],
        at: 4,
      },
      { slug: "b2", model: posts, title: ["alpha"], body: ["beta"], at: 5 },
      ...Array.from({ length: 1100 }, (_, i) => ({
        slug: `n${i}`,
        model: notes,
        title: both,
        body: [],
        at: 100 + i,
      })),
    ];
    await insertDocs(db, siteId, docs);
    equal(await drift(db, siteId), 0);
    deepEqual(await allPages(db, plan, siteId, both, 2), [
      "p3",
      "p2",
      "p1",
      "b2",
      "b1",
    ]);
    deepEqual(
      await allPages(db, plan, siteId, ["beta"], 10),
      expected(docs, posts, ["beta"]),
    );
  } finally {
    await close();
  }
});

Deno.test("a tuned type whose top weight is not its title is searched without the title word lists", async () => {
  const { db, close } = await openTestDb();
  try {
    const { siteId, posts, planWith } = await world(db);
    const plan = planWith([{
      model: "posts",
      fields: [{ field: "title", weight: 1 }, {
        field: "body",
        weight: 10,
      }],
    }]);
    const both = ["alpha", "beta"];
    await insertDocs(db, siteId, [
      { slug: "title-old", model: posts, title: both, body: [], at: 1 },
      { slug: "body-old", model: posts, title: [], body: both, at: 2 },
      { slug: "title-new", model: posts, title: both, body: [], at: 3 },
      { slug: "split", model: posts, title: ["alpha"], body: ["beta"], at: 4 },
      { slug: "body-new", model: posts, title: ["x"], body: both, at: 5 },
    ]);
    // Body holders rank 10, title holders 1, a split match 0.
    deepEqual(await allPages(db, plan, siteId, both, 2), [
      "body-new",
      "body-old",
      "title-new",
      "title-old",
      "split",
    ]);
    // Three older posts hold the words in both fields: the title lists would offer a page of
    // them, and miss the newer post that holds them in its body alone.
    await insertDocs(db, siteId, [
      { slug: "both-1", model: posts, title: both, body: both, at: -3 },
      { slug: "both-2", model: posts, title: both, body: both, at: -2 },
      { slug: "both-3", model: posts, title: both, body: both, at: -1 },
    ]);
    deepEqual(await allPages(db, plan, siteId, both, 2), [
      "body-new",
      "body-old",
      "both-3",
      "both-2",
      "both-1",
      "title-new",
      "title-old",
      "split",
    ]);
  } finally {
    await close();
  }
});

Deno.test("a type matching parts of words is searched without the title word lists", async () => {
  const { db, close } = await openTestDb();
  try {
    const { siteId, posts, planWith } = await world(db);
    const plan = planWith([{
      model: "posts",
      fields: [],
      matching: "parts_of_words",
    }]);
    // Three older titles hold the query as a word of its own, a newer one inside a word.
    await insertDocs(db, siteId, [
      { slug: "word-1", model: posts, title: ["alp"], body: [], at: 1 },
      { slug: "word-2", model: posts, title: ["alp"], body: [], at: 2 },
      { slug: "word-3", model: posts, title: ["alp"], body: [], at: 3 },
      { slug: "inside", model: posts, title: ["alpine"], body: [], at: 4 },
    ]);
    deepEqual(await allPages(db, plan, siteId, ["alp"], 2), [
      "inside",
      "word-3",
      "word-2",
      "word-1",
    ]);
  } finally {
    await close();
  }
});
