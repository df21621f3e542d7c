// /v1/_sitemap and its chunks, /v1/_embeds, /v1/_rich-blocks on the demo site (spec 3 parts 4.1,
// 4.8 rule 9, 8; PAUX-017 to PAUX-019, DLV-017).
import { deepEqual, equal, ok } from "node:assert/strict";
import { sql } from "kysely";
import { publishEntry, saveEntry } from "../../core/entries/mod.ts";
import { exampleFooter } from "../../core/pages/example.ts";
import { openPublicWorld } from "./helpers.ts";

type Chunk = { model: string; number: number; count: number; path: string };

Deno.test("GET /v1/_sitemap lists chunks of public models' addresses, read at request time (PAUX-019, DLV-017)", async (t) => {
  const w = await openPublicWorld();
  try {
    await t.step(
      "the index names a chunk per public model and the robots rules",
      async () => {
        const res = await w.get("/v1/_sitemap");
        equal(res.status, 200);
        const body = await res.json();
        const pages = body.data.chunks.find((c: Chunk) => c.model === "pages");
        deepEqual(
          { ...pages, lastmod: undefined },
          {
            model: "pages",
            number: 1,
            count: 3,
            lastmod: undefined,
            path: "/v1/_sitemap/pages/1",
          },
        );
        ok(!body.data.chunks.some((c: Chunk) => c.model === "notes"));
        ok(!body.data.chunks.some((c: Chunk) => c.model === "shared_section"));
        deepEqual(body.data.robots.disallow, [
          "/search",
          "/en/search",
          "/de/search",
        ]);
        equal(body.data.chunk_size, 5000);
        equal((await w.get("/v1/_sitemap?x=1")).status, 400);
      },
    );

    await t.step(
      "a chunk lists each address with its other languages",
      async () => {
        const res = await w.get("/v1/_sitemap/pages/1");
        equal(res.status, 200);
        const body = await res.json();
        const home = body.data.find((a: { slug: string }) => a.slug === "home");
        equal(home.locale, "en");
        deepEqual(home.alternates, [{ locale: "de", slug: "start" }]);
        equal(body.data.length, 3);
        equal((await w.get("/v1/_sitemap/pages/2")).status, 404);
        equal((await w.get("/v1/_sitemap/notes/1")).status, 404);
        equal((await w.get("/v1/_sitemap/shared_section/1")).status, 404);
        equal((await w.get("/v1/_sitemap/pages/0")).status, 404);
      },
    );

    await t.step(
      "a page published now is in the next sitemap read (DLV-017)",
      async () => {
        const saved = await saveEntry(w.ctx(), {
          model_id: await w.modelId("pages"),
          locale: "en",
          slug: "contact",
          fields: { title: "Contact", slides: exampleFooter("en") },
          expected_current_version_id: null,
        });
        ok(saved.ok);
        ok(
          (await publishEntry(w.ctx(), {
            group_id: saved.group_id,
            expected_current_version_id: saved.current_version_id,
            expected_workflow_revision: saved.revision,
          })).ok,
        );
        const body = await (await w.get("/v1/_sitemap/pages/1")).json();
        ok(body.data.some((a: { slug: string }) => a.slug === "contact"));
      },
    );

    await t.step(
      "5,000 addresses fill one chunk, the 5,001st starts a second (PAUX-019)",
      async () => {
        const model = await w.modelId("tags");
        const existing =
          (await (await w.get("/v1/_sitemap/tags/1")).json()).data
            .length;
        const db = w.services.db;
        const add = async (n: number) => {
          await sql`
          with g as (
            insert into entry_groups (id, site_id, model_id, created_at, updated_at)
            select gen_random_uuid(), ${w.siteId}, ${model}, now(), now()
            from generate_series(1, ${n}) returning id
          )
          insert into public_items (site_id, model_id, group_id, requested_locale, entry_id,
            served_locale, slug, version_id, version_number, published_at, fields, alternates)
          select ${w.siteId}, ${model}, g.id, 'en', gen_random_uuid(), 'en',
            'bulk-' || g.id, gen_random_uuid(), 1, now(), '{}'::jsonb, '[]'::json from g
        `.execute(db);
        };
        await add(5000 - existing);
        const full = await (await w.get("/v1/_sitemap")).json();
        deepEqual(
          full.data.chunks.filter((c: Chunk) => c.model === "tags").map((
            c: Chunk,
          ) => [c.number, c.count]),
          [[1, 5000]],
        );
        await add(1);
        const more = await (await w.get("/v1/_sitemap")).json();
        deepEqual(
          more.data.chunks.filter((c: Chunk) => c.model === "tags").map((
            c: Chunk,
          ) => [c.number, c.count]),
          [[1, 5000], [2, 1]],
        );
        equal(
          (await (await w.get("/v1/_sitemap/tags/2")).json()).data.length,
          1,
        );
      },
    );

    await t.step(
      "/v1/_embeds lists the allowed embed origins; /v1/_rich-blocks the active plugins' blocks (PAUX-017, PAUX-018)",
      async () => {
        deepEqual(await (await w.get("/v1/_embeds")).json(), {
          data: { origins: [] },
        });
        await sql`insert into site_settings (site_id, key, document, revision, updated_at)
        values (${w.siteId}, 'editorial', ${
          JSON.stringify({
            version_retention_days: null,
            review_required: false,
            allowed_embed_origins: ["https://www.youtube.com"],
          })
        }::jsonb, 1, now())
        on conflict (site_id, key) do update set document = excluded.document`
          .execute(w.services.db);
        deepEqual(await (await w.get("/v1/_embeds")).json(), {
          data: { origins: ["https://www.youtube.com"] },
        });
        deepEqual(await (await w.get("/v1/_rich-blocks")).json(), { data: [] });
        equal((await w.get("/v1/_embeds?x=1")).status, 400);
      },
    );
  } finally {
    await w.close();
  }
});
