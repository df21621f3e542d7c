// The chrome's regions over HTTP: what Site Chrome stores for each declared region, drawn in one
// language, and what makes a cached chrome answer change.
// deno-lint-ignore-file no-explicit-any -- answers are parsed JSON checked field by field
import assert from "node:assert/strict";
import { putMenu } from "../../core/chrome/menus.ts";
import { issueSiteToken } from "../../core/public/site_tokens.ts";
import { exampleFooter } from "../../core/pages/example.ts";
import { SHARED_SECTION_MODEL } from "../../core/pages/shared.ts";
import { type AuxWorld, openAuxWorld } from "./helpers.ts";

const DAY = 86_400_000;

/** Posts (title, category, tags), tags, and the reserved shared-section type. */
async function blogModels(w: AuxWorld) {
  const tags = await w.model({
    model: { name: "Tags", slug: "tags", enableI18n: true },
    fields: [{ key: "name", label: "Name", type: "text", localized: true }],
  });
  const posts = await w.model({
    model: { name: "Posts", slug: "posts", enableI18n: true },
    fields: [
      { key: "title", label: "Title", type: "text", localized: true },
      {
        key: "category",
        label: "Category",
        type: "select",
        config: {
          options: [{ value: "news", label: "News" }, {
            value: "guides",
            label: "Guides",
          }, { value: "empty", label: "Never used" }],
        },
      },
      {
        key: "tags",
        label: "Tags",
        type: "relation",
        config: { targets: [tags], cardinality: "many-to-many" },
      },
    ],
  });
  const shared = await w.model({
    model: {
      name: "Shared sections",
      slug: SHARED_SECTION_MODEL,
      enableI18n: true,
      isPublic: false,
    },
    fields: [
      { key: "title", label: "Title", type: "text", localized: true },
      { key: "slides", label: "Slides", type: "json", localized: true },
    ],
  });
  return { tags, posts, shared };
}

async function publishPost(
  w: AuxWorld,
  posts: string,
  n: number,
  extra: Record<string, unknown> = {},
) {
  const saved = await w.save({
    model: posts,
    locale: "en",
    slug: `post-${n}`,
    fields: { title: `Post ${n}`, category: "news", ...extra },
  });
  await w.publish(saved.group_id);
  return saved.group_id;
}

function region(body: any, key = "footer") {
  return body.data.regions.find((r: any) => r.key === key);
}

Deno.test("PAUX-015: a region holds its blocks in order: shared section, menu, search, recent posts, categories, tags, posts by month; empty blocks are left out", async () => {
  const w = await openAuxWorld();
  try {
    const { tags, posts } = await blogModels(w);
    const { shared } = { shared: await sharedSection(w) };
    const tagA = await w.save({
      model: tags,
      locale: "en",
      slug: "deno",
      fields: { name: "Deno" },
    });
    await w.publish(tagA.group_id);
    const tagB = await w.save({
      model: tags,
      locale: "en",
      slug: "draft-tag",
      fields: { name: "Not live" },
    });
    for (let n = 1; n <= 4; n++) {
      w.clock.advance(DAY);
      await publishPost(w, posts, n, {
        category: n === 4 ? "guides" : "news",
        tags: n % 2 === 0 ? [tagA.group_id, tagB.group_id] : [],
      });
    }
    assert.ok(
      (await putMenu(w.services.db, w.siteId, "more", [
        { id: "ext", label: { en: "Elsewhere" }, href: "https://example.org" },
      ], w.clock.now())).ok,
    );
    await w.settings("chrome", {
      placements: { header: null, footer: null },
      footer_note: {},
      regions: {
        footer: [
          { kind: "shared_section", entry: shared },
          { kind: "menu", menu: "more", title: { en: "More" } },
          { kind: "menu", menu: "missing" },
          { kind: "search" },
          { kind: "recent_posts", limit: 3, title: { en: "Latest" } },
          { kind: "categories", field: "category" },
          { kind: "tags", field: "tags" },
          { kind: "posts_by_month" },
        ],
      },
    });
    // The shared section is not published yet: its block is left out, as is the missing menu.
    const before = await w.json("/v1/_chrome");
    assert.equal(before.status, 200);
    assert.deepEqual(before.body.data.regions.map((r: any) => r.key), [
      "footer",
    ]);
    assert.deepEqual(region(before.body).items.map((b: any) => b.kind), [
      "menu",
      "search",
      "recent_posts",
      "categories",
      "tags",
      "posts_by_month",
    ]);
    await w.publish(shared);
    const r = await w.json("/v1/_chrome");
    const footer = region(r.body);
    assert.equal(footer.label, "Footer columns");
    const [sharedBlock, menu, search, recent, categories, tagBlock, months] =
      footer.items;
    assert.equal(sharedBlock.kind, "shared_section");
    assert.equal(sharedBlock.id, shared);
    assert.deepEqual(
      sharedBlock.document.sections.map((s: any) => s.type),
      ["rich_text", "cta"],
    );
    assert.deepEqual(menu, {
      kind: "menu",
      key: "more",
      title: "More",
      items: [{
        id: "ext",
        label: "Elsewhere",
        href: "https://example.org",
        children: [],
      }],
    });
    assert.deepEqual(search, { kind: "search", title: null, href: "/search" });
    assert.equal(recent.title, "Latest");
    assert.deepEqual(recent.items.map((i: any) => [i.label, i.href]), [
      ["Post 4", "/posts/post-4"],
      ["Post 3", "/posts/post-3"],
      ["Post 2", "/posts/post-2"],
    ]);
    // Only categories live posts use, in the field's option order, with their counts.
    assert.deepEqual(categories.items, [
      { id: "news", label: "News", href: "/posts/category/news", count: 3 },
      {
        id: "guides",
        label: "Guides",
        href: "/posts/category/guides",
        count: 1,
      },
    ]);
    // A tag that is not live is never offered.
    assert.deepEqual(tagBlock.items, [
      {
        id: tagA.group_id,
        label: "Deno",
        href: "/posts/tags/deno",
        count: 2,
      },
    ]);
    assert.equal(months.kind, "posts_by_month");
    assert.ok(months.months.every((m: any) => !("href" in m)));
    // The same in German: addresses carry the language (no post is in German, so none list).
    const de = await w.json("/v1/_chrome?locale=de");
    assert.deepEqual(
      region(de.body).items.filter((b: any) => b.kind === "search"),
      [{ kind: "search", title: null, href: "/de/search" }],
    );
    // Search switched off leaves its block out.
    await w.settings("search", { enabled: false, types: [] });
    const off = await w.json("/v1/_chrome");
    assert.ok(!region(off.body).items.some((b: any) => b.kind === "search"));
  } finally {
    await w.close();
  }
});

