// PUT /entries/{id}/related-from over HTTP: which entries link here, changed in one transaction and pinned to the list read.
import assert from "node:assert/strict";
import type { Scope } from "../../core/access/scopes.ts";
import { type ManageFixture, refusal, withManageApp } from "./helpers.ts";

async function setup(t: ManageFixture, scopes: Scope[] = [
  "content:read",
  "content:write",
  "schema:write",
]) {
  const { secret } = await t.credential(scopes);
  let n = 0;
  const call = (method: string, path: string, body?: unknown) =>
    t.call(method, path, {
      body,
      secret,
      key: method === "GET" ? undefined : `rf-${++n}`,
    });
  const json = async (r: Response, status = 200) => {
    const body = await r.json();
    assert.equal(r.status, status, JSON.stringify(body));
    return body;
  };
  const tags = await json(
    await call("POST", "/models", {
      definition: {
        model: { name: "Tags", slug: "tags" },
        fields: [{ key: "name", label: "Name", type: "text" }],
      },
    }),
    201,
  );
  const posts = await json(
    await call("POST", "/models", {
      definition: {
        model: { name: "Posts", slug: "posts" },
        fields: [
          { key: "title", label: "Title", type: "text" },
          {
            key: "tags",
            label: "Tags",
            type: "relation",
            config: { targets: [tags.model_id], cardinality: "many-to-many" },
          },
        ],
      },
    }),
    201,
  );
  const entry = async (model: string, slug: string, fields: unknown) =>
    (await json(
      await call("POST", "/entries", {
        model_id: model,
        locale: "en",
        slug,
        fields,
      }),
      201,
    )).id as string;
  const tag = await entry(tags.model_id, "news", { name: "News" });
  const a = await entry(posts.model_id, "a", { title: "A", tags: [tag] });
  const b = await entry(posts.model_id, "b", { title: "B", tags: [] });
  const c = await entry(posts.model_id, "c", { title: "C" });
  return { call, json, tag, a, b, c, posts: posts.model_id as string };
}

Deno.test("PUT /entries/{id}/related-from changes the linking entries in one transaction, each with a new version", () =>
  withManageApp(async (t) => {
    const s = await setup(t);
    const read = await s.json(
      await s.call("GET", `/entries/${s.tag}/related-from`),
    );
    assert.deepEqual(read.data, [
      { model_id: s.posts, field: "tags", locale: null, ids: [s.a] },
    ]);
    const before = await s.json(await s.call("GET", `/entries/${s.b}`));
    const written = await s.json(
      await s.call("PUT", `/entries/${s.tag}/related-from`, {
        model_id: s.posts,
        field: "tags",
        set: [s.b, s.c],
        expected_ids: read.data[0].ids,
      }),
    );
    assert.equal(written.id, s.tag);
    assert.deepEqual(written.ids, [s.b, s.c]);
    assert.equal(written.hidden, 0);
    assert.deepEqual(
      written.written.map((
        w: { id: string; change: string },
      ) => [w.id, w.change]),
      [[s.a, "disconnect"], [s.b, "connect"], [s.c, "connect"]],
    );
    const after = await s.json(await s.call("GET", `/entries/${s.b}`));
    assert.notEqual(
      after.locales.en.current_version_id,
      before.locales.en.current_version_id,
    );
    assert.equal(
      after.locales.en.current_version_id,
      written.written[1].version_id,
    );
    assert.deepEqual(after.locales.en.fields.tags, [s.tag]);
    const list = await s.json(
      await s.call("GET", `/entries/${s.tag}/related-from`),
    );
    assert.deepEqual(list.data[0].ids.sort(), [s.b, s.c].sort());

    // The old pin is stale now: 409 with the current ids, nothing written.
    const stale = await s.call("PUT", `/entries/${s.tag}/related-from`, {
      model_id: s.posts,
      field: "tags",
      set: [],
      expected_ids: [s.a],
    });
    assert.equal(stale.status, 409);
    const error = await refusal(stale);
    assert.equal(error.code, "relation_changed_concurrently");
    assert.deepEqual(error.current_ids, [s.b, s.c].sort());
    assert.deepEqual(
      await s.json(await s.call("GET", `/entries/${s.tag}/related-from`)),
      list,
    );
  }));

Deno.test("PUT /entries/{id}/related-from refusals: scope, unknown field, unknown sources, 100 ids at the edge", () =>
  withManageApp(async (t) => {
    const s = await setup(t);
    const { secret: reader } = await t.credential(["content:read"]);
    const body = {
      model_id: s.posts,
      field: "tags",
      set: [s.b],
      expected_ids: [s.a],
    };
    const scoped = await t.call("PUT", `/entries/${s.tag}/related-from`, {
      body,
      secret: reader,
      key: "r-1",
    });
    assert.equal(scoped.status, 403);
    assert.deepEqual((await refusal(scoped)).missing, ["scope content:write"]);
    const field = await s.call("PUT", `/entries/${s.tag}/related-from`, {
      ...body,
      field: "title",
    });
    assert.equal(field.status, 400);
    assert.equal((await refusal(field)).code, "field_not_found");
    const unknown = crypto.randomUUID();
    const missing = await s.call("PUT", `/entries/${s.tag}/related-from`, {
      ...body,
      set: [unknown],
    });
    assert.equal(missing.status, 404);
    assert.deepEqual((await refusal(missing)).ids, [unknown]);
    const ids = (n: number) =>
      Array.from({ length: n }, () => crypto.randomUUID());
    const edge = await s.call("PUT", `/entries/${s.tag}/related-from`, {
      ...body,
      set: ids(100),
    });
    assert.equal(edge.status, 404, "100 ids pass the limit");
    const over = await s.call("PUT", `/entries/${s.tag}/related-from`, {
      ...body,
      set: ids(101),
    });
    assert.equal(over.status, 400);
    const issues = (await refusal(over)).issues as { path: string }[];
    assert.equal(issues[0].path, "body.set");
    const noTarget = await s.call(
      "PUT",
      `/entries/${crypto.randomUUID()}/related-from`,
      body,
    );
    assert.equal(noTarget.status, 404);
    const list = await s.json(
      await s.call("GET", `/entries/${s.tag}/related-from`),
    );
    assert.deepEqual(list.data[0].ids, [s.a]);
  }));
