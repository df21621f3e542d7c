// /menus: list, read, replace, add a language; settings:write; lost answers proved from the audit record.
import assert from "node:assert/strict";
import { createModel } from "../../core/models/mod.ts";
import { refusal, withManageApp } from "./helpers.ts";

const ITEMS = [
  {
    id: "home",
    label: { en: "Home" },
    href: "/",
    children: [{ id: "about", label: { en: "About" }, href: "/about" }],
  },
];

Deno.test("PUT /menus/{key} creates and replaces a menu; GET reads it back and lists it (SET-008)", () =>
  withManageApp(async (t) => {
    const put = await t.call("PUT", "/menus/main", {
      body: { items: ITEMS },
      key: "m-1",
    });
    assert.equal(put.status, 200);
    const menu = await put.json();
    assert.deepEqual(menu.items, ITEMS);
    assert.deepEqual(menu.languages, ["en"]);
    const read = await t.call("GET", "/menus/main");
    assert.deepEqual((await read.json()).items, ITEMS);
    const list = await (await t.call("GET", "/menus")).json();
    assert.deepEqual(list.data.map((m: { key: string }) => m.key), ["main"]);
    const missing = await t.call("GET", "/menus/footer");
    assert.equal(missing.status, 404);
  }));

Deno.test("PUT /menus/{key} refuses labels in a language the site lacks, a bad key and 101 items", () =>
  withManageApp(async (t) => {
    const foreign = await t.call("PUT", "/menus/main", {
      body: { items: [{ id: "x", label: { fr: "Accueil" }, href: "/" }] },
      key: "m-2",
    });
    assert.equal(foreign.status, 400);
    const body = await refusal(foreign);
    assert.equal(body.code, "input_invalid");
    assert.deepEqual((body.problems as { path: string }[]).map((p) => p.path), [
      "items.0.label.fr",
    ]);
    // MAPI-003: an unknown key inside an item is invalid_request naming it.
    const extra = await t.call("PUT", "/menus/main", {
      body: {
        items: [{ id: "x", label: { en: "Home" }, href: "/", colour: 1 }],
      },
      key: "m-2b",
    });
    assert.equal(extra.status, 400);
    const extraBody = await refusal(extra);
    assert.equal(extraBody.code, "invalid_request");
    assert.deepEqual(extraBody.issues, [{
      path: "body.items.0.colour",
      message: "unknown key",
    }]);
    const badKey = await t.call("PUT", "/menus/Main", {
      body: { items: [] },
      key: "m-3",
    });
    assert.equal(badKey.status, 404);
    const many = Array.from(
      { length: 100 },
      (_, i) => ({ id: `i${i}`, label: { en: "x" }, href: "/" }),
    );
    assert.equal(
      (await t.call("PUT", "/menus/big", { body: { items: many }, key: "m-4" }))
        .status,
      200,
    );
    const tooMany = await t.call("PUT", "/menus/big", {
      body: { items: [...many, { id: "last", label: { en: "x" }, href: "/" }] },
      key: "m-5",
    });
    assert.equal(tooMany.status, 400);
    assert.equal((await t.call("GET", "/menus")).status, 200);
    const stored = await (await t.call("GET", "/menus/big")).json();
    assert.equal(stored.items.length, 100);
  }));

Deno.test("POST /menus/{key}/languages copies labels into a new language; twice is 409 locale_exists (SET-008)", () =>
  withManageApp(async (t) => {
    await t.call("PUT", "/menus/main", { body: { items: ITEMS }, key: "m-6" });
    const added = await t.call("POST", "/menus/main/languages", {
      body: { language: "de" },
      key: "m-7",
    });
    assert.equal(added.status, 201);
    const menu = await added.json();
    assert.deepEqual(menu.languages, ["de", "en"]);
    assert.equal(menu.items[0].label.de, "Home");
    assert.equal(menu.items[0].children[0].label.de, "About");
    const again = await t.call("POST", "/menus/main/languages", {
      body: { language: "de" },
      key: "m-8",
    });
    assert.equal(again.status, 409);
    assert.equal((await refusal(again)).code, "locale_exists");
    const unknown = await t.call("POST", "/menus/main/languages", {
      body: { language: "fr" },
      key: "m-9",
    });
    assert.equal(unknown.status, 422);
    assert.equal((await refusal(unknown)).code, "unknown_locale");
    const replay = await t.call("POST", "/menus/main/languages", {
      body: { language: "de" },
      key: "m-7",
    });
    assert.equal(replay.status, 201);
    assert.equal((await replay.json()).replayed, true);
  }));

Deno.test("/menus needs settings:write (SET-008)", () =>
  withManageApp(async (t) => {
    const reader = await t.credential(["content:read"]);
    const denied = await t.call("GET", "/menus", { secret: reader.secret });
    assert.equal(denied.status, 403);
    assert.equal((await refusal(denied)).code, "missing_permission");
  }));

Deno.test("PUT /menus/{key} stores Blog list and archive items and refuses an unknown type or option, changing nothing (PAUX-014)", () =>
  withManageApp(async (t) => {
    const made = await createModel(
      { db: t.services.db, clock: t.clock, siteId: t.siteId },
      {
        model: { name: "Posts", slug: "posts" },
        fields: [
          { key: "title", label: "Title", type: "text" },
          {
            key: "category",
            label: "Category",
            type: "select",
            config: { options: ["news"] },
          },
        ],
      },
    );
    if (!made.ok) throw new Error(JSON.stringify(made));
    const items = [
      { id: "blog", label: { en: "Blog" }, list: made.model_id, children: [] },
      {
        id: "news",
        label: { en: "News" },
        archive: { model: made.model_id, field: "category", value: "news" },
        children: [],
      },
    ];
    const put = await t.call("PUT", "/menus/main", {
      body: { items },
      key: "pl-1",
    });
    assert.equal(put.status, 200);
    assert.deepEqual((await put.json()).items, items);
    for (
      const [i, link, path] of [
        [2, { list: crypto.randomUUID() }, "items.0.list"],
        [3, {
          archive: { model: made.model_id, field: "category", value: "x" },
        }, "items.0.archive"],
      ] as const
    ) {
      const refused = await t.call("PUT", "/menus/main", {
        body: { items: [{ id: "x", label: { en: "X" }, ...link }] },
        key: `pl-${i}`,
      });
      assert.equal(refused.status, 400);
      const body = await refusal(refused);
      assert.equal(body.code, "input_invalid");
      assert.deepEqual(
        (body.problems as { path: string }[]).map((p) => p.path),
        [path],
      );
    }
    const after = await (await t.call("GET", "/menus/main")).json();
    assert.deepEqual(after.items, items);
  }));