async function sharedSection(w: AuxWorld): Promise<string> {
  const model = await w.services.db.selectFrom("models").select("id")
    .where("site_id", "=", w.siteId).where("slug", "=", SHARED_SECTION_MODEL)
    .executeTakeFirstOrThrow();
  const saved = await w.save({
    model: model.id,
    locale: "en",
    slug: "footer-strip",
    fields: { title: "Footer strip", slides: exampleFooter("en") },
  });
  return saved.group_id;
}

Deno.test("PAUX-015: posts by month groups at most the 30 newest posts into at most 12 months", async () => {
  const w = await openAuxWorld();
  try {
    const { posts } = await blogModels(w);
    await w.settings("chrome", {
      placements: { header: null, footer: null },
      footer_note: {},
      regions: { footer: [{ kind: "posts_by_month" }] },
    });
    const months = async () =>
      region((await w.json("/v1/_chrome")).body).items[0].months as {
        month: string;
        items: { label: string }[];
      }[];
    w.clock.set("2025-01-02T10:00:00Z");
    // 31 posts in one month: the 30 newest show, the oldest does not.
    for (let n = 1; n <= 31; n++) {
      w.clock.advance(60_000);
      await publishPost(w, posts, n);
    }
    let shown = await months();
    assert.equal(shown.length, 1);
    assert.equal(shown[0].month, "2025-01");
    assert.equal(shown[0].items.length, 30);
    assert.equal(shown[0].items[0].label, "Post 31");
    assert.equal(shown[0].items[29].label, "Post 2");
    // One post in each of the next 11 months: 12 months, the first still among them.
    for (let m = 1; m <= 11; m++) {
      w.clock.set(new Date(Date.UTC(2025, m, 3, 10)));
      await publishPost(w, posts, 100 + m);
    }
    shown = await months();
    assert.equal(shown.length, 12);
    assert.equal(shown[0].month, "2025-12");
    assert.equal(shown[11].month, "2025-01");
    assert.equal(shown.reduce((n, m) => n + m.items.length, 0), 30);
    // A 13th month: the oldest month no longer fits.
    w.clock.set(new Date(Date.UTC(2026, 0, 3, 10)));
    await publishPost(w, posts, 112);
    shown = await months();
    assert.equal(shown.length, 12);
    assert.equal(shown[0].month, "2026-01");
    assert.equal(shown[11].month, "2025-02");
    assert.ok(shown.reduce((n, m) => n + m.items.length, 0) <= 30);
  } finally {
    await w.close();
  }
});

Deno.test("PAUX-016: the chrome names what its regions show in Cache-Tag and changes when a referenced shared section or model publishes; the same with or without a token", async () => {
  const w = await openAuxWorld();
  try {
    const { posts } = await blogModels(w);
    const shared = await sharedSection(w);
    await w.publish(shared);
    await w.settings("chrome", {
      placements: { header: null, footer: null },
      footer_note: {},
      regions: {
        footer: [{ kind: "shared_section", entry: shared }, {
          kind: "recent_posts",
          limit: 5,
        }],
      },
    });
    const first = await w.json("/v1/_chrome");
    const tags = first.res.headers.get("cache-tag")!.split(",");
    assert.ok(tags.includes(`site:${w.siteId}:chrome`));
    assert.ok(tags.includes(`instance:${shared}`));
    assert.ok(tags.includes(`model:${posts}`));
    const etag = first.res.headers.get("etag")!;
    const issued = await issueSiteToken(w.services, {
      siteId: w.siteId,
      name: "build",
      modelIds: [posts],
    });
    assert.ok(issued.ok);
    const withToken = await w.json("/v1/_chrome", {
      authorization: `Bearer ${issued.token}`,
    });
    assert.deepEqual(withToken.body, first.body);
    // A post publishes: the answer changes at once (nothing on the service side holds it).
    await publishPost(w, posts, 1);
    const second = await w.get("/v1/_chrome", { "if-none-match": etag });
    assert.equal(second.status, 200);
    const secondBody = await second.json();
    assert.deepEqual(
      region(secondBody).items[1].items.map((i: any) => i.label),
      ["Post 1"],
    );
    // The shared section publishes a change: the chrome shows it.
    const doc = exampleFooter("en");
    (doc.props as any).about.heading = "Changed heading";
    await w.save({
      group: shared,
      locale: "en",
      slug: "footer-strip",
      fields: { title: "Footer strip", slides: doc },
    });
    await w.publish(shared);
    const third = await w.json("/v1/_chrome");
    assert.equal(
      region(third.body).items[0].document.props["about"].heading,
      "Changed heading",
    );
    assert.notEqual(
      third.res.headers.get("etag"),
      second.headers.get("etag"),
    );
  } finally {
    await w.close();
  }
});
