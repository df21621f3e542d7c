// The bulk indexer writes exactly the rows `reindexSite` writes, on PGlite and on PostgreSQL (when
// DATABASE_URL is set).
import { deepEqual as assertEquals, rejects } from "node:assert/strict";
import { sql } from "kysely";
import { systemClock } from "../clock.ts";
import { type Db, openDatabase } from "../db/database.ts";
import { migrateToLatest } from "../db/migrate.ts";
import { createModel } from "../models/store.ts";
import { createScratchDatabase } from "../../tests/support/db.ts";
import { bulkIndexSite } from "./bulk_index.ts";
import { reindexSite } from "./index_documents.ts";

async function seed(db: Db): Promise<string> {
  const siteId = crypto.randomUUID();
  await db.insertInto("sites").values({
    id: siteId,
    slug: "s",
    name: "s",
    domain: "s.test",
    created_at: new Date(),
  }).execute();
  await db.insertInto("site_languages").values([
    { site_id: siteId, code: "en", position: 0, is_default: true },
    { site_id: siteId, code: "de", position: 1, is_default: false },
  ]).execute();
  const ctx = { db, clock: systemClock, siteId };
  const posts = await createModel(ctx, {
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
        config: { options: ["news", "guide"] },
      },
      { key: "price", label: "Price", type: "number" },
    ],
  });
  const notes = await createModel(ctx, {
    model: { name: "Notes", slug: "notes", description: "", enableI18n: true },
    fields: [
      { key: "name", label: "Name", type: "text", localized: true },
      { key: "secret", label: "Secret", type: "text", private: true },
      { key: "body", label: "Body", type: "rich_text", localized: true },
      { key: "tags", label: "Tags", type: "text", localized: true },
    ],
  });
  const hidden = await createModel(ctx, {
    model: {
      name: "Hidden",
      slug: "hidden",
      description: "",
      enableI18n: false,
      isPublic: false,
    },
    fields: [{ key: "title", label: "Title", type: "text" }],
  });
  if (!posts.ok || !notes.ok || !hidden.ok) {
    throw new Error(JSON.stringify([posts, notes, hidden]));
  }
  const values: [string, Record<string, unknown>, boolean][] = [
    [posts.model_id!, {
      title: "  Running Dogs ran fast ",
      category: "news",
      price: 3,
    }, true],
    [posts.model_id!, {
      title: "The Ünïcode café—Straße 42",
      category: "guide",
    }, true],
    [posts.model_id!, { title: "Hidden one", noindex: true }, true],
    [posts.model_id!, { title: "Never published" }, false],
    [posts.model_id!, { category: "news" }, true],
    [notes.model_id!, {
      name: "Note A",
      secret: "password",
      body: "<p>Hello &amp; <b>welcome</b> to the studies</p>",
      tags: ["alpha", "beta gamma"],
    }, true],
    [notes.model_id!, { body: "x".repeat(200) + " long" }, true],
    [hidden.model_id!, { title: "Private words" }, true],
  ];
  let n = 0;
  for (const [modelId, fields, published] of values) {
    n++;
    const groupId = crypto.randomUUID();
    await db.insertInto("entry_groups").values({
      id: groupId,
      site_id: siteId,
      model_id: modelId,
      primary_entry_id: crypto.randomUUID(),
      created_by: null,
      revision: 1,
      current_version_id: null,
      created_at: new Date(),
      updated_at: new Date(),
    }).execute();
    for (const locale of ["en", "de"]) {
      const entryId = crypto.randomUUID();
      const versionId = crypto.randomUUID();
      await db.insertInto("entries").values({
        id: entryId,
        site_id: siteId,
        group_id: groupId,
        model_id: modelId,
        locale,
        slug: `${locale}-item-${n}`,
        current_version_id: versionId,
        published_version_id: published ? versionId : null,
        published_at: published ? new Date(Date.UTC(2024, 0, n)) : null,
        created_at: new Date(),
        updated_at: new Date(),
      }).execute();
      await db.insertInto("entry_versions").values({
        id: versionId,
        site_id: siteId,
        group_id: groupId,
        entry_id: entryId,
        locale,
        number: locale === "en" ? 1 : 2,
        fields: JSON.stringify(fields),
        created_by: '{"kind":"person"}',
        created_at: new Date(),
      }).execute();
    }
  }
  // One trashed group: no documents.
  const trashed = crypto.randomUUID();
  await db.insertInto("entry_groups").values({
    id: trashed,
    site_id: siteId,
    model_id: posts.model_id!,
    primary_entry_id: crypto.randomUUID(),
    created_by: null,
    revision: 1,
    current_version_id: null,
    created_at: new Date(),
    updated_at: new Date(),
    trashed_at: new Date(),
  }).execute();
  const e = crypto.randomUUID();
  await db.insertInto("entries").values({
    id: e,
    site_id: siteId,
    group_id: trashed,
    model_id: posts.model_id!,
    locale: "en",
    slug: "trashed",
    current_version_id: e,
    published_version_id: e,
    published_at: new Date(),
    created_at: new Date(),
    updated_at: new Date(),
  }).execute();
  await db.insertInto("entry_versions").values({
    id: e,
    site_id: siteId,
    group_id: trashed,
    entry_id: e,
    locale: "en",
    number: 1,
    fields: JSON.stringify({ title: "Trashed post" }),
    created_by: '{"kind":"person"}',
    created_at: new Date(),
  }).execute();
  return siteId;
}

