// The demo site of `deno task start`: models, content in two languages, fallback, created once (issue 3).
import { deepEqual, equal, ok } from "node:assert/strict";
import { sql } from "kysely";
import { parsePageDocument } from "../../core/pages/mod.ts";
import { ensureDemoSite } from "../../core/sites/demo_site.ts";
import { DEMO_COUNTS } from "../../core/sites/demo_content.ts";
import { getSettings } from "../../core/sites/settings.ts";
import { openTestApp } from "../support/app.ts";

Deno.test("ensureDemoSite() seeds models, 44 posts in en and de with drafts, notes and pages, once", async () => {
  const dataDir = await Deno.makeTempDir();
  const t = await openTestApp({ env: { DATA_DIR: dataDir } });
  try {
    const first = await ensureDemoSite(t.services);
    equal(first.slug, "demo");
    equal(first.origin, "created");
    ok(first.createdAdmin);
    const { db } = t.services;
    const site = await db.selectFrom("sites").selectAll().where(
      "domain",
      "=",
      "localhost",
    ).executeTakeFirstOrThrow();
    const models = await db.selectFrom("models").select(["slug", "is_public"])
      .where("site_id", "=", site.id)
      .orderBy("slug").execute();
    deepEqual(models.map((m) => `${m.slug}:${m.is_public}`), [
      "authors:true",
      "notes:false",
      "pages:true",
      "posts:true",
      "shared_section:false",
      "tags:true",
    ]);
    const count = async (locale: string, published: boolean) => {
      const { rows } = await sql<{ n: number }>`
        select count(*)::int as n from entries e join models m on m.id::text = e.model_id::text
        where m.slug = 'posts' and e.site_id = ${site.id} and e.locale = ${locale}
          and (e.published_version_id is not null) = ${published}`.execute(db);
      return rows[0].n;
    };
    const drafts = DEMO_COUNTS.draftPosts;
    equal(await count("en", true), DEMO_COUNTS.posts - drafts);
    equal(await count("en", false), drafts);
    equal(await count("de", true), DEMO_COUNTS.postsInGerman);
    equal(await count("de", false), 0);
    ok(await count("en", true) >= 40);
    const fallback = await getSettings(
      { db, siteId: site.id },
      "language-fallback",
    );
    deepEqual(fallback.document, {
      policy: "fallback",
      chains: { de: ["en"] },
    });
    // Pages hold real page documents (PAGE-001): the home page in en and de, about in en.
    const { rows: pages } = await sql<{ locale: string; slides: unknown }>`
      select e.locale, v.fields -> 'slides' as slides from entries e
      join models m on m.id::text = e.model_id::text
      join entry_versions v on v.id = e.published_version_id
      where m.slug = 'pages' and e.site_id = ${site.id} order by e.slug`
      .execute(db);
    equal(pages.length, 3);
    for (const page of pages) ok(parsePageDocument(page.slides).ok);
    const note = await Deno.readTextFile(`${dataDir}/demo-admin.txt`);
    ok(note.includes(first.createdAdmin.password));

    const second = await ensureDemoSite(t.services);
    deepEqual(second, { slug: "demo", origin: "existing" });
    equal((await db.selectFrom("sites").selectAll().execute()).length, 1);
  } finally {
    await t.close();
    await Deno.remove(dataDir, { recursive: true });
  }
});
