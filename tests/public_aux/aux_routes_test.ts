// /v1/_client, /v1/_redirects and /v1/_chrome over HTTP (PAUX-002 to PAUX-014, PAUX-020), and sync with a token.
// deno-lint-ignore-file no-explicit-any -- answers are parsed JSON checked field by field
import { assertIfNoneMatch } from "../support/conditional.ts";
import assert from "node:assert/strict";
import {
  issueSiteToken,
  revokeSiteToken,
} from "../../core/public/site_tokens.ts";
import { putMenu } from "../../core/chrome/menus.ts";
import {
  matchRedirect,
  type RedirectRule,
} from "../../core/chrome/redirects.ts";
import { entryContentFacts } from "../../core/manage/content_facts.ts";
import { applyModelDefinition } from "../../core/models/store.ts";
import { definitionOf, loadModels } from "../../core/models/store_rows.ts";
import { articleModels, openAuxWorld } from "./helpers.ts";

Deno.test("/v1/_client needs a live site API token, takes no query string and is never cached; schema_identity ignores labels and order (PAUX-002, PAUX-003, PAUX-004, PAUX-005, PAUX-020)", async () => {
  const w = await openAuxWorld();
  try {
    const { articles, memos, people } = await articleModels(w);
    const issued = await issueSiteToken(w.services, {
      siteId: w.siteId,
      name: "build",
      modelIds: [memos],
    });
    assert.ok(issued.ok);
    const auth = { authorization: `Bearer ${issued.token}` };
    const none = await w.json("/v1/_client");
    assert.equal(none.status, 404);
    assert.equal(none.res.headers.get("cache-control"), "no-store");
    const query = await w.json("/v1/_client?x=1", auth);
    assert.equal(query.status, 400);
    assert.equal(query.body.error.code, "public_filter_invalid");
    const r = await w.json("/v1/_client", auth);
    assert.equal(r.status, 200);
    assert.equal(r.res.headers.get("cache-control"), "no-store");
    const data = r.body.data;
    assert.deepEqual(Object.keys(data).sort(), [
      "contract",
      "contract_version",
      "models",
      "schema_identity",
      "site",
      "source",
      "url",
    ]);
    assert.equal(data.contract_version, 1);
    assert.match(data.schema_identity, /^[0-9a-f]{64}$/);
    assert.deepEqual(data.models, ["articles", "memos", "people"]);
    assert.deepEqual(Object.keys(data.contract).sort(), [
      "default_locale",
      "locale_policy",
      "locales",
      "models",
      "site",
    ]);
    assert.equal(data.contract.models.memos.visibility, "private");
    assert.deepEqual(data.contract.models.articles.fields.title, {
      type: "text",
      required: false,
      multiple: false,
      options: null,
    });
    // MOD-029: the public client never names a private field.
    assert.equal(
      data.contract.models.articles.fields.secret,
      undefined,
      "private field leaked",
    );
    assert.ok(!data.source.includes("secret"));
    // PAUX-005: labels and field order leave the identity alone; a new field changes it.
    const change = async (
      modelId: string,
      fields: (fields: any[]) => any[],
    ) => {
      const [model] = await loadModels(w.services.db, w.siteId, [modelId]);
      const definition = definitionOf(model);
      const applied = await applyModelDefinition(
        { db: w.services.db, clock: w.clock, siteId: w.siteId },
        modelId,
        { ...definition, fields: fields(definition.fields) },
        {
          baseRevision: model.revision,
          facts: (db, m) => entryContentFacts(db, w.siteId, m),
        },
      );
      assert.ok(applied.ok, JSON.stringify(applied));
    };
    await change(
      articles,
      (fields) =>
        fields.map((f) => f.key === "title" ? { ...f, label: "Heading" } : f)
          .reverse(),
    );
    const relabelled = (await w.json("/v1/_client", auth)).body.data;
    assert.deepEqual(
      Object.keys(relabelled.contract.models.articles.fields),
      Object.keys(data.contract.models.articles.fields).reverse(),
      "the change was served",
    );
    assert.equal(relabelled.schema_identity, data.schema_identity);
    await change(people, (fields) => [...fields, {
      key: "bio",
      label: "Bio",
      type: "text",
    }]);
    const withField = (await w.json("/v1/_client", auth)).body.data
      .schema_identity;
    assert.notEqual(withField, data.schema_identity);
    await w.model({
      model: { name: "Extra", slug: "extra" },
      fields: [{ key: "x", label: "X", type: "text" }],
    });
    assert.notEqual(
      (await w.json("/v1/_client", auth)).body.data.schema_identity,
      withField,
    );
    // Revoked, expired or another site's token: 404.
    await revokeSiteToken(w.services, w.siteId, issued.id);
    assert.equal((await w.json("/v1/_client", auth)).status, 404);
    const expiring = await issueSiteToken(w.services, {
      siteId: w.siteId,
      name: "short",
      modelIds: [],
      expiresAt: new Date(w.clock.now().getTime() + 1000),
    });
    assert.ok(expiring.ok);
    assert.equal(
      (await w.json("/v1/_client", {
        authorization: `Bearer ${expiring.token}`,
      })).status,
      200,
    );
    w.clock.advance(1000);
    assert.equal(
      (await w.json("/v1/_client", {
        authorization: `Bearer ${expiring.token}`,
      })).status,
      404,
    );
  } finally {
    await w.close();
  }
});

