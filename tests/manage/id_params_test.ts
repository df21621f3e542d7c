// Ids in the Management API: a value that is not an id (or, for a model, its api key) is refused with invalid_request naming the parameter; an id or key of no model is 404, never an empty list.
import assert from "node:assert/strict";
import { createModel } from "../../core/models/store.ts";
import { OPERATIONS, pathParams } from "../../core/manage/contract/mod.ts";
import { jsonSchemaOf } from "../../core/manage/openapi.ts";
import { refusal, withManageApp } from "./helpers.ts";

type Json = Record<string, unknown>;

/** The one id a plugin chooses, which Stave passes back to it unread. */
const PLUGIN_CHOSEN_ID = "import-media-source-item body.item_id";

/** A model's api key beside its id: `model_id` takes either (resolved before the handler runs). */
function isModelKey(option: Json, property: Json): boolean {
  return property["x-model-ref"] === true && option.type === "string" &&
    typeof option.pattern === "string";
}

/** A fixed word beside the id, such as `folder_id=unfiled` (or an empty form field for none): never a free-form value. */
function isNamedWord(option: Json): boolean {
  const words = option.const !== undefined ? [option.const] : option.enum;
  return Array.isArray(words) && words.length > 0 &&
    words.every((w) => typeof w === "string" && /^[a-z_]*$/.test(w));
}

Deno.test("every id the Management API takes in a path, query or body is declared as an id (UUID), so other values are refused before any lookup", () => {
  const checked: string[] = [];
  for (const op of OPERATIONS) {
    const places: [string, Json | null][] = [
      ["query", jsonSchemaOf(op.query, "input")],
      ["body", op.body ? jsonSchemaOf(op.body, "input") : null],
    ];
    for (const [where, schema] of places) {
      const properties = (schema?.properties ?? {}) as Record<string, Json>;
      for (const [name, property] of Object.entries(properties)) {
        if (!/(^|_)id$/.test(name)) continue;
        // A media source's item id is the plugin's own name for it (MED-037), not ours.
        if (`${op.name} ${where}.${name}` === PLUGIN_CHOSEN_ID) continue;
        const options = (property.anyOf as Json[] | undefined) ??
          [property];
        assert.ok(
          options.some((o) => o.format === "uuid") &&
            options.every((o) =>
              o.format === "uuid" || o.type === "null" || isNamedWord(o) ||
              isModelKey(o, property)
            ),
          `${op.name}: ${where}.${name} must be declared as an id`,
        );
        checked.push(`${op.name} ${where}.${name}`);
      }
    }
    const params = jsonSchemaOf(op.params, "input").properties as Record<
      string,
      Json
    >;
    for (const name of pathParams(op.path)) {
      if (!/(^id|Id)$/.test(name)) continue;
      assert.equal(params[name].format, "uuid", `${op.name}: path ${name}`);
      checked.push(`${op.name} path.${name}`);
    }
  }
  // The routes the issue names are among them.
  for (
    const name of [
      "list-entries query.model_id",
      "list-trash query.model_id",
      "create-entry body.model_id",
      "put-entry-related-from body.model_id",
    ]
  ) assert.ok(checked.includes(name), name);
});

Deno.test("GET /entries and /trash take a model's api key as well as its id; an unknown key or id is 404 and a malformed value 400 naming query.model_id", () =>
  withManageApp(async (t) => {
    const made = await createModel(
      { db: t.services.db, clock: t.clock, siteId: t.siteId },
      {
        model: { name: "Posts", slug: "posts" },
        fields: [{ key: "title", label: "Title", type: "text" }],
      },
    );
    if (!made.ok) throw new Error(JSON.stringify(made));
    for (const path of ["/entries", "/trash"]) {
      const byKey = await t.call("GET", `${path}?model_id=posts`);
      assert.equal(byKey.status, 200, path);
      assert.deepEqual((await byKey.json()).data, []);
      const unknownKey = await t.call("GET", `${path}?model_id=postz`);
      assert.equal(unknownKey.status, 404, path);
      const unknownError = await refusal(unknownKey);
      assert.equal(unknownError.code, "not_found");
      assert.match(unknownError.message, /"postz"/);
      const malformed = await t.call("GET", `${path}?model_id=Posts%202`);
      assert.equal(malformed.status, 400, path);
      const error = await refusal(malformed);
      assert.equal(error.code, "invalid_request");
      assert.deepEqual(
        (error.issues as { path: string }[]).map((i) => i.path),
        ["query.model_id"],
      );
      const unknown = await t.call(
        "GET",
        `${path}?model_id=${crypto.randomUUID()}`,
      );
      assert.equal(unknown.status, 404, path);
      assert.equal((await refusal(unknown)).code, "not_found");
      // A real model with nothing in it is still an empty page.
      const empty = await t.call("GET", `${path}?model_id=${made.model_id}`);
      assert.equal(empty.status, 200, path);
      assert.deepEqual((await empty.json()).data, []);
    }
  }));

