// The settings pages over HTTP: languages and fallbacks, editorial, navigation (menus, header and
// footer), SEO and redirects, site search. Each save goes through the settings services pinned to
// the revision shown; refusals keep what was typed and say what is wrong beside the field.
import { deepEqual, equal, match, ok } from "node:assert/strict";
import { getSettings } from "../../core/sites/settings.ts";
import { addPersonWith, setupDemo } from "./demo_helpers.ts";
import {
  alertText,
  CookieJar,
  csrfField,
  HOST,
  PASSWORD,
  request,
  signInAs,
} from "./helpers.ts";

async function signedIn() {
  const demo = await setupDemo();
  const jar = new CookieJar();
  await signInAs(demo.t, jar, { email: demo.email, password: PASSWORD });
  const open = async (path: string) => {
    const response = await request(demo.t, jar, path);
    equal(response.status, 200, path);
    const html = await response.text();
    return { html, csrf: csrfField(html) };
  };
  const post = (path: string, form: Record<string, string | string[]>) =>
    request(demo.t, jar, path, { form });
  const doc = <K extends Parameters<typeof getSettings>[1]>(key: K) =>
    getSettings({ db: demo.t.services.db, siteId: demo.siteId }, key);
  return { ...demo, jar, open, post, doc };
}

Deno.test("settings: the index links every page; languages are added, fallback chains saved, refusals kept beside the field, a stale save is a conflict", async () => {
  const s = await signedIn();
  try {
    const index = await s.open("/admin/settings");
    for (
      const href of ["languages", "editorial", "navigation", "seo", "search"]
    ) {
      match(index.html, new RegExp(`href="/admin/settings/${href}"`));
    }
    const page = await s.open("/admin/settings/languages");
    match(page.html, /Fallbacks of <code>de<\/code>/);
    const added = await s.post("/admin/settings/languages", {
      _csrf: page.csrf,
      action: "add",
      code: "fr",
    });
    equal(added.status, 303);
    match(
      (await s.open(added.headers.get("location")!)).html,
      /Language fr added/,
    );
    const bad = await s.post("/admin/settings/languages", {
      _csrf: page.csrf,
      action: "add",
      code: "French!",
    });
    equal(bad.status, 422);
    const badHtml = await bad.text();
    match(badHtml, /id="language-code-error"/);
    match(badHtml, /value="French!"/);
    const twice = await s.post("/admin/settings/languages", {
      _csrf: page.csrf,
      action: "add",
      code: "en",
    });
    equal(twice.status, 409);

    const before = await s.doc("language-fallback");
    const fresh = await s.open("/admin/settings/languages");
    const saved = await s.post("/admin/settings/languages", {
      _csrf: fresh.csrf,
      revision: String(before.revision),
      policy: "fallback",
      "chain.de": "en",
      "chain.fr": "de, en",
    });
    equal(saved.status, 303);
    deepEqual((await s.doc("language-fallback")).document, {
      policy: "fallback",
      chains: { de: ["en"], fr: ["de", "en"] },
    });
    const unknown = await s.post("/admin/settings/languages", {
      _csrf: fresh.csrf,
      revision: String(before.revision + 1),
      policy: "strict",
      "chain.de": "zz",
    });
    equal(unknown.status, 422);
    const unknownHtml = await unknown.text();
    match(unknownHtml, /id="chain-de-error"/);
    match(unknownHtml, /value="zz"/);
    ok(/value="strict" checked/.test(unknownHtml));
    // The page was read at the old revision: saving now is a conflict, the typed values kept.
    const stale = await s.post("/admin/settings/languages", {
      _csrf: fresh.csrf,
      revision: String(before.revision),
      policy: "strict",
    });
    equal(stale.status, 409);
    const staleHtml = await stale.text();
    match(alertText(staleHtml) ?? "", /Someone saved these settings/);
    match(
      staleHtml,
      new RegExp(`name="revision" value="${before.revision + 1}"`),
    );
    equal((await s.doc("language-fallback")).document.policy, "fallback");
  } finally {
    await s.t.close();
  }
});