Deno.test("/v1/_sync serves a private model only with a token naming it, and binds cursors to the token (SYNC-001, SYNC-004)", async () => {
  const w = await openAuxWorld();
  try {
    const { memos } = await articleModels(w);
    const m = await w.save({
      model: memos,
      locale: "en",
      slug: "m",
      fields: { title: "Memo" },
    });
    await w.publish(m.group_id);
    const issued = await issueSiteToken(w.services, {
      siteId: w.siteId,
      name: "sync",
      modelIds: [memos],
    });
    assert.ok(issued.ok);
    const auth = { authorization: `Bearer ${issued.token}` };
    assert.equal((await w.json("/v1/_sync?model=memos")).status, 400);
    const withToken = await w.json("/v1/_sync?model=memos", auth);
    assert.equal(withToken.status, 200);
    assert.deepEqual(withToken.body.data.map((i: any) => i.slug), ["m"]);
    const publicWalk = await w.json("/v1/_sync");
    assert.deepEqual(publicWalk.body.data, []);
    const stolen = await w.json(
      `/v1/_sync?cursor=${withToken.body.next_cursor}`,
    );
    assert.equal(stolen.status, 400);
    assert.equal(stolen.body.error.code, "sync_query_invalid");
  } finally {
    await w.close();
  }
});

Deno.test("matchRedirect(): exact beats pattern, most literal segments wins, {name*} carries the rest (PAUX-007, PAUX-009)", () => {
  const rules: RedirectRule[] = [
    {
      from: "/blog/{slug}",
      match: "pattern",
      status: 301,
      to: "/posts/{slug}",
    },
    {
      from: "/blog/{year}/{slug}",
      match: "pattern",
      status: 301,
      to: "/archive/{year}/{slug}",
    },
    {
      from: "/blog/news/{slug}",
      match: "pattern",
      status: 302,
      to: "/news/{slug}",
    },
    {
      from: "/blog/hello",
      match: "exact",
      status: 308,
      to: "https://example.com/hi",
    },
    {
      from: "/docs/{rest*}",
      match: "pattern",
      status: 307,
      to: "/manual/{rest}",
    },
    { from: "/gone", match: "exact", status: 410, to: null },
  ];
  assert.equal(
    matchRedirect(rules, "/blog/hello")?.location,
    "https://example.com/hi",
  );
  assert.equal(matchRedirect(rules, "/blog/other")?.location, "/posts/other");
  assert.equal(matchRedirect(rules, "/blog/news/x")?.location, "/news/x");
  assert.equal(
    matchRedirect(rules, "/blog/2024/x")?.location,
    "/archive/2024/x",
  );
  assert.equal(matchRedirect(rules, "/docs/a/b/c")?.location, "/manual/a/b/c");
  assert.equal(matchRedirect(rules, "/docs"), null);
  assert.deepEqual(matchRedirect(rules, "/gone"), {
    rule: rules[5],
    status: 410,
    location: null,
  });
  assert.equal(matchRedirect(rules, "/blog/a/b/c"), null);
});

