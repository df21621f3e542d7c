// /pages/{id}, /pages/{id}/save, /pages/{id}/translations (spec 2 part 4.2; ENT-028, ENT-029,
// ENT-031): the document parsed on save, replays answering `created: false`, reserved addresses.
import assert from "node:assert/strict";
import { createModel } from "../../core/models/store.ts";
import { exampleHomePage } from "../../core/pages/example.ts";
import { type ManageFixture, refusal, withManageApp } from "./helpers.ts";

async function setup(t: ManageFixture) {
  const made = await createModel(
    { db: t.services.db, clock: t.clock, siteId: t.siteId },
    {
      model: { name: "Pages", slug: "pages", enableI18n: true },
      fields: [
        {
          key: "title",
          label: "Title",
          type: "text",
          required: true,
          localized: true,
        },
        { key: "slides", label: "Slides", type: "json", localized: true },
      ],
    },
  );
  if (!made.ok) throw new Error(JSON.stringify(made));
  const { secret } = await t.credential([
    "content:read",
    "content:write",
    "pages:write",
  ]);
  const created = await t.call("POST", "/entries", {
    body: {
      model_id: made.model.id,
      locale: "en",
      slug: "home",
      fields: { title: "Home", slides: exampleHomePage("en") },
    },
    key: "create-home",
    secret,
  });
  assert.equal(created.status, 201, await created.clone().text());
  const entry = await created.json();
  return { secret, modelId: made.model.id, entry };
}

Deno.test("GET /pages/{id} reads each language's document and contract (ENT-028)", () =>
  withManageApp(async (t) => {
    const { secret, entry } = await setup(t);
    const res = await t.call("GET", `/pages/${entry.id}`, { secret });
    assert.equal(res.status, 200);
    const page = await res.json();
    assert.equal(page.locales.en.slug, "home");
    assert.deepEqual(page.locales.en.document, exampleHomePage("en"));
    assert.equal(page.locales.en.document_error, null);
    assert.equal(page.locales.en.page_contract.required, 2);
    assert.deepEqual(page.locales.en.fields, { title: "Home" });
    const missing = await t.call("GET", `/pages/${crypto.randomUUID()}`, {
      secret,
    });
    assert.equal(missing.status, 404);
  }));

Deno.test("POST /pages/{id}/save saves the document; a replay answers created: false; a broken document is refused at its path (ENT-028, PAGE-002)", () =>
  withManageApp(async (t) => {
    const { secret, entry } = await setup(t);
    const doc = exampleHomePage("en");
    (doc.props.hero as Record<string, unknown>).heading = "A new heading";
    const body = {
      locale: "en",
      expected_current_version_id: entry.current_version_id,
      document: doc,
    };
    const first = await t.call("POST", `/pages/${entry.id}/save`, {
      body,
      key: "save-1",
      secret,
    });
    assert.equal(first.status, 200, await first.clone().text());
    const saved = await first.json();
    assert.equal(saved.created, true);
    assert.notEqual(saved.current_version_id, entry.current_version_id);
    const again = await t.call("POST", `/pages/${entry.id}/save`, {
      body,
      key: "save-1",
      secret,
    });
    assert.equal(again.status, 200);
    const replay = await again.json();
    assert.equal(replay.created, false);
    assert.equal(replay.replayed, true);
    assert.equal(replay.current_version_id, saved.current_version_id);
    const read = await (await t.call("GET", `/pages/${entry.id}`, { secret }))
      .json();
    assert.equal(read.locales.en.document.props.hero.heading, "A new heading");
    // Other values of the language are kept.
    assert.deepEqual(read.locales.en.fields, { title: "Home" });

    const broken = structuredClone(doc);
    (broken.props.questions as Record<string, unknown>).items = [];
    const refused = await t.call("POST", `/pages/${entry.id}/save`, {
      body: {
        ...body,
        expected_current_version_id: saved.current_version_id,
        document: broken,
      },
      key: "save-2",
      secret,
    });
    assert.equal(refused.status, 422);
    const error = await refusal(refused);
    assert.equal(error.code, "field_validation_failed");
    const problems = error.errors as { path: string; code: string }[];
    assert.deepEqual(problems.map((p) => [p.path, p.code]), [[
      "slides.props.questions.items",
      "invalid_slide",
    ]]);
    // Nothing changed.
    const after = await (await t.call("GET", `/pages/${entry.id}`, { secret }))
      .json();
    assert.equal(after.locales.en.current_version_id, saved.current_version_id);
    // A stale pin.
    const stale = await t.call("POST", `/pages/${entry.id}/save`, {
      body,
      key: "save-3",
      secret,
    });
    assert.equal(stale.status, 409);
    assert.equal((await refusal(stale)).code, "version_conflict");
  }));

Deno.test("POST /pages/{id}/translations adds a language; reserved addresses are refused slug_reserved (ENT-029, ENT-031)", () =>
  withManageApp(async (t) => {
    const { secret, entry } = await setup(t);
    const reserved = await t.call("POST", `/pages/${entry.id}/translations`, {
      body: {
        locale: "de",
        slug: "search",
        document: exampleHomePage("de"),
        fields: { title: "Suche" },
      },
      key: "tr-0",
      secret,
    });
    assert.equal(reserved.status, 409);
    assert.equal((await refusal(reserved)).code, "slug_reserved");
    const body = {
      locale: "de",
      slug: "start",
      document: exampleHomePage("de"),
      fields: { title: "Start" },
    };
    const added = await t.call("POST", `/pages/${entry.id}/translations`, {
      body,
      key: "tr-1",
      secret,
    });
    assert.equal(added.status, 201, await added.clone().text());
    const first = await added.json();
    assert.equal(first.created, true);
    assert.equal(first.locales.de.slug, "start");
    const replay = await (await t.call(
      "POST",
      `/pages/${entry.id}/translations`,
      { body, key: "tr-1", secret },
    )).json();
    assert.equal(replay.created, false);
    const twice = await t.call("POST", `/pages/${entry.id}/translations`, {
      body,
      key: "tr-2",
      secret,
    });
    assert.equal(twice.status, 409);
    assert.equal((await refusal(twice)).code, "locale_exists");
    const page = await (await t.call("GET", `/pages/${entry.id}`, { secret }))
      .json();
    assert.equal(
      page.locales.de.document.props.hero.heading,
      "Inhalte, die in Form bleiben",
    );
    // Saving a new address that is reserved is refused too.
    const move = await t.call("POST", `/pages/${entry.id}/save`, {
      body: {
        locale: "en",
        expected_current_version_id: page.locales.en.current_version_id,
        document: exampleHomePage("en"),
        slug: "sitemap-pages-1",
      },
      key: "save-r",
      secret,
    });
    assert.equal(move.status, 409);
    assert.equal((await refusal(move)).code, "slug_reserved");
    // pages:write is needed to save.
    const { secret: reader } = await t.credential(["content:read"]);
    const denied = await t.call("POST", `/pages/${entry.id}/save`, {
      body: {
        locale: "en",
        expected_current_version_id: page.locales.en.current_version_id,
        document: exampleHomePage("en"),
      },
      key: "save-d",
      secret: reader,
    });
    assert.equal(denied.status, 403);
  }));
