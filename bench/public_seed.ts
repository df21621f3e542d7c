// The public-read benchmark's data: a site with a two-language Posts model of `entries`
// published entries, its read model and search documents, seeded in SQL (or the facts of a
// database an earlier run kept), and the title words the search scenarios ask for.
import { sql } from "kysely";
import { systemClock } from "../core/clock.ts";
import type { Db } from "../core/db/database.ts";
import { migrateToLatest } from "../core/db/migrate.ts";
import { createModel } from "../core/models/store.ts";
import { rebuildPublicItems } from "../core/public/projection.ts";
import { bulkIndexSite } from "../core/search/bulk_index.ts";
import { seedBenchPage } from "./pages_seed.ts";
import { seedEntries } from "./seed.ts";

/** Title words: entry i's English title is `Post <i> <VOCAB[i % 20]> <VOCAB[(i / 20) % 20]>`, so
 * each word is in about 10% of titles (5% twice). German titles use the same scheme with GERMAN. */
export const VOCAB = [
  "garden",
  "winter",
  "coffee",
  "travel",
  "music",
  "design",
  "harbor",
  "python",
  "market",
  "festival",
  "river",
  "mountain",
  "library",
  "kitchen",
  "cinema",
  "science",
  "forest",
  "bicycle",
  "theater",
  "summer",
];
export const GERMAN = [
  "garten",
  "winter",
  "kaffee",
  "reise",
  "musik",
  "entwurf",
  "hafen",
  "schlange",
  "markt",
  "fest",
  "fluss",
  "berg",
  "bibliothek",
  "küche",
  "kino",
  "wissenschaft",
  "wald",
  "fahrrad",
  "theater",
  "sommer",
];

/** Creates the site, its model and `entries` published entries in two languages, then the read
 * model and search documents; `vacuum analyze` last, as autovacuum would on a live database. */
export async function seedPublic(db: Db, entries: number): Promise<Seed> {
  await migrateToLatest(db);
  const siteId = crypto.randomUUID();
  await db.insertInto("sites").values({
    id: siteId,
    slug: "bench",
    name: "bench",
    domain: "127.0.0.1",
    created_at: new Date(),
  }).execute();
  await db.insertInto("site_languages").values([
    { site_id: siteId, code: "en", position: 0, is_default: true },
    { site_id: siteId, code: "de", position: 1, is_default: false },
  ]).execute();
  const made = await createModel({ db, clock: systemClock, siteId }, {
    model: { name: "Posts", slug: "posts", description: "", enableI18n: true },
    fields: [
      {
        key: "title",
        label: "Title",
        type: "text",
        required: true,
        localized: true,
      },
      {
        key: "category",
        label: "Category",
        type: "select",
        config: { options: ["news", "guide", "release", "opinion"] },
      },
      { key: "price", label: "Price", type: "number" },
      { key: "published_on", label: "Date", type: "date" },
      { key: "happened_at", label: "Happened at", type: "datetime" },
    ],
  });
  if (!made.ok) {
    throw new Error(`Cannot create the bench model: ${JSON.stringify(made)}`);
  }
  const modelId = made.model_id!;

  const seedStart = performance.now();
  await seedEntries(db, {
    siteId,
    modelId,
    count: entries,
    languages: ["en", "de"],
    title: sql<string>`case when l = 'en'
      then 'Post ' || i || ' ' || (${VOCAB}::text[])[1 + i % 20] || ' ' || (${VOCAB}::text[])[1 + (i / 20) % 20]
      else 'Beitrag ' || i || ' ' || (${GERMAN}::text[])[1 + i % 20] || ' ' || (${GERMAN}::text[])[1 + (i / 20) % 20] end`,
    fields: sql`jsonb_build_object(
      'category', (array['news', 'guide', 'release', 'opinion'])[1 + i % 4],
      'price', (i::bigint * 7919) % 1000,
      'published_on', to_char(date '2020-01-01' + (i / 100), 'YYYY-MM-DD'),
      -- Three zones, so the text order of the values is not their time order.
      'happened_at', to_char(timestamp '2021-01-01' + ((i::bigint * 7919) % 100003) * interval '1 minute',
        'YYYY-MM-DD"T"HH24:MI:SS') || (array['Z', '+02:00', '-05:30'])[1 + i % 3])`,
    draft: sql<boolean>`false`,
    publishedAt: sql<
      Date
    >`timestamptz '2020-01-01' + i * interval '1 minute' + (i % 997) * interval '1 microsecond'`,
    changedAt: sql<Date>`now()`,
  });
  await rebuildPublicItems(db, siteId);
  const { pagesModelId } = await seedBenchPage(db, siteId);
  // Statistics first: without them the indexer's batch join gets a nested-loop plan.
  await sql`analyze`.execute(db);
  const indexStart = performance.now();
  const documents = await bulkIndexSite(db, siteId);
  const indexSeconds = (performance.now() - indexStart) / 1000;
  await sql`vacuum analyze`.execute(db);
  const seedSeconds = (performance.now() - seedStart) / 1000;
  const counted = await sql<
    { n: number }
  >`select count(*)::int as n from public_items where model_id = ${modelId}`
    .execute(db);
  console.log(
    `seeded ${entries} entries x 2 languages (${
      counted.rows[0].n
    } public rows, ${documents} search documents) in ${
      seedSeconds.toFixed(1)
    } s (search documents: ${indexSeconds.toFixed(1)} s)`,
  );
  return {
    siteId,
    modelId,
    pagesModelId,
    entries: entries,
    publicRows: counted.rows[0].n,
    seedSeconds,
    documents,
    indexSeconds,
  };
}

/** The seed facts of a database an earlier run kept, after the migrations added since. */
export async function readPublicSeed(db: Db): Promise<Seed> {
  // As after seeding: statistics and a clean visibility map, as autovacuum would leave them.
  if ((await migrateToLatest(db)).length > 0) {
    await sql`vacuum analyze`.execute(db);
  }
  const site = await db.selectFrom("sites").select("id").where(
    "slug",
    "=",
    "bench",
  ).executeTakeFirstOrThrow();
  const modelOf = async (slug: string) =>
    (await db.selectFrom("models").select("id").where("site_id", "=", site.id)
      .where("slug", "=", slug).executeTakeFirstOrThrow()).id;
  const model = { id: await modelOf("posts") };
  const count = async (table: "public_items" | "search_documents") =>
    (await sql<{ n: number }>`select count(*)::int as n from ${
      sql.table(table)
    }`.execute(db)).rows[0].n;
  const publicRows = (await sql<{ n: number }>`select count(*)::int as n
    from public_items where model_id = ${model.id}`.execute(db)).rows[0].n;
  return {
    siteId: site.id,
    modelId: model.id,
    pagesModelId: await modelOf("pages"),
    entries: publicRows / 2,
    publicRows,
    seedSeconds: 0,
    documents: await count("search_documents"),
    indexSeconds: 0,
  };
}

export interface Seed {
  siteId: string;
  modelId: string;
  pagesModelId: string;
  entries: number;
  publicRows: number;
  seedSeconds: number;
  documents: number;
  indexSeconds: number;
}