Deno.test("/v1/_redirects lists accepted rules in precedence order, the same with or without a token; query strings and unreadable settings are refused (PAUX-006, PAUX-008, PAUX-010, PAUX-011)", async () => {
  const w = await openAuxWorld();
  try {
    const redirects = [
      {
        from: "/blog/{slug}",
        match: "pattern",
        status: 301,
        to: "/posts/{slug}",
      },
      { from: "/old", match: "exact", status: 301, to: "/new" },
      { from: "/gone", match: "exact", status: 451, to: null },
    ];
    await w.settings("seo", {
      title_template: "{title}",
      default_description: "",
      robots: { index: true, extra: "" },
      redirects,
    });
    const r = await w.json("/v1/_redirects");
    assert.equal(r.status, 200);
    assert.deepEqual(r.body.data.map((x: any) => x.from), [
      "/old",
      "/gone",
      "/blog/{slug}",
    ]);
    assert.match(r.res.headers.get("cache-control")!, /max-age=30/);
    const etag = r.res.headers.get("etag")!;
    // Weak comparison, lists and `*` (RFC 9110; issue 39 item 5).
    await assertIfNoneMatch(
      (headers) => w.get("/v1/_redirects", headers),
      etag,
      "/v1/_redirects",
    );
    const m = await w.model({
      model: { name: "M", slug: "m" },
      fields: [{ key: "t", label: "T", type: "text" }],
    });
    const issued = await issueSiteToken(w.services, {
      siteId: w.siteId,
      name: "t",
      modelIds: [m],
    });
    assert.ok(issued.ok);
    assert.deepEqual(
      (await w.json("/v1/_redirects", {
        authorization: `Bearer ${issued.token}`,
      })).body,
      r.body,
    );
    for (const q of ["?a=1", "?"]) {
      const bad = await w.json(`/v1/_redirects${q}`);
      if (q === "?") continue; // a bare "?" carries no query string
      assert.equal(bad.status, 400);
      assert.equal(bad.body.error.code, "public_filter_invalid");
    }
    await w.services.db.updateTable("site_settings").set({
      document: JSON.stringify({ redirects: "broken" }),
    })
      .where("site_id", "=", w.siteId).where("key", "=", "seo").execute();
    const broken = await w.json("/v1/_redirects");
    assert.equal(broken.status, 500);
    assert.equal(broken.body.error.code, "site_chrome_unreadable");
  } finally {
    await w.close();
  }
});