async function documents(db: Db, siteId: string) {
  return (await sql<Record<string, string>>`
    select entry_id::text, group_id::text, model_id, locale, slug, published_at::text, title,
      summary, is_english::text, field_words::text, field_stems::text, title_words,
      words::text, stems::text, parts::text
    from search_documents where site_id = ${siteId} order by entry_id
  `.execute(db)).rows;
}

async function sameRows(db: Db) {
  await migrateToLatest(db);
  const siteId = await seed(db);
  await reindexSite(db, siteId);
  const expected = await documents(db, siteId);
  assertEquals(expected.length, 10); // 5 public, unhidden, published groups x 2 languages
  await db.deleteFrom("search_documents").execute();
  assertEquals(await bulkIndexSite(db, siteId, { batch: 3 }), 10);
  assertEquals(await documents(db, siteId), expected);
  // Idempotent: a second run replaces the documents.
  await bulkIndexSite(db, siteId);
  assertEquals(await documents(db, siteId), expected);
}

Deno.test("bulkIndexSite writes the rows of reindexSite (PGlite)", async () => {
  const db = await openDatabase({ pglitePath: null });
  try {
    await sameRows(db);
  } finally {
    await db.destroy();
  }
});

const url = Deno.env.get("DATABASE_URL");
Deno.test({
  name: "bulkIndexSite writes the rows of reindexSite (PostgreSQL)",
  ignore: !url,
  async fn() {
    const scratch = await createScratchDatabase(url!);
    const db = await openDatabase({ url: scratch.url });
    try {
      await sameRows(db);
    } finally {
      await db.destroy();
      await scratch.drop();
    }
  },
});

Deno.test("bulkIndexSite refuses models with relation fields", async () => {
  const db = await openDatabase({ pglitePath: null });
  try {
    await migrateToLatest(db);
    const siteId = await seed(db);
    const postsId = (await db.selectFrom("models").select("id")
      .where("site_id", "=", siteId).where("slug", "=", "posts")
      .executeTakeFirstOrThrow()).id;
    const made = await createModel({ db, clock: systemClock, siteId }, {
      model: {
        name: "Links",
        slug: "links",
        description: "",
        enableI18n: false,
      },
      fields: [
        { key: "title", label: "Title", type: "text" },
        {
          key: "see",
          label: "See",
          type: "relation",
          config: { targets: [postsId], cardinality: "many-to-many" },
        },
      ],
    });
    if (!made.ok) throw new Error(JSON.stringify(made));
    await db.insertInto("entry_groups").values({
      id: crypto.randomUUID(),
      site_id: siteId,
      model_id: made.model_id!,
      primary_entry_id: crypto.randomUUID(),
      created_by: null,
      revision: 1,
      current_version_id: null,
      created_at: new Date(),
      updated_at: new Date(),
    }).execute();
    await rejects(() => bulkIndexSite(db, siteId), /relation fields/);
  } finally {
    await db.destroy();
  }
});
