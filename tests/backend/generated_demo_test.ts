// The demo site's generated backend, started as its own process and driven over HTTP: the
// blog's models with the access rules saved for them, read and written through the six routes.
import assert from "node:assert/strict";
import { putModelAccess } from "../../core/backend/access.ts";
import { setupDemo } from "../admin/demo_helpers.ts";
import { DEMO_COUNTS } from "../../core/sites/demo_content.ts";
import { emit, type EmittedBackend, startBackend } from "./emitted.ts";

const BLOG = ["posts", "authors", "tags", "notes"];

async function demoBackend(): Promise<EmittedBackend & { siteId: string }> {
  const demo = await setupDemo();
  try {
    const { db } = demo.t.services;
    const models = await db.selectFrom("models").select(["id", "slug"])
      .where("site_id", "=", demo.siteId).execute();
    const id = (slug: string) => models.find((m) => m.slug === slug)!.id;
    const ctx = { db, clock: demo.t.clock, siteId: demo.siteId };
    // Posts and tags are public to read; authors and notes keep the default (service).
    for (const slug of ["posts", "tags"]) {
      const put = await putModelAccess(ctx, id(slug), {
        operations: {
          findMany: { audience: "anonymous" },
          findManyPaginated: { audience: "anonymous" },
          findUnique: { audience: "anonymous" },
        },
      });
      assert.ok(put.ok);
    }
    const { dir, schema } = await emit(db, {
      siteId: demo.siteId,
      models: BLOG,
      publicUrl: "http://media.example",
      commit: "c0ffee1",
    });
    const backend = await startBackend(dir, schema);
    return {
      ...backend,
      siteId: demo.siteId,
      async stop() {
        await backend.stop();
        await Deno.remove(dir, { recursive: true });
      },
    };
  } finally {
    await demo.t.close();
  }
}

