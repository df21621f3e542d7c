// Ids in the Management API: a value that is not an id is refused with invalid_request naming the parameter; an id of no model is 404, never an empty list.
import assert from "node:assert/strict";
import { createModel } from "../../core/models/store.ts";
import { OPERATIONS, pathParams } from "../../core/manage/contract/mod.ts";
import { jsonSchemaOf } from "../../core/manage/openapi.ts";
import { refusal, withManageApp } from "./helpers.ts";

type Json = Record<string, unknown>;

/** The one id a plugin chooses, which Stave passes back to it unread. */
const PLUGIN_CHOSEN_ID = "import-media-source-item body.item_id";

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
              o.format === "uuid" || o.type === "null" || isNamedWord(o)
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

Deno.test("GET /entries and /trash refuse a model slug with 400 invalid_request naming query.model_id, and an unknown model id with 404", () =>
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
      const slug = await t.call("GET", `${path}?model_id=posts`);
      assert.equal(slug.status, 400, path);
      const error = await refusal(slug);
      assert.equal(error.code, "invalid_request");
      assert.match(error.message, /model_id/);
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

Deno.test("POST /entries and PUT /entries/{id}/related-from refuse a model slug with invalid_request naming body.model_id; nothing is written", () =>
  withManageApp(async (t) => {
    const { secret } = await t.credential(["content:read", "content:write"]);
    const create = await t.call("POST", "/entries", {
      secret,
      key: "k-1",
      body: { model_id: "posts", locale: "en", slug: "a", fields: {} },
    });
    assert.equal(create.status, 400);
    const error = await refusal(create);
    assert.equal(error.code, "invalid_request");
    assert.deepEqual(
      (error.issues as { path: string }[]).map((i) => i.path),
      ["body.model_id"],
    );
    const related = await t.call(
      "PUT",
      `/entries/${crypto.randomUUID()}/related-from`,
      {
        secret,
        key: "k-2",
        body: { model_id: "posts", field: "tags", set: [] },
      },
    );
    assert.equal(related.status, 400);
    const relatedError = await refusal(related);
    assert.equal(relatedError.code, "invalid_request");
    assert.ok(
      (relatedError.issues as { path: string }[]).some((i) =>
        i.path === "body.model_id"
      ),
    );
    const rows = await t.services.db.selectFrom("entry_groups")
      .select("id").execute();
    assert.equal(rows.length, 0);
  }));