Deno.test('POST /entries by model api key creates the entry in that model; publish with "current" pins publishes what is there now, and a replay answers the first publish', () =>
  withManageApp(async (t) => {
    const made = await createModel(
      { db: t.services.db, clock: t.clock, siteId: t.siteId },
      {
        model: { name: "Posts", slug: "posts" },
        fields: [{ key: "title", label: "Title", type: "text" }],
      },
    );
    if (!made.ok) throw new Error(JSON.stringify(made));
    const { secret } = await t.credential([
      "content:read",
      "content:write",
      "lifecycle:publish",
    ]);
    const create = await t.call("POST", "/entries", {
      secret,
      key: "k-1",
      body: {
        model_id: "posts",
        locale: "en",
        slug: "a",
        fields: { title: "A" },
      },
    });
    assert.equal(create.status, 201, await create.clone().text());
    const created = await create.json();
    assert.equal(created.model_id, made.model_id);
    const saved = await t.call("PUT", `/entries/${created.id}`, {
      secret,
      key: "k-2",
      body: {
        locale: "en",
        expected_current_version_id: created.current_version_id,
        fields: { title: "A, edited" },
      },
    });
    assert.equal(saved.status, 200, await saved.clone().text());
    const edited = await saved.json();

    const body = {
      expected_current_version_id: "current",
      expected_workflow_revision: "current",
    };
    const published = await t.call("POST", `/entries/${created.id}/publish`, {
      secret,
      key: "p-1",
      body,
    });
    assert.equal(published.status, 200, await published.clone().text());
    const answer = await published.json();
    // The edit saved last is what went live.
    assert.equal(answer.current_version_id, edited.current_version_id);
    const replay = await t.call("POST", `/entries/${created.id}/publish`, {
      secret,
      key: "p-1",
      body,
    });
    assert.equal((await replay.json()).replayed, true);
    // Nothing new to publish now: refused, not published twice.
    const again = await t.call("POST", `/entries/${created.id}/publish`, {
      secret,
      key: "p-2",
      body,
    });
    assert.equal(again.status, 409);
    assert.equal((await refusal(again)).code, "transition_unavailable");
    // A pin that is neither a version id nor "current" is refused naming it.
    const wrong = await t.call("POST", `/entries/${created.id}/publish`, {
      secret,
      key: "p-3",
      body: { ...body, expected_workflow_revision: "latest" },
    });
    assert.equal(wrong.status, 400);
    assert.ok(
      ((await refusal(wrong)).issues as { path: string }[]).some((i) =>
        i.path === "body.expected_workflow_revision"
      ),
    );
  }));

Deno.test("POST /entries and PUT /entries/{id}/related-from refuse a model api key no model has with 404; nothing is written", () =>
  withManageApp(async (t) => {
    const { secret } = await t.credential(["content:read", "content:write"]);
    const create = await t.call("POST", "/entries", {
      secret,
      key: "k-1",
      body: { model_id: "posts", locale: "en", slug: "a", fields: {} },
    });
    assert.equal(create.status, 404);
    assert.equal((await refusal(create)).code, "not_found");
    const related = await t.call(
      "PUT",
      `/entries/${crypto.randomUUID()}/related-from`,
      {
        secret,
        key: "k-2",
        body: { model_id: "posts", field: "tags", set: [] },
      },
    );
    assert.equal(related.status, 404);
    const rows = await t.services.db.selectFrom("entry_groups")
      .select("id").execute();
    assert.equal(rows.length, 0);
  }));