Deno.test("settings: editorial retention, reviews and embed origins at their 20-origin edge", async () => {
  const s = await signedIn();
  try {
    const page = await s.open("/admin/settings/editorial");
    const origins = (n: number) =>
      Array.from({ length: n }, (_, i) => `https://video${i}.example`).join(
        "\n",
      );
    const save = (extra: Record<string, string>) =>
      s.post("/admin/settings/editorial", {
        _csrf: page.csrf,
        revision: "0",
        ...extra,
      });
    const tooMany = await save({
      version_retention_days: "30",
      allowed_embed_origins: origins(21),
    });
    equal(tooMany.status, 422);
    match(await tooMany.text(), /id="embed-origins-error"/);
    const notHttps = await save({ allowed_embed_origins: "http://x.example" });
    equal(notHttps.status, 422);
    const days = await save({ version_retention_days: "0" });
    equal(days.status, 422);
    match(await days.text(), /id="retention-error"/);
    equal((await s.doc("editorial")).revision, 0);
    const saved = await save({
      version_retention_days: "30",
      review_required: "true",
      allowed_embed_origins: origins(20),
    });
    equal(saved.status, 303);
    const stored = (await s.doc("editorial")).document;
    equal(stored.version_retention_days, 30);
    equal(stored.review_required, true);
    equal(stored.allowed_embed_origins?.length, 20);
  } finally {
    await s.t.close();
  }
});

Deno.test("settings: SEO fields and redirects (add, refuse a gone status with a target, remove), with the review's findings", async () => {
  const s = await signedIn();
  try {
    const page = await s.open("/admin/settings/seo");
    const base = {
      _csrf: page.csrf,
      title_template: "{title} · Demo",
      default_description: "A demo",
      robots_index: "true",
      robots_extra: "",
    };
    const refused = await s.post("/admin/settings/seo", {
      ...base,
      revision: "0",
      "r.from": ["/gone", "", ""],
      "r.match": ["exact", "exact", "exact"],
      "r.status": ["410", "301", "301"],
      "r.to": ["/somewhere", "", ""],
    });
    equal(refused.status, 422);
    const refusedHtml = await refused.text();
    match(refusedHtml, /class="field-error">[^<]*410 and 451/);
    match(refusedHtml, /value="\/gone"/);
    const saved = await s.post("/admin/settings/seo", {
      ...base,
      revision: "0",
      "r.from": ["/old", "/old", "/blog/{slug}"],
      "r.match": ["exact", "exact", "pattern"],
      "r.status": ["301", "302", "308"],
      "r.to": ["/new", "/newer", "/posts/{slug}"],
    });
    equal(saved.status, 303);
    const doc = (await s.doc("seo")).document;
    equal(doc.title_template, "{title} · Demo");
    equal(doc.redirects.length, 3);
    const review = await s.open("/admin/settings/seo");
    match(review.html, /aria-label="Redirect review"/);
    match(review.html, /Row 2<\/strong> \(duplicate\)/);
    const removed = await s.post("/admin/settings/seo", {
      ...base,
      revision: "1",
      "r.from": ["/old", "/old", "/blog/{slug}", ""],
      "r.match": ["exact", "exact", "pattern", "exact"],
      "r.status": ["301", "302", "308", "301"],
      "r.to": ["/new", "/newer", "/posts/{slug}", ""],
      "r.remove": "1",
    });
    equal(removed.status, 303);
    deepEqual((await s.doc("seo")).document.redirects.map((r) => r.to), [
      "/new",
      "/posts/{slug}",
    ]);
  } finally {
    await s.t.close();
  }
});

