// Suggestions past the window of the newest documents (PROBE_WINDOW, 1,000): titles starting with
// the typed words come from the window when it holds a full page, else from the whole site, so an
// old title is never missed and a new one is never passed over (SRCH-007, SRCH-011).
import { deepEqual } from "node:assert/strict";
import { sql } from "kysely";
import { systemClock } from "../clock.ts";
import { createModel } from "../models/store.ts";
import { loadModels } from "../models/store_rows.ts";
import { SETTINGS_DEFAULTS } from "../sites/settings_documents.ts";
import { openTestDb } from "../../tests/support/db.ts";
import { searchPlan } from "./plan.ts";
import { suggest } from "./suggest.ts";

Deno.test("suggest finds titles starting with the words beyond the newest 1,000 documents, newest first", async () => {
  const { db, close } = await openTestDb();
  try {
    const siteId = crypto.randomUUID();
    await db.insertInto("sites").values({
      id: siteId,
      slug: "s",
      name: "s",
      domain: "s.test",
      created_at: new Date(),
    }).execute();
    await db.insertInto("site_languages").values({
      site_id: siteId,
      code: "en",
      position: 0,
      is_default: true,
    }).execute();
    const created = await createModel({ db, clock: systemClock, siteId }, {
      model: { name: "Posts", slug: "posts", description: "" },
      fields: [{ key: "title", label: "Title", type: "text", required: true }],
    });
    if (!created.ok) throw new Error(JSON.stringify(created));
    const models = await loadModels(db, siteId, [created.model_id!]);
    const plan = searchPlan(SETTINGS_DEFAULTS.search, models);
    // Documents as the indexer writes them for whole-word matching; document i is i minutes
    // after the first. 1,010 of them: the 10 oldest are outside the window of the newest 1,000.
    const insert = (from: number, to: number, title: string) =>
      sql`
        insert into search_documents (site_id, entry_id, group_id, model_id, locale, slug,
          published_at, title, summary, is_english, field_words, field_stems, title_words,
          words, stems, parts)
        select ${siteId}, gen_random_uuid(), gen_random_uuid(), ${created.model_id}, 'en',
          ${title} || '-' || i, timestamptz '2026-01-01' + i * interval '1 minute',
          ${title} || ' ' || i, '', true,
          jsonb_build_object('title', ' ' || ${title} || ' ' || i || ' '),
          jsonb_build_object('title', ' ' || ${title} || ' ' || i || ' '),
          ' ' || ${title} || ' ' || i || ' ',
          array_to_tsvector(array[${title}, i::text]),
          array_to_tsvector(array[${title}, i::text]),
          array_to_tsvector(array[${title}, i::text])
        from generate_series(${from}::int, ${to}::int) i
      `.execute(db);
    await insert(1, 5, "zeta");
    await insert(6, 1005, "alpha");
    const ask = async (limit: number) =>
      (await suggest(db, plan, {
        siteId,
        locale: "en",
        words: ["zet"],
        limit,
      })).map((r) => r.slug);
    deepEqual(await ask(5), ["zeta-5", "zeta-4", "zeta-3", "zeta-2", "zeta-1"]);

    // Five newer ones fill a page of five from the window; a page of eight reaches the old ones.
    await insert(1006, 1010, "zeta");
    deepEqual(await ask(5), [
      "zeta-1010",
      "zeta-1009",
      "zeta-1008",
      "zeta-1007",
      "zeta-1006",
    ]);
    deepEqual(await ask(8), [
      "zeta-1010",
      "zeta-1009",
      "zeta-1008",
      "zeta-1007",
      "zeta-1006",
      "zeta-5",
      "zeta-4",
      "zeta-3",
    ]);
  } finally {
    await close();
  }
});