Deno.test("generated demo backend: reads, writes and access over HTTP", async (t) => {
  const b = await demoBackend();
  const published = DEMO_COUNTS.posts - DEMO_COUNTS.draftPosts;
  try {
    await t.step(
      "GEN-001 GEN-002 GEN-013: findMany answers rows, 25 by default, by id",
      async () => {
        const res = await b.call("/api/posts", { as: "anonymous" });
        assert.equal(res.status, 200);
        const rows = res.body as { id: string }[];
        assert.equal(rows.length, 25);
        const ids = rows.map((r) => r.id);
        assert.deepEqual(ids, [...ids].sort());
        const all = await b.call("/api/posts?take=100");
        assert.equal((all.body as unknown[]).length, published);
      },
    );

    await t.step(
      "GEN-013: take 100 is the last accepted, 101 refused",
      async () => {
        assert.equal((await b.call("/api/posts?take=100")).status, 200);
        const over = await b.call("/api/posts?take=101");
        assert.equal(over.status, 400);
        assert.equal((over.body as { code: string }).code, "invalid_request");
      },
    );

    await t.step(
      "GEN-003 GEN-012: findManyPaginated answers { data, total, hasMore }",
      async () => {
        const res = await b.call("/api/posts/paginated?take=10&skip=35", {
          as: "anonymous",
        });
        assert.equal(res.status, 200);
        const page = res.body as {
          data: unknown[];
          total: number;
          hasMore: boolean;
        };
        assert.deepEqual(Object.keys(page).sort(), [
          "data",
          "hasMore",
          "total",
        ]);
        assert.equal(page.total, published);
        assert.equal(page.data.length, published - 35);
        assert.equal(page.hasMore, false);
        const first = await b.call("/api/posts/paginated?take=10", {
          as: "anonymous",
        });
        assert.equal((first.body as { hasMore: boolean }).hasMore, true);
        assert.ok(!("page" in (first.body as object)));
      },
    );

    await t.step(
      "GEN-004: findUnique answers the row, or null for an unknown id",
      async () => {
        const [row] = (await b.call("/api/posts?take=1")).body as {
          id: string;
        }[];
        const where = encodeURIComponent(JSON.stringify({ id: row.id }));
        const found = await b.call(`/api/posts/unique?where=${where}`, {
          as: "anonymous",
        });
        assert.equal(found.status, 200);
        assert.equal((found.body as { id: string }).id, row.id);
        const none = encodeURIComponent(
          JSON.stringify({ id: crypto.randomUUID() }),
        );
        const missing = await b.call(`/api/posts/unique?where=${none}`, {
          as: "anonymous",
        });
        assert.equal(missing.status, 200);
        assert.equal(missing.body, null);
      },
    );

    await t.step(
      "GEN-009 GEN-014: per-language titles live in poststranslation, by language then id",
      async () => {
        const res = await b.call("/api/poststranslation?take=100");
        assert.equal(res.status, 200);
        const rows = res.body as { lang: string; title: string }[];
        assert.ok(rows.some((r) => r.lang === "de"));
        const langs = rows.map((r) => r.lang);
        assert.deepEqual(langs, [...langs].sort());
      },
    );

    await t.step(
      "GACC-001 GACC-002: a model without a rule is service-only: 401 anonymous",
      async () => {
        const res = await b.call("/api/authors", { as: "anonymous" });
        assert.equal(res.status, 401);
        assert.equal((await b.call("/api/authors")).status, 200);
        const wrong = await b.call("/api/authors", {
          as: "sv_art_not-a-token",
        });
        assert.equal(wrong.status, 401);
      },
    );

    await t.step(
      "GEN-015: a reader may select by id only; an editor by any column",
      async () => {
        const where = encodeURIComponent(JSON.stringify({ category: "news" }));
        const reader = await b.call(`/api/posts?where=${where}`, {
          as: "anonymous",
        });
        assert.equal(reader.status, 400);
        assert.equal((reader.body as { code: string }).code, "invalid_request");
        const editor = await b.call(`/api/posts?where=${where}&take=100`);
        assert.equal(editor.status, 200);
        const rows = editor.body as { category: string }[];
        assert.ok(rows.length > 0 && rows.every((r) => r.category === "news"));
        const op = encodeURIComponent(
          JSON.stringify({ category: { contains: "n" } }),
        );
        assert.equal((await b.call(`/api/posts?where=${op}`)).status, 400);
      },
    );

    let created: Record<string, unknown> = {};
    await t.step(
      "GEN-005 GREL-001: create answers 201 with the row; author_id is written on the row",
      async () => {
        const [author] = (await b.call("/api/authors")).body as {
          id: string;
        }[];
        const res = await b.call("/api/posts", {
          method: "POST",
          body: JSON.stringify({
            data: {
              published_on: "2026-11-28",
              category: "guide",
              reading_minutes: 5,
              author_id: author.id,
            },
          }),
        });
        assert.equal(res.status, 201);
        created = res.body as Record<string, unknown>;
        assert.equal(created.author_id, author.id);
        assert.equal(created.published_on, "2026-11-28");
      },
    );

    await t.step(
      "GREL-001: a missing to-one target is 422 relation_target_missing; nothing written",
      async () => {
        const before = (await b.call("/api/posts/paginated")).body as {
          total: number;
        };
        const res = await b.call("/api/posts", {
          method: "POST",
          body: JSON.stringify({
            data: {
              published_on: "2026-11-28",
              category: "guide",
              author_id: crypto.randomUUID(),
            },
          }),
        });
        assert.equal(res.status, 422);
        assert.equal(
          (res.body as { code: string }).code,
          "relation_target_missing",
        );
        const after = (await b.call("/api/posts/paginated")).body as {
          total: number;
        };
        assert.equal(after.total, before.total);
      },
    );

    await t.step(
      "GEN-022: number and option rules refuse with field_validation_failed",
      async () => {
        const res = await b.call("/api/posts", {
          method: "POST",
          body: JSON.stringify({
            data: {
              published_on: "2026-11-28",
              category: "gossip",
              reading_minutes: 121,
            },
          }),
        });
        assert.equal(res.status, 422);
        const body = res.body as { code: string; fields: { field: string }[] };
        assert.equal(body.code, "field_validation_failed");
        assert.deepEqual(body.fields.map((f) => f.field).sort(), [
          "category",
          "reading_minutes",
        ]);
        // The last accepted value of the range.
        const edge = await b.call("/api/posts", {
          method: "POST",
          body: JSON.stringify({
            data: {
              published_on: "2026-11-28",
              category: "news",
              reading_minutes: 120,
            },
          }),
        });
        assert.equal(edge.status, 201);
      },
    );

    await t.step(
      "GEN-006: update and delete take { where, data } and answer the row",
      async () => {
        const updated = await b.call("/api/posts", {
          method: "PUT",
          body: JSON.stringify({
            where: { id: created.id },
            data: { reading_minutes: 9 },
          }),
        });
        assert.equal(updated.status, 200);
        assert.equal(
          (updated.body as { reading_minutes: number }).reading_minutes,
          9,
        );
        const extra = await b.call("/api/posts", {
          method: "PUT",
          body: JSON.stringify({
            where: { id: created.id },
            data: {},
            extra: 1,
          }),
        });
        assert.equal(extra.status, 400);
        const deleted = await b.call("/api/posts", {
          method: "DELETE",
          body: JSON.stringify({ where: { id: created.id } }),
        });
        assert.equal(deleted.status, 200);
        assert.equal((deleted.body as { id: string }).id, created.id);
        const where = encodeURIComponent(JSON.stringify({ id: created.id }));
        assert.equal(
          (await b.call(`/api/posts/unique?where=${where}`)).body,
          null,
        );
      },
    );

    await t.step(
      "GACC-002: an anonymous write to a service model is 401, nothing written",
      async () => {
        const res = await b.call("/api/tags", {
          method: "POST",
          as: "anonymous",
          body: JSON.stringify({ data: {} }),
        });
        assert.equal(res.status, 401);
      },
    );

    await t.step(
      "GREL-015: a referenced optional author is unlinked when deleted",
      async () => {
        // A post with an author: the list has no order, and a post may have none.
        const posts = (await b.call("/api/posts?take=100")).body as {
          id: string;
          author_id: string | null;
        }[];
        const post = posts.find((p) => p.author_id !== null);
        assert.ok(post, "the demo has a post with an author");
        const res = await b.call("/api/authors", {
          method: "DELETE",
          body: JSON.stringify({ where: { id: post.author_id } }),
        });
        assert.equal(res.status, 200);
        const where = encodeURIComponent(JSON.stringify({ id: post.id }));
        const after = (await b.call(`/api/posts/unique?where=${where}`))
          .body as {
            author_id: string | null;
          };
        assert.equal(after.author_id, null);
      },
    );

    await t.step(
      "GEN-007 GEN-010: reads have no POST alias; count and friends are absent",
      async () => {
        const alias = await b.call("/api/posts/paginated", {
          method: "POST",
          body: "{}",
        });
        assert.equal(alias.status, 404);
        for (
          const path of [
            "count",
            "aggregate",
            "groupBy",
            "upsert",
            "updateEach",
          ]
        ) {
          assert.equal((await b.call(`/api/posts/${path}`)).status, 404, path);
        }
      },
    );

    await t.step(
      "GEN-008 GEN-014: junction tables answer reads only, by position, 100 by default",
      async () => {
        const res = await b.call("/api/posts_tags?take=200");
        assert.equal(res.status, 200);
        const rows = res.body as { owner_id: string; position: number }[];
        assert.ok(rows.length > 25);
        // GEN-014: a junction list's default page is 100 rows, not a model list's 25.
        const byDefault = (await b.call("/api/posts_tags")).body as unknown[];
        assert.equal(byDefault.length, Math.min(100, rows.length));
        const positions = rows.map((r) => r.position);
        assert.deepEqual(positions, [...positions].sort((x, y) => x - y));
        const post = await b.call("/api/posts_tags", {
          method: "POST",
          body: JSON.stringify({ data: {} }),
        });
        assert.equal(post.status, 404);
        assert.equal((await b.call("/api/posts_tags?take=201")).status, 400);
      },
    );

    await t.step(
      "GEN-036: the API description needs a wildcard credential",
      async () => {
        const anonymous = await b.call("/api/openapi.json", {
          as: "anonymous",
        });
        assert.equal(anonymous.status, 401);
        const full = await b.call("/api/openapi.json");
        assert.equal(full.status, 200);
        const doc = full.body as {
          paths: Record<string, Record<string, { operationId: string }>>;
        };
        assert.equal(
          doc.paths["/api/posts/"].get.operationId,
          "Posts.findMany",
        );
      },
    );

    await t.step(
      "GEN-038: every answer carries x-artifact-commit",
      async () => {
        const res = await b.call("/api/posts", { as: "anonymous" });
        assert.equal(res.headers.get("x-artifact-commit"), "c0ffee1");
      },
    );

    await t.step(
      "GEN-037: a value the database refuses answers request_refused, no SQL",
      async () => {
        const res = await b.call("/api/posts", {
          method: "POST",
          body: JSON.stringify({
            // Year 0 passes the date's shape; PostgreSQL has no such year.
            data: { published_on: "0000-01-01", category: "news" },
          }),
        });
        assert.equal(res.status, 400);
        assert.deepEqual(res.body, { code: "request_refused" });
      },
    );
  } finally {
    await b.stop();
  }
});