Deno.test("/v1/_chrome answers menus with live addresses per language, leaves out dead links and empty labels; locale rules (PAUX-012, PAUX-013, PAUX-014)", async () => {
  const w = await openAuxWorld();
  try {
    const pages = await w.model({
      model: { name: "Pages", slug: "pages", enableI18n: true },
      fields: [{ key: "title", label: "Title", type: "text", localized: true }],
    });
    const { memos } = await articleModels(w);
    const about = await w.save({
      model: pages,
      locale: "en",
      slug: "about",
      fields: { title: "About" },
    });
    await w.save({
      group: about.group_id,
      locale: "de",
      slug: "ueber",
      fields: { title: "Über" },
    });
    await w.publish(about.group_id);
    const contact = await w.save({
      model: pages,
      locale: "en",
      slug: "contact",
      fields: { title: "Contact" },
    });
    await w.publish(contact.group_id);
    const memo = await w.save({
      model: memos,
      locale: "en",
      slug: "memo",
      fields: { title: "M" },
    });
    await w.publish(memo.group_id);
    await w.settings("chrome", {
      placements: { header: "main", footer: null },
      footer_note: { en: "Made with care", de: "Mit Sorgfalt" },
    });
    const menu = await putMenu(w.services.db, w.siteId, "main", [
      {
        id: "about",
        label: { en: "About us", de: "Über uns" },
        entry: about.group_id,
        children: [
          { id: "contact", label: { en: "Contact" }, entry: contact.group_id },
          { id: "memo", label: { en: "Memo" }, entry: memo.group_id },
        ],
      },
      { id: "ext", label: { en: "Shop" }, href: "https://shop.example" },
      { id: "empty", label: { en: " " }, href: "/x" },
    ], w.clock.now());
    assert.ok(menu.ok);
    const en = await w.json("/v1/_chrome");
    assert.equal(en.status, 200);
    assert.deepEqual(en.body.data, {
      locale: "en",
      menus: {
        main: {
          lang: "en",
          items: [
            {
              id: "about",
              label: "About us",
              href: "/about",
              children: [{ id: "contact", label: "Contact", href: "/contact" }],
            },
            {
              id: "ext",
              label: "Shop",
              href: "https://shop.example",
              children: [],
            },
          ],
        },
      },
      placements: { header: "main", footer: null },
      footer_note: { lang: "en", text: "Made with care" },
      // The built-in template's region, holding nothing yet.
      regions: [{ key: "footer", label: "Footer columns", items: [] }],
    });
    const de = await w.json("/v1/_chrome?locale=de");
    assert.deepEqual(de.body.data.menus.main.items[0], {
      id: "about",
      label: "Über uns",
      href: "/de/pages/ueber".replace("/pages", ""),
      children: [{ id: "contact", label: "Contact", href: "/de/contact" }],
    });
    assert.deepEqual(de.body.data.footer_note, {
      lang: "de",
      text: "Mit Sorgfalt",
    });
    await w.unpublish(contact.group_id);
    const after = await w.json("/v1/_chrome?locale=en");
    assert.deepEqual(after.body.data.menus.main.items[0].children, []);
    const bad = await w.json("/v1/_chrome?locale=xx");
    assert.equal(bad.status, 400);
    assert.equal(bad.body.error.code, "public_chrome_invalid");
    for (const q of ["locale=en&locale=de", "lang=en", "locale="]) {
      const r = await w.json(`/v1/_chrome?${q}`);
      assert.equal(r.status, 400, q);
      assert.equal(r.body.error.code, "public_filter_invalid", q);
    }
    await w.services.db.updateTable("site_settings").set({
      document: JSON.stringify({ placements: 1 }),
    })
      .where("site_id", "=", w.siteId).where("key", "=", "chrome").execute();
    const broken = await w.json("/v1/_chrome");
    assert.equal(broken.status, 500);
    assert.equal(broken.body.error.code, "site_chrome_unreadable");
  } finally {
    await w.close();
  }
});

Deno.test("/v1/_chrome is the same with or without a token, cached with a validator, and changes when a referenced page publishes (PAUX-016)", async () => {
  const w = await openAuxWorld();
  try {
    const pages = await w.model({
      model: { name: "Pages", slug: "pages" },
      fields: [{ key: "title", label: "Title", type: "text" }],
    });
    const about = await w.save({
      model: pages,
      locale: "en",
      slug: "about",
      fields: { title: "About" },
    });
    await w.settings("chrome", {
      placements: { header: "main", footer: null },
      footer_note: {},
    });
    const menu = await putMenu(w.services.db, w.siteId, "main", [
      { id: "about", label: { en: "About" }, entry: about.group_id },
    ], w.clock.now());
    assert.ok(menu.ok);
    const before = await w.json("/v1/_chrome");
    assert.equal(before.status, 200);
    assert.deepEqual(before.body.data.menus.main.items, []);
    assert.match(before.res.headers.get("cache-control")!, /max-age=30/);
    const etag = before.res.headers.get("etag")!;
    await assertIfNoneMatch(
      (headers) => w.get("/v1/_chrome", headers),
      etag,
      "/v1/_chrome",
    );
    const issued = await issueSiteToken(w.services, {
      siteId: w.siteId,
      name: "t",
      modelIds: [pages],
    });
    assert.ok(issued.ok);
    const withToken = await w.json("/v1/_chrome", {
      authorization: `Bearer ${issued.token}`,
    });
    assert.deepEqual(withToken.body, before.body);
    assert.equal(withToken.res.headers.get("etag"), etag);
    await w.publish(about.group_id);
    const after = await w.get("/v1/_chrome", { "if-none-match": etag });
    assert.equal(after.status, 200);
    assert.notEqual(after.headers.get("etag"), etag);
    assert.deepEqual((await after.json()).data.menus.main.items, [
      { id: "about", label: "About", href: "/about", children: [] },
    ]);
  } finally {
    await w.close();
  }
});