Deno.test("settings: navigation makes a menu with a nested link, places it in the header and saves a footer note", async () => {
  const s = await signedIn();
  try {
    const page = await s.open("/admin/settings/navigation");
    const badKey = await s.post("/admin/settings/navigation", {
      _csrf: page.csrf,
      action: "new-menu",
      key: "Main Menu",
    });
    equal(badKey.status, 422);
    const made = await s.post("/admin/settings/navigation", {
      _csrf: page.csrf,
      action: "new-menu",
      key: "main",
    });
    equal(made.status, 303);
    equal(made.headers.get("location"), "/admin/settings/navigation/main");
    const editor = await s.open("/admin/settings/navigation/main");
    match(editor.html, /A new menu/);
    const longId = "x".repeat(65);
    const tooLong = await s.post("/admin/settings/navigation/main", {
      _csrf: editor.csrf,
      "i.id": [longId, "", ""],
      "i.parent": ["", "", ""],
      "i.link": ["/", "", ""],
      "i.label.en": ["Home", "", ""],
      "i.label.de": ["", "", ""],
    });
    equal(tooLong.status, 422);
    const tooLongHtml = await tooLong.text();
    match(tooLongHtml, /class="field-error"/);
    match(tooLongHtml, new RegExp(`value="${longId}"`));
    const saved = await s.post("/admin/settings/navigation/main", {
      _csrf: editor.csrf,
      "i.id": ["home", "about", "team"],
      "i.parent": ["", "", "about"],
      "i.link": ["/", "/about", "/about/team"],
      "i.label.en": ["Home", "About", "Team"],
      "i.label.de": ["Start", "Über uns", "Team"],
    });
    equal(saved.status, 303, await saved.clone().text());
    const menu = await s.t.services.db.selectFrom("site_menus").select("items")
      .where("site_id", "=", s.siteId).where("key", "=", "main")
      .executeTakeFirstOrThrow();
    deepEqual(menu.items, [
      {
        id: "home",
        label: { en: "Home", de: "Start" },
        href: "/",
        children: [],
      },
      {
        id: "about",
        label: { en: "About", de: "Über uns" },
        href: "/about",
        children: [{
          id: "team",
          label: { en: "Team", de: "Team" },
          href: "/about/team",
        }],
      },
    ]);
    // PAUX-014: a Blog list and a category archive under a heading, typed as link text.
    const unknownType = await s.post("/admin/settings/navigation/blog", {
      _csrf: editor.csrf,
      "i.id": ["posts", "", ""],
      "i.parent": ["", "", ""],
      "i.link": ["list:nope", "", ""],
      "i.label.en": ["Posts", "", ""],
      "i.label.de": ["", "", ""],
    });
    equal(unknownType.status, 422);
    match(await unknownType.text(), /No content type &quot;nope&quot;/);
    const blog = await s.post("/admin/settings/navigation/blog", {
      _csrf: editor.csrf,
      "i.id": ["posts", "topics", "news"],
      "i.parent": ["", "", "topics"],
      "i.link": ["list:posts", "", "archive:posts/category/news"],
      "i.label.en": ["Posts", "Topics", "News"],
      "i.label.de": ["", "", ""],
    });
    equal(blog.status, 303, await blog.clone().text());
    const blogEditor = await s.open("/admin/settings/navigation/blog");
    match(blogEditor.html, /value="list:posts"/);
    match(blogEditor.html, /value="archive:posts\/category\/news"/);
    const served = await s.t.app.request("/v1/_chrome", {
      headers: { host: HOST },
    });
    const blogMenu = (await served.json()).data.menus.blog.items;
    deepEqual(blogMenu, [
      { id: "posts", label: "Posts", href: "/posts", children: [] },
      {
        id: "topics",
        label: "Topics",
        href: null,
        children: [{ id: "news", label: "News", href: "/posts/category/news" }],
      },
    ]);
    const chrome = await s.open("/admin/settings/navigation");
    match(chrome.html, /href="\/admin\/settings\/navigation\/main"/);
    const seeded = await s.doc("chrome");
    const placed = await s.post("/admin/settings/navigation", {
      _csrf: chrome.csrf,
      revision: String(seeded.revision),
      header: "main",
      footer: "",
      "note.en": "Made with Stave",
      "note.de": "",
    });
    equal(placed.status, 303);
    // The regions (edited on their own page) stay as they were.
    deepEqual((await s.doc("chrome")).document, {
      placements: { header: "main", footer: null },
      footer_note: { en: "Made with Stave" },
      regions: seeded.document.regions,
    });
  } finally {
    await s.t.close();
  }
});

Deno.test("settings: site search types with weighted fields; a weight over 10 is refused; site:infra is needed; new tuning starts at title 10, other fields 1 (SRCH-014, SRCH-018)", async () => {
  const s = await signedIn();
  try {
    const page = await s.open("/admin/settings/search");
    match(page.html, /Search Posts/);
    // SRCH-018: new custom settings start with the title at 10 and other text fields at 1.
    match(
      page.html,
      /id="fields-posts" name="fields.posts" value placeholder="title:10, body:1, category:1"/,
    );
    const refused = await s.post("/admin/settings/search", {
      _csrf: page.csrf,
      revision: "0",
      enabled: "true",
      type: "posts",
      "fields.posts": "title:11",
      "matching.posts": "whole_words",
    });
    equal(refused.status, 422);
    match(await refused.text(), /id="type-posts-error"/);
    const saved = await s.post("/admin/settings/search", {
      _csrf: page.csrf,
      revision: "0",
      enabled: "true",
      type: "posts",
      "fields.posts": "title:5, body",
      "matching.posts": "english_word_forms",
    });
    equal(saved.status, 303);
    deepEqual((await s.doc("search")).document, {
      enabled: true,
      types: [{
        model: "posts",
        fields: [{ field: "title", weight: 5 }, { field: "body", weight: 1 }],
        matching: "english_word_forms",
      }],
    });
    await addPersonWith(s, {
      email: "sam@example.com",
      displayName: "Sam",
      permissions: { models: { "*": ["read"] }, system: ["site:settings"] },
    });
    const jar = new CookieJar();
    await signInAs(s.t, jar, { email: "sam@example.com", password: PASSWORD });
    // SRCH-014: without site:infra the search settings neither show nor save.
    equal((await request(s.t, jar, "/admin/settings/search")).status, 403);
    const seo = await request(s.t, jar, "/admin/settings/seo");
    equal(seo.status, 200);
    const before = await s.doc("search");
    const refused2 = await request(s.t, jar, "/admin/settings/search", {
      form: {
        _csrf: csrfField(await seo.text()),
        revision: String(before.revision),
        enabled: "false",
      },
    });
    equal(refused2.status, 403);
    match(await refused2.text(), /site:infra/);
    deepEqual(await s.doc("search"), before);
  } finally {
    await s.t.close();
  }
});

