// Settings and menus written through the Management API take effect on the very next public read
// (spec 2 part 4.2; SET-001, SET-002, SET-004, SET-005, SET-006, SET-008).
import assert from "node:assert/strict";
import { createModel } from "../../core/models/store.ts";
import { type ManageFixture, withManageApp } from "./helpers.ts";

/** A published post "hello" in English only, and a caller holding what these tests write with. */
async function setup(t: ManageFixture) {
  const cred = await t.credential([
    "content:read",
    "content:write",
    "lifecycle:publish",
    "settings:write",
  ]);
  const call = async (method: string, path: string, body?: unknown) => {
    const response = await t.call(method, path, {
      secret: cred.secret,
      body,
      key: method === "GET" ? undefined : crypto.randomUUID(),
    });
    const answer = await response.json();
    assert.ok(response.ok, `${method} ${path}: ${JSON.stringify(answer)}`);
    return answer;
  };
  const made = await createModel(
    { db: t.services.db, clock: t.clock, siteId: t.siteId },
    {
      model: { name: "Posts", slug: "posts", enableI18n: true },
      fields: [
        { key: "title", label: "Title", type: "text", localized: true },
        { key: "body", label: "Body", type: "text", localized: true },
      ],
    },
  );
  if (!made.ok) throw new Error(JSON.stringify(made));
  const entry = await call("POST", "/entries", {
    model_id: made.model.id,
    locale: "en",
    slug: "hello",
    fields: { title: "Hello aardvark", body: "Zebra text" },
  });
  await call("POST", `/entries/${entry.id}/publish`, {
    expected_current_version_id: entry.current_version_id,
    expected_workflow_revision: 0,
  });
  /** A public read on the site's own host. */
  const read = async (path: string) => {
    const response = await t.app.request(`http://manage.test${path}`, {
      headers: { host: "manage.test" },
    });
    return { status: response.status, body: await response.json() };
  };
  return { call, read };
}

Deno.test("PUT /settings/editorial stores the document; GET answers it at the new revision (SET-001)", () =>
  withManageApp(async (t) => {
    const { call } = await setup(t);
    const document = {
      version_retention_days: 30,
      review_required: true,
      allowed_embed_origins: ["https://www.youtube.com"],
    };
    const put = await call("PUT", "/settings/editorial", {
      expected_revision: 0,
      document,
    });
    assert.equal(put.revision, 1);
    const read = await call("GET", "/settings/editorial");
    assert.deepEqual(read.document, document);
    assert.equal(read.revision, 1);
  }));

Deno.test("PUT /settings/language-fallback decides what /v1 serves for a missing language (SET-002)", () =>
  withManageApp(async (t) => {
    const { call, read } = await setup(t);
    const fallback = await read("/v1/posts/hello?locale=de");
    assert.equal(fallback.status, 200);
    assert.equal(fallback.body.data.locale, "en");
    await call("PUT", "/settings/language-fallback", {
      expected_revision: 0,
      document: { policy: "strict", chains: {} },
    });
    const strict = await read("/v1/posts/hello?locale=de");
    assert.equal(strict.status, 404);
    assert.equal(strict.body.error.code, "locale_unavailable");
    await call("PUT", "/settings/language-fallback", {
      expected_revision: 1,
      document: { policy: "fallback", chains: { de: ["en"] } },
    });
    const back = await read("/v1/posts/hello?locale=de");
    assert.equal(back.status, 200);
    assert.equal(back.body.data.locale, "en");
  }));

Deno.test("PUT /settings/search changes what the next /v1/_search finds, and turns search off (SET-004)", () =>
  withManageApp(async (t) => {
    const { call, read } = await setup(t);
    const slugs = async (q: string) =>
      (await read(`/v1/_search?q=${q}`)).body.data.map((
        hit: { slug: string },
      ) => hit.slug);
    assert.deepEqual(await slugs("zebra"), ["hello"]);
    await call("PUT", "/settings/search", {
      expected_revision: 0,
      document: {
        enabled: true,
        types: [{ model: "posts", fields: [{ field: "title", weight: 5 }] }],
      },
    });
    assert.deepEqual(await slugs("zebra"), [], "body is no longer searched");
    assert.deepEqual(await slugs("aardvark"), ["hello"]);
    await call("PUT", "/settings/search", {
      expected_revision: 1,
      document: { enabled: false, types: [] },
    });
    const off = await read("/v1/_search?q=aardvark");
    assert.equal(off.status, 404);
    assert.equal(off.body.error.code, "search_off");
  }));

Deno.test("PUT /menus/{key} and /settings/chrome show in the next /v1/_chrome (SET-005, SET-008)", () =>
  withManageApp(async (t) => {
    const { call, read } = await setup(t);
    const before = await read("/v1/_chrome");
    assert.deepEqual(before.body.data.menus, {});
    assert.equal(before.body.data.footer_note, null);
    await call("PUT", "/menus/main", {
      items: [{ id: "home", label: { en: "Home" }, href: "/" }],
    });
    await call("PUT", "/settings/chrome", {
      expected_revision: 0,
      document: {
        placements: { header: "main", footer: null },
        footer_note: { en: "Bye" },
      },
    });
    const placed = (await read("/v1/_chrome")).body.data;
    assert.deepEqual(placed.placements, { header: "main", footer: null });
    assert.deepEqual(placed.footer_note, { lang: "en", text: "Bye" });
    assert.deepEqual(placed.menus.main.items, [
      { id: "home", label: "Home", href: "/", children: [] },
    ]);
    // A menu change alone shows at once too.
    await call("PUT", "/menus/main", {
      items: [{ id: "blog", label: { en: "Blog" }, href: "/blog" }],
    });
    assert.deepEqual((await read("/v1/_chrome")).body.data.menus.main.items, [
      { id: "blog", label: "Blog", href: "/blog", children: [] },
    ]);
  }));

Deno.test("PUT /settings/seo with a redirect lists it in the next /v1/_redirects (SET-006)", () =>
  withManageApp(async (t) => {
    const { call, read } = await setup(t);
    assert.deepEqual((await read("/v1/_redirects")).body.data, []);
    const redirect = { from: "/old", match: "exact", status: 301, to: "/new" };
    await call("PUT", "/settings/seo", {
      expected_revision: 0,
      document: {
        title_template: "{title} | Site",
        default_description: "",
        robots: { index: true, extra: "" },
        redirects: [redirect],
      },
    });
    assert.deepEqual((await read("/v1/_redirects")).body.data, [redirect]);
    assert.equal(
      (await call("GET", "/settings/seo")).document.title_template,
      "{title} | Site",
    );
  }));
