// /v1/_chrome menu items for type lists (a Blog list) and archives (categories, tags), headings,
// and the checks menu writes make on them (PAUX-014).
import assert from "node:assert/strict";
import { getMenu, replaceMenu } from "../../core/chrome/menu_admin.ts";
import { entryContentFacts } from "../../core/manage/content_facts.ts";
import { applyModelDefinition } from "../../core/models/store.ts";
import { definitionOf, loadModels } from "../../core/models/store_rows.ts";
import { openAuxWorld } from "./helpers.ts";

Deno.test("/v1/_chrome serves Blog list and archive items at their live address per language; a dead tag, a private type and an emptied heading are left out (PAUX-014)", async () => {
  const w = await openAuxWorld();
  try {
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
          config: { options: ["news", "guide"] },
        },
        {
          key: "tags",
          label: "Tags",
          type: "relation",
          config: { targets: [tags], cardinality: "many-to-many" },
        },
      ],
    });
    const pages = await w.model({
      model: { name: "Pages", slug: "pages", enableI18n: true },
      fields: [{ key: "title", label: "Title", type: "text", localized: true }],
    });
    const deno = await w.save({
      model: tags,
      locale: "en",
      slug: "deno",
      fields: { name: "Deno" },
    });
    await w.save({
      group: deno.group_id,
      locale: "de",
      slug: "deno-de",
      fields: { name: "Deno" },
    });
    await w.publish(deno.group_id);
    const menus = {
      db: w.services.db,
      clock: w.clock,
      siteId: w.siteId,
      actor: w.ctx.actor,
    };
    const items = [
      { id: "blog", label: { en: "Blog", de: "Blog" }, list: posts },
      {
        id: "topics",
        label: { en: "Topics", de: "Themen" },
        children: [
          {
            id: "news",
            label: { en: "News", de: "Neues" },
            archive: { model: posts, field: "category", value: "news" },
          },
        ],
      },
      {
        id: "tagged",
        label: { en: "Tagged", de: "Markiert" },
        children: [
          {
            id: "deno",
            label: { en: "Deno", de: "Deno" },
            archive: { model: posts, field: "tags", value: deno.group_id },
          },
        ],
      },
      { id: "empty-heading", label: { en: "Nothing" }, children: [] },
    ];
    const saved = await replaceMenu(menus, "main", items);
    assert.ok(saved.ok, JSON.stringify(saved));
    const en = await w.json("/v1/_chrome");
    assert.equal(en.status, 200);
    assert.deepEqual(en.body.data.menus.main.items, [
      { id: "blog", label: "Blog", href: "/posts", children: [] },
      {
        id: "topics",
        label: "Topics",
        href: null,
        children: [{ id: "news", label: "News", href: "/posts/category/news" }],
      },
      {
        id: "tagged",
        label: "Tagged",
        href: null,
        children: [{ id: "deno", label: "Deno", href: "/posts/tags/deno" }],
      },
    ]);
    const de = await w.json("/v1/_chrome?locale=de");
    assert.deepEqual(
      de.body.data.menus.main.items.map((i: { href: string | null }) => i.href),
      ["/de/posts", null, null],
    );
    assert.equal(
      de.body.data.menus.main.items[2].children[0].href,
      "/de/posts/tags/deno-de",
    );
    // The tag is no longer live: its archive goes, and the heading over it with it.
    await w.unpublish(deno.group_id);
    const unpublished = await w.json("/v1/_chrome");
    assert.deepEqual(
      unpublished.body.data.menus.main.items.map((i: { id: string }) => i.id),
      ["blog", "topics"],
    );
    // A private type: its list and archives go.
    const [stored] = await loadModels(w.services.db, w.siteId, [posts]);
    const changed = await applyModelDefinition(
      { db: w.services.db, clock: w.clock, siteId: w.siteId },
      posts,
      {
        ...definitionOf(stored),
        model: { ...definitionOf(stored).model, isPublic: false },
      },
      {
        baseRevision: stored.revision,
        facts: (db, m) => entryContentFacts(db, w.siteId, m),
      },
    );
    assert.ok(changed.ok, JSON.stringify(changed));
    const hidden = await w.json("/v1/_chrome");
    assert.deepEqual(hidden.body.data.menus.main.items, []);

    // Writes refuse lists and archives that cannot lead anywhere, and change nothing.
    const before = await getMenu(w.services.db, w.siteId, "main");
    const refusals: [unknown, string, string][] = [
      [
        { list: crypto.randomUUID() },
        "items.0.list",
        "No content type",
      ],
      [{ list: pages }, "items.0.list", "has no list or archive"],
      [
        { archive: { model: posts, field: "category", value: "sports" } },
        "items.0.archive",
        "is not an option",
      ],
      [
        { archive: { model: posts, field: "title", value: "x" } },
        "items.0.archive",
        "is not a select",
      ],
      [
        { archive: { model: posts, field: "tags", value: "deno" } },
        "items.0.archive",
        "by its id",
      ],
      [{ list: posts, href: "/blog" }, "items.0", "leads to one place"],
    ];
    for (const [link, path, message] of refusals) {
      const refused = await replaceMenu(menus, "main", [
        { id: "x", label: { en: "X" }, ...(link as object) },
      ]);
      assert.equal(refused.ok, false, JSON.stringify(link));
      if (refused.ok || refused.code !== "input_invalid") {
        throw new Error(
          `Expected input_invalid, got ${JSON.stringify(refused)}`,
        );
      }
      assert.equal(refused.problems[0].path, path, JSON.stringify(link));
      assert.match(refused.problems[0].message, new RegExp(message));
    }
    assert.deepEqual(await getMenu(w.services.db, w.siteId, "main"), before);
  } finally {
    await w.close();
  }
});