Deno.test("settings: media files (kinds, the largest upload, formats) and comments (types, closing days) at their edges", async () => {
  const s = await signedIn();
  try {
    const media = await s.open("/admin/settings/media-files");
    match(media.html, /name="enabled_kinds" value="image" checked/);
    const none = await s.post("/admin/settings/media-files", {
      _csrf: media.csrf,
      revision: "0",
      max_upload_mb: "10",
    });
    equal(none.status, 422);
    match(await none.text(), /id="kinds-error"/);
    const tooBig = await s.post("/admin/settings/media-files", {
      _csrf: media.csrf,
      revision: "0",
      enabled_kinds: ["image"],
      max_upload_mb: "5000.000001",
    });
    equal(tooBig.status, 422);
    match(await tooBig.text(), /id="max-upload-error"/);
    const saved = await s.post("/admin/settings/media-files", {
      _csrf: media.csrf,
      revision: "0",
      enabled_kinds: ["image", "document"],
      max_upload_mb: "5000",
      enabled_formats: "PNG, jpg",
    });
    equal(saved.status, 303);
    deepEqual((await s.doc("media-files")).document, {
      enabled_kinds: ["image", "document"],
      max_upload_bytes: 5_000_000_000,
      enabled_formats: ["png", "jpg"],
    });

    const comments = await s.open("/admin/settings/comments");
    match(comments.html, /name="models" value="posts"/);
    const badDays = await s.post("/admin/settings/comments", {
      _csrf: comments.csrf,
      revision: "0",
      enabled: "true",
      models: "posts",
      close_after_days: "3651",
    });
    equal(badDays.status, 422);
    match(await badDays.text(), /id="close-after-error"/);
    const open = await s.post("/admin/settings/comments", {
      _csrf: comments.csrf,
      revision: "0",
      enabled: "true",
      models: ["posts"],
      close_after_days: "3650",
    });
    equal(open.status, 303);
    deepEqual((await s.doc("comments")).document, {
      enabled: true,
      models: ["posts"],
      close_after_days: 3650,
    });
  } finally {
    await s.t.close();
  }
});

Deno.test("settings: the Regions page adds, orders and removes blocks of the template's regions without JavaScript; an undeclared region is refused unknown_region (TPL-033, PAUX-015)", async () => {
  const s = await signedIn();
  try {
    const page = await s.open("/admin/settings/regions");
    match(page.html, /Footer columns <code class="muted">footer<\/code>/);
    match(page.html, /<option value="recent_posts">Recent posts<\/option>/);
    match(
      page.html,
      /<option value="categories:category">Categories by Category<\/option>/,
    );
    match(page.html, /<option value="tags:tags">Tags by Tags<\/option>/);
    const before = await s.doc("chrome");
    const form = (extra: Record<string, string>) => ({
      _csrf: page.csrf,
      revision: String(before.revision),
      region: "footer",
      ...extra,
    });
    const added = await s.post(
      "/admin/settings/regions",
      form({ action: "add", block: "search", title: "Find", limit: "5" }),
    );
    equal(added.status, 303);
    let footer = (await s.doc("chrome")).document.regions!.footer;
    deepEqual(footer.at(-1), { kind: "search", title: { en: "Find" } });
    const last = footer.length - 1;
    const up = await s.post(
      "/admin/settings/regions",
      {
        ...form({ action: "up", index: String(last) }),
        revision: String(before.revision + 1),
      },
    );
    equal(up.status, 303);
    footer = (await s.doc("chrome")).document.regions!.footer;
    equal(footer[last - 1].kind, "search");
    const removed = await s.post("/admin/settings/regions", {
      ...form({ action: "remove", index: String(last - 1) }),
      revision: String(before.revision + 2),
    });
    equal(removed.status, 303);
    deepEqual(
      (await s.doc("chrome")).document.regions,
      before.document.regions,
    );
    const refused = await s.post("/admin/settings/regions", {
      ...form({ action: "add", block: "search", region: "sidebar2" }),
      region: "sidebar2",
      revision: String(before.revision + 3),
    });
    equal(refused.status, 422);
    match(alertText(await refused.text()) ?? "", /need attention/);
    equal((await s.doc("chrome")).revision, before.revision + 3);
  } finally {
    await s.t.close();
  }
});
