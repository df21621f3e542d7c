// Suggestions past the window of the newest documents (PROBE_WINDOW, 1,000) and past the titles
// read from the prefix index (PREFIXED_MAX, 200): titles starting with the typed words always
// come first, newest first, wherever they are (SRCH-007, SRCH-011).
import { deepEqual } from "node:assert/strict";
import { sql } from "kysely";
import { systemClock } from "../clock.ts";
import { createModel } from "../models/store.ts";
import { loadModels } from "../models/store_rows.ts";
import { SETTINGS_DEFAULTS } from "../sites/settings_documents.ts";
import { openTestDb } from "../../tests/support/db.ts";
import { insertSite } from "../../tests/support/sites.ts";
import { searchPlan } from "./plan.ts";
import { suggest } from "./suggest.ts";

Deno.test("suggest puts titles starting with the words first, newest first, inside or outside the window, few or many", async () => {
  const { db, close } = await openTestDb();
  try {
    const siteId = await insertSite(db, { domain: "s.test" });
    const created = await createModel({ db, clock: systemClock, siteId }, {
      model: { name: "Posts", slug: "posts", description: "" },
      fields: [{ key: "title", label: "Title", type: "text", required: true }],
    });
    if (!created.ok) throw new Error(JSON.stringify(created));
    const models = await loadModels(db, siteId, [created.model_id!]);
    const plan = searchPlan(SETTINGS_DEFAULTS.search, models);
    // Documents as the indexer writes them for whole-word matching; document i is published
    // i minutes after the first, so the window of the newest 1,000 holds the highest numbers.
    const insert = (from: number, to: number, title: string) =>
      sql`
        insert into search_documents (site_id, entry_id, group_id, model_id, locale, slug,
          published_at, title, summary, is_english, field_words, field_stems, title_words,
          words, stems, parts)
        select ${siteId}, gen_random_uuid(), gen_random_uuid(), ${created.model_id}, 'en',
          ${title} || '-' || i, timestamptz '2026-01-01' + i * interval '1 minute', t, '', true,
          jsonb_build_object('title', ' ' || t || ' '),
          jsonb_build_object('title', ' ' || t || ' '),
          ' ' || t || ' ', v, v, v
        from generate_series(${from}::int, ${to}::int) i,
          lateral (select ${title} || ' ' || i as t) named,
          lateral (select array_to_tsvector(string_to_array(t, ' ')) as v) words
      `.execute(db);
    await insert(1, 3, "omega");
    await insert(4, 253, "zeta");
    await insert(254, 1253, "alpha");
    const ask = async (prefix: string, limit: number) =>
      (await suggest(db, plan, {
        siteId,
        locale: "en",
        words: [prefix],
        limit,
      })).map((r) => r.slug);
    const zeta = (...ids: number[]) => ids.map((i) => `zeta-${i}`);

    // Three titles start with "ome", all older than the window: all of them, newest first.
    deepEqual(await ask("ome", 5), ["omega-3", "omega-2", "omega-1"]);
    // 250 start with "zet" (more than are read from the prefix index), none in the window.
    deepEqual(await ask("zet", 5), zeta(253, 252, 251, 250, 249));
    // Five newer titles only contain the word: the old titles starting with it still come first.
    await insert(1254, 1258, "alpha zeta");
    deepEqual(await ask("zet", 5), zeta(253, 252, 251, 250, 249));
    deepEqual((await ask("zet", 10)).slice(5), zeta(248, 247, 246, 245, 244));
    // Five newer titles start with it: the window holds a page of five; a page of eight goes on
    // with the old ones, before any title that only contains the word.
    await insert(1259, 1263, "zeta");
    deepEqual(await ask("zet", 5), zeta(1263, 1262, 1261, 1260, 1259));
    deepEqual(
      await ask("zet", 8),
      zeta(1263, 1262, 1261, 1260, 1259, 253, 252, 251),
    );
  } finally {
    await close();
  }
});
