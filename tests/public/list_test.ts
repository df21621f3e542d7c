// Long on purpose: every list parameter at its edge against one seeded world.
// GET /v1/{model}: every list parameter at its edge over HTTP (spec 3 parts 4.2, 7, 8; inventory
// PUB-003, PUB-007, PUB-010 to PUB-015, PUB-017, PUB-019 to PUB-029, AUTH-001).
import { deepEqual, equal, notEqual, ok } from "node:assert/strict";
import { DEMO_COUNTS } from "../../core/sites/demo_content.ts";
import { sql } from "kysely";
import { codeOf, openPublicWorld } from "./helpers.ts";

const PUBLISHED_POSTS = DEMO_COUNTS.posts - DEMO_COUNTS.draftPosts;

Deno.test("GET /v1/{model} list parameters", async (t) => {
  const w = await openPublicWorld();
  const status = async (path: string, expected: number, code?: string) => {
    const res = await w.get(path);
    equal(res.status, expected, path);
    if (code !== undefined) equal(await codeOf(res), code, path);
    else await res.body?.cancel();
  };
  const json = async (path: string) => {
    const res = await w.get(path);
    equal(res.status, 200, path);
    return await res.json();
  };
  try {
    await t.step(
      "an anonymous list answers items in the published shape (AUTH-001, PUB-003, PUB-007)",
      async () => {
        const body = await json("/v1/posts?limit=3");
        equal(body.data.length, 3);
        deepEqual(Object.keys(body.data[0]), [
          "id",
          "slug",
          "locale",
          "model",
          "version",
          "published_at",
          "fields",
          "relations",
          "media",
        ]);
        equal(body.data[0].model, "posts");
        equal(typeof body.data[0].version, "number");
        ok(/^\d{4}-\d{2}-\d{2}T/.test(body.data[0].published_at));
        deepEqual(Object.keys(body.page), ["limit", "has_more", "next_cursor"]);
        equal(body.page.limit, 3);
        equal(body.page.has_more, true);
        // PUB-004: responses carry `contracts`.
        deepEqual(body.contracts, { page: { served: 5 } });
      },
    );

    await t.step(
      "limit: 1 and 100 answer, 0, 101, 1.5, abc are public_filter_invalid, never clamped (PUB-012)",
      async () => {
        equal((await json("/v1/posts?limit=1")).data.length, 1);
        const all = await json("/v1/posts?limit=100");
        equal(all.data.length, PUBLISHED_POSTS);
        equal(all.page.has_more, false);
        equal(all.page.next_cursor, null);
        equal((await json("/v1/posts")).page.limit, 20);
        for (const bad of ["0", "101", "1.5", "abc", "-1", "020"]) {
          await status(`/v1/posts?limit=${bad}`, 400, "public_filter_invalid");
        }
      },
    );

    await t.step(
      "locale: pattern, default, unknown language (PUB-011)",
      async () => {
        await status("/v1/posts?locale=en%20US", 400, "public_filter_invalid");
        await status(
          `/v1/posts?locale=${"a".repeat(65)}`,
          400,
          "public_filter_invalid",
        );
        await status(
          `/v1/posts?locale=${"a".repeat(64)}`,
          404,
          "locale_unavailable",
        );
        const de = await json("/v1/posts?locale=de&limit=100");
        equal(de.data.length, PUBLISHED_POSTS);
        // 30 posts are published in German; the other 10 fall back to English (de -> en).
        equal(
          de.data.filter((i: { locale: string }) => i.locale === "de").length,
          DEMO_COUNTS.postsInGerman,
        );
        equal(
          de.data.filter((i: { locale: string }) => i.locale === "en").length,
          PUBLISHED_POSTS - DEMO_COUNTS.postsInGerman,
        );
      },
    );

    await t.step(
      "unknown, empty and repeated parameters are public_filter_invalid (PUB-027)",
      async () => {
        await status("/v1/posts?foo=1", 400, "public_filter_invalid");
        await status("/v1/posts?limit=", 400, "public_filter_invalid");
        await status("/v1/posts?locale", 400, "public_filter_invalid");
        await status("/v1/posts?limit=1&limit=2", 400, "public_filter_invalid");
        await status(
          "/v1/posts?filter[reading_minutes][gt]=1&filter[reading_minutes][gt]=2",
          400,
          "public_filter_invalid",
        );
        await status(
          "/v1/posts?filter[category]=news&filter[category]=guide",
          200,
        );
      },
    );

    await t.step(
      "the whole list pages without duplicates or gaps, newest first then by id (PUB-010)",
      async () => {
        const seen: { id: string; published_at: string }[] = [];
        let cursor: string | null = null;
        for (let i = 0; i < 20; i++) {
          const body: {
            data: { id: string; published_at: string }[];
            page: { next_cursor: string | null; has_more: boolean };
          } = await json(
            `/v1/posts?limit=7${cursor ? `&cursor=${cursor}` : ""}`,
          );
          seen.push(...body.data);
          cursor = body.page.next_cursor;
          if (!body.page.has_more) {
            equal(cursor, null);
            break;
          }
        }
        equal(seen.length, PUBLISHED_POSTS);
        equal(new Set(seen.map((s) => s.id)).size, PUBLISHED_POSTS);
        const sorted = [...seen].sort((a, b) =>
          a.published_at === b.published_at
            ? (a.id < b.id ? 1 : -1)
            : (a.published_at < b.published_at ? 1 : -1)
        );
        deepEqual(seen.map((s) => s.id), sorted.map((s) => s.id));
        const asc = await json("/v1/posts?order=asc&limit=100");
        deepEqual(
          asc.data.map((i: { id: string }) => i.id),
          [...sorted].reverse().map((s) => s.id),
        );
      },
    );

    await t.step(
      "cursor: bound to the query, only limit may change; mangled or old is invalid (PUB-013, PUB-014)",
      async () => {
        const first = await json("/v1/posts?limit=5&filter[category]=news");
        const cursor = first.page.next_cursor;
        ok(cursor);
        const next = await json(
          `/v1/posts?limit=3&filter[category]=news&cursor=${cursor}`,
        );
        equal(next.data.length, 3);
        ok(
          !first.data.some((a: { id: string }) =>
            next.data.some((b: { id: string }) => a.id === b.id)
          ),
        );
        await status(
          `/v1/posts?limit=5&filter[category]=guide&cursor=${cursor}`,
          400,
          "public_cursor_mismatch",
        );
        await status(
          `/v1/posts?limit=5&cursor=${cursor}`,
          400,
          "public_cursor_mismatch",
        );
        await status(
          `/v1/posts?limit=5&filter[category]=news&locale=de&cursor=${cursor}`,
          400,
          "public_cursor_mismatch",
        );
        await status(
          `/v1/tags?limit=5&filter[category]=news&cursor=${cursor}`,
          400,
          "public_filter_invalid",
        );
        const [body, mac] = cursor.split(".");
        const flipped = body.slice(0, -2) + (body.at(-2) === "A" ? "B" : "A") +
          body.at(-1);
        await status(
          `/v1/posts?limit=5&filter[category]=news&cursor=${flipped}.${mac}`,
          400,
          "public_filter_invalid",
        );
        await status(
          `/v1/posts?limit=5&filter[category]=news&cursor=garbage`,
          400,
          "public_filter_invalid",
        );
        w.clock.advance(24 * 3600_000 + 1000);
        await status(
          `/v1/posts?limit=5&filter[category]=news&cursor=${cursor}`,
          400,
          "public_filter_invalid",
        );
      },
    );

    await t.step(
      "order and sort: not together; sort by number and text, then by id (PUB-015, PUB-017)",
      async () => {
        await status(
          "/v1/posts?order=asc&sort=title",
          400,
          "public_filter_invalid",
        );
        await status("/v1/posts?order=newest", 400, "public_filter_invalid");
        await status("/v1/posts?sort=nope", 400, "public_filter_invalid");
        await status(
          "/v1/posts?sort=tags",
          400,
          "public_filter_type_unsupported",
        );
        await status(
          "/v1/posts?sort=title&origin=1,2",
          400,
          "public_filter_invalid",
        );
        const walk = async (q: string) => {
          const out: { id: string; fields: Record<string, unknown> }[] = [];
          let cursor: string | null = null;
          for (let i = 0; i < 20; i++) {
            const body: {
              data: typeof out;
              page: { next_cursor: string | null };
            } = await json(
              `/v1/posts?${q}&limit=6${cursor ? `&cursor=${cursor}` : ""}`,
            );
            out.push(...body.data);
            cursor = body.page.next_cursor;
            if (!cursor) break;
          }
          return out;
        };
        const desc = await walk("sort=-reading_minutes");
        equal(desc.length, PUBLISHED_POSTS);
        for (let i = 1; i < desc.length; i++) {
          const [a, b] = [desc[i - 1], desc[i]];
          const [x, y] = [
            a.fields.reading_minutes as number,
            b.fields.reading_minutes as number,
          ];
          ok(x > y || (x === y && a.id < b.id), `order at ${i}`);
        }
        const titles = (await walk("sort=title")).map((i) =>
          i.fields.title as string
        );
        deepEqual(
          titles,
          [...titles].sort((a, b) => a < b ? -1 : a > b ? 1 : 0),
        );
      },
    );

    await t.step(
      "filter: equality, alternatives up to 10, typed values (PUB-019, PUB-020)",
      async () => {
        const news = await json("/v1/posts?filter[category]=news&limit=100");
        ok(news.data.length > 0);
        ok(
          news.data.every((i: { fields: { category: string } }) =>
            i.fields.category === "news"
          ),
        );
        const two = await json(
          "/v1/posts?filter[category]=news&filter[category]=guide&limit=100",
        );
        ok(two.data.length > news.data.length);
        const ten = Array.from(
          { length: 10 },
          (_, i) => `filter[category]=v${i}`,
        ).join("&");
        await status(`/v1/posts?${ten}`, 200);
        await status(
          `/v1/posts?${ten}&filter[category]=news`,
          400,
          "public_filter_too_many_values",
        );
        await status(
          "/v1/posts?filter[published_on]=2024/01/01",
          400,
          "public_filter_invalid",
        );
        await status(
          "/v1/posts?filter[published_on]=2026-02-30",
          400,
          "public_filter_invalid",
        );
        await status(
          "/v1/posts?filter[reading_minutes]=abc",
          400,
          "public_filter_invalid",
        );
        const five = await json(
          "/v1/posts?filter[reading_minutes]=10&limit=100",
        );
        ok(
          five.data.length > 0 &&
            five.data.every((i: { fields: { reading_minutes: number } }) =>
              i.fields.reading_minutes === 10
            ),
        );
        // A number is compared by value, however it is written.
        for (const ten of ["010", "10.0", "0010.000"]) {
          deepEqual(
            (await json(`/v1/posts?filter[reading_minutes]=${ten}&limit=100`))
              .data,
            five.data,
            ten,
          );
        }
        const day = await json("/v1/posts?filter[published_on]=2026-01-05");
        equal(day.data.length, 1);
        await status(
          "/v1/posts?filter[tags]=x",
          400,
          "public_filter_type_unsupported",
        );
        await status(
          "/v1/posts?filter[body]=x",
          400,
          "public_filter_type_unsupported",
        );
        await status("/v1/posts?filter[nope]=x", 400, "public_filter_invalid");
        await status(
          "/v1/posts?filter[category][gt]=a",
          400,
          "public_filter_type_unsupported",
        );
        await status(
          "/v1/posts?filter[Category]=x",
          400,
          "public_filter_invalid",
        );
      },
    );

    await t.step(
      "ranges: one bound per side, no equality with a range, satisfiable (PUB-021)",
      async () => {
        await status(
          "/v1/posts?filter[reading_minutes][gt]=5&filter[reading_minutes][gte]=5",
          400,
          "public_filter_invalid",
        );
        await status(
          "/v1/posts?filter[reading_minutes][lt]=5&filter[reading_minutes][lte]=5",
          400,
          "public_filter_invalid",
        );
        await status(
          "/v1/posts?filter[reading_minutes][gt]=5&filter[reading_minutes][lt]=3",
          400,
          "public_filter_invalid",
        );
        await status(
          "/v1/posts?filter[reading_minutes][gt]=5&filter[reading_minutes][lt]=5",
          400,
          "public_filter_invalid",
        );
        await status(
          "/v1/posts?filter[reading_minutes][gte]=5&filter[reading_minutes][lt]=5",
          400,
          "public_filter_invalid",
        );
        await status(
          "/v1/posts?filter[reading_minutes]=5&filter[reading_minutes][gt]=1",
          400,
          "public_filter_invalid",
        );
        await status(
          "/v1/posts?filter[reading_minutes][ge]=5",
          400,
          "public_filter_invalid",
        );
        const exact = await json(
          "/v1/posts?filter[reading_minutes][gte]=10&filter[reading_minutes][lte]=10&limit=100",
        );
        ok(
          exact.data.length > 0 &&
            exact.data.every((i: { fields: { reading_minutes: number } }) =>
              i.fields.reading_minutes === 10
            ),
        );
        const open = await json(
          "/v1/posts?filter[reading_minutes][gt]=15&limit=100",
        );
        ok(
          open.data.length > 0 &&
            open.data.every((i: { fields: { reading_minutes: number } }) =>
              i.fields.reading_minutes > 15
            ),
        );
        const dates = await json(
          "/v1/posts?filter[published_on][gte]=2026-01-05&filter[published_on][lt]=2026-01-17&limit=100",
        );
        deepEqual(
          dates.data.map((i: { fields: { published_on: string } }) =>
            i.fields.published_on
          ).sort(),
          ["2026-01-05", "2026-01-11"],
        );
      },
    );

    await t.step(
      "filters: at most 4 fields with max, values at most 255 characters (PUB-022)",
      async () => {
        const four =
          "filter[category]=news&filter[reading_minutes]=3&filter[published_on]=2026-01-05&filter[title]=x";
        await status(`/v1/posts?${four}`, 200);
        const res = await w.get(`/v1/posts?${four}&filter[slug_x]=1`);
        equal(res.status, 400);
        deepEqual((await res.json()).error.max, 4);
        await status(`/v1/posts?filter[title]=${"a".repeat(255)}`, 200);
        await status(
          `/v1/posts?filter[title]=${"a".repeat(256)}`,
          400,
          "public_filter_invalid",
        );
      },
    );

    await t.step(
      "fields: selection keeps id, slug, locale; at most 32, no repeats (PUB-023)",
      async () => {
        const body = await json("/v1/posts?fields=title&limit=1");
        deepEqual(Object.keys(body.data[0]).sort(), [
          "fields",
          "id",
          "locale",
          "slug",
        ]);
        deepEqual(Object.keys(body.data[0].fields), ["title"]);
        const tags = await json("/v1/posts?fields=tags,published_at&limit=1");
        deepEqual(Object.keys(tags.data[0]).sort(), [
          "id",
          "locale",
          "published_at",
          "relations",
          "slug",
        ]);
        await status(
          "/v1/posts?fields=title,title",
          400,
          "public_filter_invalid",
        );
        await status("/v1/posts?fields=nope", 400, "public_filter_invalid");
        await status("/v1/posts?fields=title,", 400, "public_filter_invalid");
        const keys32 = [
          "title",
          ...Array.from({ length: 31 }, (_, i) => `k${i}`),
        ];
        const res = await w.get(`/v1/posts?fields=${keys32.join(",")},extra`);
        equal(res.status, 400);
        const err = (await res.json()).error;
        equal(err.code, "public_filter_too_many");
        equal(err.max, 32);
        await status(
          `/v1/posts?fields=${keys32.join(",")}`,
          400,
          "public_filter_invalid",
        );
      },
    );

    await t.step(
      "fields: every selection answers exactly the selected parts of the full items, with the same cache tags (PUB-023)",
      async () => {
        type Item = Record<string, Record<string, unknown> | undefined>;
        const read = async (path: string) => {
          const res = await w.get(path);
          equal(res.status, 200, path);
          return {
            items: (await res.json()).data as Item[],
            tags: res.headers.get("cache-tag"),
          };
        };
        const partOf = (item: Item, key: string) =>
          ["fields", "relations", "media"].map((part) => item[part]?.[key])
            .find((v) => v !== undefined) ?? item[key];
        for (const model of ["posts", "tags", "authors", "pages"]) {
          const full = await read(`/v1/${model}?limit=100`);
          ok(full.items.length > 0, model);
          const keys = [
            "model",
            "version",
            "published_at",
            ...new Set(
              full.items.flatMap((item) =>
                ["fields", "relations", "media"].flatMap((part) =>
                  Object.keys(item[part] ?? {})
                )
              ),
            ),
          ];
          for (const selection of [...keys.map((k) => [k]), keys]) {
            const path = `/v1/${model}?limit=100&fields=${selection.join(",")}`;
            const selected = await read(path);
            equal(selected.tags, full.tags, path);
            deepEqual(
              selected.items.map((item) => [
                item.id,
                item.slug,
                item.locale,
                ...selection.map((k) => partOf(item, k)),
              ]),
              full.items.map((item) => [
                item.id,
                item.slug,
                item.locale,
                ...selection.map((k) => partOf(item, k)),
              ]),
              path,
            );
          }
        }
        // Expanding a relation the selection leaves out still reads its ids.
        const expanded = await read("/v1/posts?limit=5&expand=author");
        const narrow = await read(
          "/v1/posts?limit=5&expand=author&fields=title",
        );
        deepEqual(
          narrow.items.map((item) => item.expanded),
          expanded.items.map((item) => item.expanded),
        );
        equal(narrow.tags, expanded.tags);
      },
    );

    await t.step(
      "relation and tag: single-model relation fields, at most 16 pairs (PUB-024 to PUB-026)",
      async () => {
        const deno = await w.groupId("tags", "deno");
        const byId = await json(`/v1/posts?relation=tags:${deno}&limit=100`);
        ok(byId.data.length > 0);
        ok(
          byId.data.every((i: { relations: { tags: string[] } }) =>
            i.relations.tags.includes(deno)
          ),
        );
        const bySlug = await json("/v1/posts?tag=tags:deno&limit=100");
        deepEqual(
          bySlug.data.map((i: { id: string }) => i.id),
          byId.data.map((i: { id: string }) => i.id),
        );
        const de = await json("/v1/posts?tag=tags:deno&locale=de&limit=100");
        equal(de.data.length, byId.data.length);
        const both = await json(
          `/v1/posts?tag=tags:deno&tag=tags:typescript&limit=100`,
        );
        ok(both.data.length < byId.data.length);
        await status(
          "/v1/posts?relation=category:x",
          400,
          "public_filter_invalid",
        );
        await status(
          "/v1/posts?relation=tags:not-an-id",
          400,
          "public_filter_invalid",
        );
        await status("/v1/posts?relation=tags", 400, "public_filter_invalid");
        await status("/v1/posts?tag=nope:deno", 400, "public_filter_invalid");
        const pairs = (n: number) =>
          Array.from({ length: n }, () => `tag=tags:deno`).join("&");
        await status(
          `/v1/posts?${pairs(8)}&${
            Array.from({ length: 8 }, () => `relation=tags:${deno}`).join("&")
          }`,
          200,
        );
        const res = await w.get(
          `/v1/posts?${pairs(9)}&${
            Array.from({ length: 8 }, () => `relation=tags:${deno}`).join("&")
          }`,
        );
        equal(res.status, 400);
        deepEqual((await res.json()).error, {
          code: "public_filter_too_many",
          message: "Too many relation and tag pairs: at most 16",
          max: 16,
        });
      },
    );

    await t.step(
      "cache tags name the model, every item shown and every expanded target, each once",
      async () => {
        const tagsOf = (res: Response) =>
          res.headers.get("cache-tag")!.split(",");
        const plain = await w.get("/v1/posts?limit=20");
        const items = (await plain.json()).data as { id: string }[];
        const model = tagsOf(plain)[0];
        ok(model.startsWith("model:"));
        deepEqual(tagsOf(plain), [
          model,
          ...items.map((i) => `instance:${i.id}`),
        ]);
        // Several posts share a tag: the same target is expanded more than once.
        const res = await w.get("/v1/posts?limit=20&expand=tags,author");
        const body = await res.json() as {
          data: { id: string; relations: Record<string, unknown> }[];
        };
        const tags = tagsOf(res);
        equal(new Set(tags).size, tags.length, tags.join(","));
        const targets = body.data.flatMap((i) =>
          [i.relations.tags, i.relations.author].flat()
        ).filter((id): id is string => typeof id === "string");
        ok(targets.length > new Set(targets).size, "a target repeats");
        for (const id of [...body.data.map((i) => i.id), ...targets]) {
          ok(tags.includes(`instance:${id}`), id);
        }
      },
    );

    await t.step(
      "expand: at most 3 relation fields, one level (PUB-028, PUB-029)",
      async () => {
        const body = await json("/v1/posts?expand=tags&limit=2");
        const expanded = body.data[0].expanded.tags;
        equal(expanded.data.length, body.data[0].relations.tags.length);
        deepEqual(
          expanded.data.map((i: { id: string }) => i.id),
          body.data[0].relations.tags,
        );
        deepEqual(expanded.page, {
          limit: 25,
          has_more: false,
          next_cursor: null,
        });
        await status(
          "/v1/posts?expand=tags.name",
          400,
          "public_expand_too_deep",
        );
        await status(
          "/v1/posts?expand=tags,a,b,c",
          400,
          "public_expand_too_many",
        );
        await status(
          "/v1/posts?expand=tags,tags",
          400,
          "public_expand_invalid",
        );
        await status("/v1/posts?expand=category", 400, "public_expand_invalid");
        await status("/v1/posts?expand=nope", 400, "public_expand_invalid");
        const cursor = body.page.next_cursor;
        await status(`/v1/posts?expand=tags&limit=2&cursor=${cursor}`, 200);
        await status(
          `/v1/posts?limit=2&cursor=${cursor}`,
          400,
          "public_cursor_mismatch",
        );
      },
    );

    await t.step(
      "a cursor answers the same page again (it is not consumed)",
      async () => {
        const first = await json("/v1/posts?limit=4");
        const a = await json(
          `/v1/posts?limit=4&cursor=${first.page.next_cursor}`,
        );
        const b = await json(
          `/v1/posts?limit=4&cursor=${first.page.next_cursor}`,
        );
        deepEqual(a.data, b.data);
        notEqual(a.data[0].id, first.data[0].id);
      },
    );
  } finally {
    await w.close();
  }
});

Deno.test("GET /v1/{model} answers an unexpected failure with a plain-text internal error, never a stack or SQL (PUB-041)", async () => {
  const w = await openPublicWorld();
  const { db } = w.services;
  try {
    equal((await w.get("/v1/posts?limit=1")).status, 200);
    await sql`alter table public_items rename to public_items_away`.execute(db);
    try {
      const res = await w.get("/v1/posts?limit=2");
      equal(res.status, 500);
      ok(res.headers.get("content-type")!.startsWith("text/plain"));
      equal(await res.text(), "Internal error");
    } finally {
      await sql`alter table public_items_away rename to public_items`.execute(
        db,
      );
    }
    equal((await w.get("/v1/posts?limit=2")).status, 200);
  } finally {
    await w.close();
  }
});
