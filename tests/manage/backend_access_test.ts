// Long on purpose: access rules and saved queries refuse each other's changes, so their cases share a file.
// Backend access rules and saved queries over the Management API (docs/backend-access.md): a role
// an access rule names cannot be deleted (SET-014), a public route never serves a private
// column (MOD-031), and every limit at its edge.
import assert from "node:assert/strict";
import { insertRole } from "../../core/access/_testing.ts";
import { SAVED_QUERY_LIMITS } from "../../core/backend/saved_queries.ts";
import { type ManageFixture, refusal, withManageApp } from "./helpers.ts";
import { schemaCredential } from "./model_fixtures.ts";

/** A model with a private field and a component holding one. */
const ARTICLES = {
  model: { name: "Articles", slug: "articles" },
  fields: [
    { key: "title", label: "Title", type: "text" },
    { key: "rank", label: "Rank", type: "number" },
    { key: "featured", label: "Featured", type: "boolean" },
    { key: "notes", label: "Notes", type: "text", private: true },
    {
      key: "seo",
      label: "SEO",
      type: "component",
      config: JSON.stringify({
        fields: [
          { key: "meta", label: "Meta", type: "text" },
          { key: "audit", label: "Audit", type: "text", private: true },
        ],
      }),
    },
    { key: "body", label: "Body", type: "rich_text" },
  ],
};

interface Setup {
  secret: string;
  modelId: string;
  revision: number;
}

async function setUp(t: ManageFixture): Promise<Setup> {
  const secret = await schemaCredential(t);
  const created = await t.call("POST", "/models", {
    secret,
    key: "articles",
    body: { definition: ARTICLES },
  });
  assert.equal(created.status, 201, await created.clone().text());
  const body = await created.json();
  return { secret, modelId: body.model_id, revision: body.model.revision };
}

function query(modelId: string, extra: Record<string, unknown> = {}) {
  return {
    model_id: modelId,
    name: "Top articles",
    slug: "top-articles",
    select: ["id", "title"],
    ...extra,
  };
}

function roleId(t: ManageFixture, _name: string): Promise<string> {
  return insertRole(
    t.services.db,
    t.siteId,
    { models: {}, system: [] },
    t.clock,
  );
}

Deno.test("GET /backend/access: every operation of every model admits service until a rule is stored; PUT replaces a model's rules", () =>
  withManageApp(async (t) => {
    const { secret, modelId } = await setUp(t);
    const listed = await t.call("GET", "/backend/access", { secret });
    assert.equal(listed.status, 200);
    const [articles] = (await listed.json()).data;
    assert.equal(articles.model_id, modelId);
    assert.equal(articles.slug, "articles");
    assert.deepEqual(Object.keys(articles.operations), [
      "findMany",
      "findManyPaginated",
      "findUnique",
      "create",
      "update",
      "delete",
    ]);
    for (const rule of Object.values(articles.operations)) {
      assert.deepEqual(rule, { audience: "service", roles: [], stored: false });
    }
    const editors = await roleId(t, "Editors of articles");
    const put = await t.call("PUT", `/backend/access/${modelId}`, {
      secret,
      key: "a1",
      body: {
        operations: {
          findMany: { audience: "anonymous" },
          create: { audience: "session", roles: [editors] },
        },
      },
    });
    assert.equal(put.status, 200);
    const access = await put.json();
    assert.deepEqual(access.operations.findMany, {
      audience: "anonymous",
      roles: [],
      stored: true,
    });
    assert.deepEqual(access.operations.create, {
      audience: "session",
      roles: [editors],
      stored: true,
    });
    assert.equal(access.operations.delete.stored, false);
    // A replacement leaves out findMany: it goes back to service.
    const second = await t.call("PUT", `/backend/access/${modelId}`, {
      secret,
      key: "a2",
      body: { operations: { update: { audience: "session" } } },
    });
    const replaced = await second.json();
    // Each change is audited with the credential that made it.
    const audited = await t.services.db.selectFrom("audit_entries")
      .select(["actor", "target"]).where("action", "=", "backend_access.update")
      .execute();
    assert.equal(audited.length, 2);
    for (const entry of audited) {
      const actor = typeof entry.actor === "string"
        ? JSON.parse(entry.actor)
        : entry.actor;
      assert.equal(actor.kind, "credential");
    }
    assert.equal(replaced.operations.findMany.audience, "service");
    assert.equal(replaced.operations.findMany.stored, false);
    assert.equal(replaced.operations.update.audience, "session");
    const missing = await t.call(
      "PUT",
      `/backend/access/${crypto.randomUUID()}`,
      { secret, key: "a3", body: { operations: {} } },
    );
    assert.equal(missing.status, 404);
    const unknownOp = await t.call("PUT", `/backend/access/${modelId}`, {
      secret,
      key: "a4",
      body: { operations: { count: { audience: "anonymous" } } },
    });
    assert.equal(unknownOp.status, 400);
    assert.equal((await refusal(unknownOp)).code, "invalid_request");
    // A credential without schema:write may not read or change access.
    const reader = await t.call("GET", "/backend/access");
    assert.equal(reader.status, 403);
  }));

Deno.test("PUT /backend/access refuses roles outside a session rule, unknown or repeated roles, and the 21st role; nothing changes", () =>
  withManageApp(async (t) => {
    const { secret, modelId } = await setUp(t);
    const editors = await roleId(t, "Editors of articles");
    const cases = [
      [
        { audience: "anonymous", roles: [editors] },
        "operations.findMany.roles",
      ],
      [
        { audience: "session", roles: [crypto.randomUUID()] },
        "operations.findMany.roles.0",
      ],
      [
        { audience: "session", roles: [editors, editors] },
        "operations.findMany.roles.1",
      ],
    ] as const;
    let n = 0;
    for (const [rule, path] of cases) {
      const refused = await t.call("PUT", `/backend/access/${modelId}`, {
        secret,
        key: `bad-${n++}`,
        body: { operations: { findMany: rule } },
      });
      assert.equal(refused.status, 400, path);
      const error = await refusal(refused);
      assert.equal(error.code, "invalid_request");
      assert.equal(
        (error.issues as { path: string }[])[0].path,
        `body.${path}`,
      );
    }
    const roles: string[] = [];
    for (let i = 0; i < 21; i++) roles.push(await roleId(t, `Role ${i}`));
    const twenty = await t.call("PUT", `/backend/access/${modelId}`, {
      secret,
      key: "twenty",
      body: {
        operations: {
          create: { audience: "session", roles: roles.slice(0, 20) },
        },
      },
    });
    assert.equal(twenty.status, 200);
    const more = await t.call("PUT", `/backend/access/${modelId}`, {
      secret,
      key: "twenty-one",
      body: { operations: { findMany: { audience: "session", roles } } },
    });
    assert.equal(more.status, 400);
    const [after] =
      (await (await t.call("GET", "/backend/access", { secret })).json()).data;
    assert.equal(after.operations.create.roles.length, 20);
    assert.equal(after.operations.findMany.stored, false);
  }));

Deno.test("DELETE /roles/{id} is refused role_in_access_rule while an access rule or a saved-query route names the role; nothing is deleted (SET-014)", () =>
  withManageApp(async (t) => {
    const { secret, modelId } = await setUp(t);
    const editors = await roleId(t, "Article editors");
    const readers = await roleId(t, "Article readers");
    await t.call("PUT", `/backend/access/${modelId}`, {
      secret,
      key: "rule",
      body: {
        operations: { update: { audience: "session", roles: [editors] } },
      },
    });
    const created = await t.call("POST", "/saved-queries", {
      secret,
      key: "q",
      body: query(modelId, {
        route: { audience: "session", roles: [readers] },
      }),
    });
    assert.equal(created.status, 201);
    const saved = await created.json();
    const byRule = await t.call("DELETE", `/roles/${editors}`, {
      secret,
      key: "d1",
    });
    assert.equal(byRule.status, 409);
    const error = await refusal(byRule);
    assert.equal(error.code, "role_in_access_rule");
    assert.deepEqual(error.access_rules, [{
      model_id: modelId,
      operation: "update",
    }]);
    assert.deepEqual(error.saved_queries, []);
    const byRoute = await t.call("DELETE", `/roles/${readers}`, {
      secret,
      key: "d2",
    });
    assert.equal(byRoute.status, 409);
    assert.deepEqual((await refusal(byRoute)).saved_queries, [{
      id: saved.id,
      name: "Top articles",
    }]);
    const roles =
      (await (await t.call("GET", "/roles", { secret })).json()).data;
    assert.ok(roles.some((r: { id: string }) => r.id === editors));
    assert.ok(roles.some((r: { id: string }) => r.id === readers));
    // Once nothing names them, both go.
    await t.call("PUT", `/backend/access/${modelId}`, {
      secret,
      key: "clear",
      body: { operations: {} },
    });
    await t.call("PUT", `/saved-queries/${saved.id}`, {
      secret,
      key: "unroute",
      body: { route: null },
    });
    assert.equal(
      (await t.call("DELETE", `/roles/${editors}`, { secret, key: "d3" }))
        .status,
      200,
    );
    assert.equal(
      (await t.call("DELETE", `/roles/${readers}`, { secret, key: "d4" }))
        .status,
      200,
    );
  }));

Deno.test("A saved query on a public route naming a private column, or a component holding one, is refused private_field_on_public_route; nothing is stored (MOD-031)", () =>
  withManageApp(async (t) => {
    const { secret, modelId } = await setUp(t);
    const publicRoute = { route: { audience: "anonymous" } };
    const cases: [Record<string, unknown>, string[]][] = [
      [{ select: ["id", "notes"] }, ["notes"]],
      [{ select: ["id", "seo"] }, ["seo"]],
      [{ filter: { notes: "x" } }, ["notes"]],
      [{ order_by: [{ field: "notes", direction: "asc" }] }, ["notes"]],
    ];
    let n = 0;
    for (const [extra, fields] of cases) {
      const refused = await t.call("POST", "/saved-queries", {
        secret,
        key: `private-${n++}`,
        body: query(modelId, { ...publicRoute, ...extra }),
      });
      assert.equal(refused.status, 422, JSON.stringify(extra));
      const error = await refusal(refused);
      assert.equal(error.code, "private_field_on_public_route");
      assert.deepEqual(error.fields, fields);
    }
    const listed = await t.call("GET", "/saved-queries", { secret });
    assert.deepEqual((await listed.json()).data, []);
    // The same columns are fine on a route for signed-in members, or with no route.
    const members = await t.call("POST", "/saved-queries", {
      secret,
      key: "members",
      body: query(modelId, {
        select: ["id", "notes", "seo"],
        route: { audience: "session" },
      }),
    });
    assert.equal(members.status, 201);
    const saved = await members.json();
    assert.deepEqual(saved.route, {
      path: "/api/_queries/top-articles",
      audience: "session",
      roles: [],
    });
    // Opening that query to anonymous callers is refused the same way, and changes nothing.
    const opened = await t.call("PUT", `/saved-queries/${saved.id}`, {
      secret,
      key: "open",
      body: publicRoute,
    });
    assert.equal(opened.status, 422);
    assert.deepEqual((await refusal(opened)).fields, ["notes", "seo"]);
    const after =
      await (await t.call("GET", `/saved-queries/${saved.id}`, { secret }))
        .json();
    assert.deepEqual(after, saved);
  }));

Deno.test("A model change making a column of a public saved-query route private is refused private_field_on_public_route; the model is unchanged (MOD-031)", () =>
  withManageApp(async (t) => {
    const { secret, modelId, revision } = await setUp(t);
    const created = await t.call("POST", "/saved-queries", {
      secret,
      key: "public",
      body: query(modelId, {
        select: ["id", "title", "rank"],
        route: { audience: "anonymous" },
      }),
    });
    assert.equal(created.status, 201);
    const model = await (await t.call("GET", `/models/${modelId}`, { secret }))
      .json();
    const fields = model.definition.fields.map((f: { key: string }) =>
      f.key === "rank" ? { ...f, private: true } : f
    );
    const refused = await t.call("PUT", `/models/${modelId}/definition`, {
      secret,
      key: "hide-rank",
      body: {
        expected_revision: revision,
        definition: { ...model.definition, fields },
      },
    });
    assert.equal(refused.status, 422);
    const error = await refusal(refused);
    assert.equal(error.code, "private_field_on_public_route");
    assert.deepEqual(error.saved_queries, [{
      id: (await created.json()).id,
      name: "Top articles",
      fields: ["rank"],
    }]);
    const unchanged =
      await (await t.call("GET", `/models/${modelId}`, { secret })).json();
    assert.equal(unchanged.revision, revision);
    // A private field the route does not name may change freely.
    const other = model.definition.fields.map((f: { key: string }) =>
      f.key === "featured" ? { ...f, private: true } : f
    );
    const allowed = await t.call("PUT", `/models/${modelId}/definition`, {
      secret,
      key: "hide-featured",
      body: {
        expected_revision: revision,
        definition: { ...model.definition, fields: other },
      },
    });
    assert.equal(allowed.status, 200);
  }));

Deno.test("POST /saved-queries checks columns, filter values and every limit at its edge", () =>
  withManageApp(async (t) => {
    const { secret, modelId } = await setUp(t);
    const L = SAVED_QUERY_LIMITS;
    let n = 0;
    const post = (extra: Record<string, unknown>) =>
      t.call("POST", "/saved-queries", {
        secret,
        key: `limit-${n++}`,
        body: query(modelId, { slug: `q-${n}`, ...extra }),
      });
    const invalid = async (
      extra: Record<string, unknown>,
      code: string,
      path: string,
    ) => {
      const response = await post(extra);
      const error = await refusal(response);
      assert.equal(error.code, code, JSON.stringify(extra));
      assert.equal(
        (error.issues as { path: string }[])[0].path,
        path,
        JSON.stringify(extra),
      );
    };
    await invalid(
      { select: ["id", "nope"] },
      "saved_query_invalid",
      "body.select.1",
    );
    await invalid(
      { filter: { rank: "high" } },
      "saved_query_invalid",
      "body.filter.rank",
    );
    await invalid(
      { filter: { featured: "yes" } },
      "saved_query_invalid",
      "body.filter.featured",
    );
    await invalid(
      { filter: { body: "x" } },
      "saved_query_invalid",
      "body.filter.body",
    );
    await invalid(
      { order_by: [{ field: "seo", direction: "asc" }] },
      "saved_query_invalid",
      "body.order_by.0.field",
    );
    await invalid({ select: ["id", "id"] }, "invalid_request", "body.select");
    await invalid(
      { route: { audience: "service", roles: [crypto.randomUUID()] } },
      "invalid_request",
      "body.route.roles",
    );
    const columns = Array.from({ length: 33 }, (_, i) => `c${i}`);
    // Edges: the last value accepted, the first refused (shape limits are 400 invalid_request).
    const edges: [string, unknown, unknown][] = [
      ["name", "n".repeat(L.name), "n".repeat(L.name + 1)],
      ["slug", "s".repeat(L.slug), "s".repeat(L.slug + 1)],
      ["take", L.take, L.take + 1],
      ["take", 1, 0],
      ["select", ["id", "title"], columns],
      ["filter", {
        title: "a",
        rank: 1,
        featured: true,
        id: crypto.randomUUID(),
      }, {
        title: "a",
        rank: 1,
        featured: true,
        id: crypto.randomUUID(),
        seo: "x",
      }],
      ["filter", { title: "t".repeat(L.filterText) }, {
        title: "t".repeat(L.filterText + 1),
      }],
      ["order_by", [
        { field: "title", direction: "asc" },
        { field: "rank", direction: "desc" },
        { field: "id", direction: "asc" },
      ], [
        { field: "title", direction: "asc" },
        { field: "rank", direction: "desc" },
        { field: "id", direction: "asc" },
        { field: "featured", direction: "asc" },
      ]],
    ];
    for (const [key, last, first] of edges) {
      const ok = await post({ [key]: last });
      assert.equal(ok.status, 201, `${key} last: ${await ok.clone().text()}`);
      const refused = await post({ [key]: first });
      assert.equal(refused.status, 400, `${key} first`);
      assert.equal((await refusal(refused)).code, "invalid_request");
    }
    const taken = await post({ slug: "top" });
    assert.equal(taken.status, 201);
    const again = await post({ slug: "top" });
    assert.equal(again.status, 409);
    assert.equal((await refusal(again)).code, "saved_query_slug_taken");
  }));

Deno.test("A site keeps at most 100 saved queries: the 100th is created, the 101st refused saved_query_limit", () =>
  withManageApp(async (t) => {
    const { secret, modelId } = await setUp(t);
    const now = t.clock.now();
    const stored = await (await t.call("GET", "/saved-queries", { secret }))
      .json();
    assert.equal(stored.data.length, 0);
    await t.services.db.insertInto("saved_queries").values(
      Array.from({ length: SAVED_QUERY_LIMITS.perSite - 1 }, (_, i) => ({
        id: crypto.randomUUID(),
        site_id: t.siteId,
        model_id: modelId,
        name: `Query ${i}`,
        slug: `query-${i}`,
        select_fields: JSON.stringify(["id"]),
        filter: "{}",
        order_by: "[]",
        take: 25,
        route_audience: null,
        route_role_ids: "[]",
        revision: 1,
        created_at: now,
        updated_at: now,
      })),
    ).execute();
    const hundredth = await t.call("POST", "/saved-queries", {
      secret,
      key: "100",
      body: query(modelId),
    });
    assert.equal(hundredth.status, 201);
    const refused = await t.call("POST", "/saved-queries", {
      secret,
      key: "101",
      body: query(modelId, { slug: "one-more" }),
    });
    assert.equal(refused.status, 422);
    assert.equal((await refusal(refused)).code, "saved_query_limit");
  }));

Deno.test("Saved-query and access writes replay their first answer under the same key (MAPI-014); removing a model removes its rules", () =>
  withManageApp(async (t) => {
    const { secret, modelId, revision } = await setUp(t);
    const body = query(modelId, { take: 10, route: { audience: "anonymous" } });
    const first = await t.call("POST", "/saved-queries", {
      secret,
      key: "c",
      body,
    });
    assert.equal(first.status, 201);
    const saved = await first.json();
    assert.equal(saved.take, 10);
    assert.equal(saved.revision, 1);
    const replay = await t.call("POST", "/saved-queries", {
      secret,
      key: "c",
      body,
    });
    assert.equal(replay.status, 201);
    assert.deepEqual(await replay.json(), { ...saved, replayed: true });
    const changed = await t.call("PUT", `/saved-queries/${saved.id}`, {
      secret,
      key: "u",
      body: { name: "Best articles", filter: { featured: true } },
    });
    assert.equal(changed.status, 200);
    const updated = await changed.json();
    assert.equal(updated.revision, 2);
    assert.equal(updated.name, "Best articles");
    assert.deepEqual(updated.select, ["id", "title"]);
    assert.deepEqual(updated.filter, { featured: true });
    const rule = { operations: { findMany: { audience: "anonymous" } } };
    const access = await t.call("PUT", `/backend/access/${modelId}`, {
      secret,
      key: "p",
      body: rule,
    });
    const accessReplay = await t.call("PUT", `/backend/access/${modelId}`, {
      secret,
      key: "p",
      body: rule,
    });
    assert.equal(accessReplay.status, 200);
    assert.deepEqual(await accessReplay.json(), {
      ...(await access.json()),
      replayed: true,
    });
    const removed = await t.call("DELETE", `/saved-queries/${saved.id}`, {
      secret,
      key: "d",
    });
    assert.deepEqual(await removed.json(), { id: saved.id, deleted: true });
    const removedReplay = await t.call("DELETE", `/saved-queries/${saved.id}`, {
      secret,
      key: "d",
    });
    assert.deepEqual(await removedReplay.json(), {
      id: saved.id,
      deleted: true,
      replayed: true,
    });
    const gone = await t.call("GET", `/saved-queries/${saved.id}`, { secret });
    assert.equal(gone.status, 404);
    // The model's rules go with it (its queries block a removal: MOD-012, tested below).
    const remove = await t.call("POST", `/models/${modelId}/remove`, {
      secret,
      key: "rm",
      body: { expected_revision: revision, confirm: modelId },
    });
    assert.equal(remove.status, 200);
    assert.equal(
      (await t.services.db.selectFrom("backend_access_rules").selectAll()
        .execute()).length,
      0,
    );
  }));

Deno.test("POST /models/{id}/remove is refused model_has_bound_queries while a saved query is bound to the model; nothing changes, and its access rules go with it once the queries are deleted (MOD-012)", () =>
  withManageApp(async (t) => {
    const { secret, modelId, revision } = await setUp(t);
    const put = await t.call("PUT", `/backend/access/${modelId}`, {
      secret,
      key: "rule",
      body: { operations: { findMany: { audience: "anonymous" } } },
    });
    assert.equal(put.status, 200, await put.clone().text());
    // An unrouted query binds the model too: callers may route it later.
    const created = await t.call("POST", "/saved-queries", {
      secret,
      key: "q",
      body: query(modelId),
    });
    assert.equal(created.status, 201);
    const saved = await created.json();
    const path = `/models/${modelId}/remove`;
    const body = { expected_revision: revision, confirm: modelId };
    const access = async () =>
      (await (await t.call("GET", "/backend/access", { secret })).json()).data;
    const accessBefore = await access();
    const refused = await t.call("POST", path, { secret, key: "r1", body });
    assert.equal(refused.status, 409);
    const error = await refusal(refused);
    assert.equal(error.code, "model_has_bound_queries");
    assert.deepEqual(error.saved_queries, [{
      id: saved.id,
      name: "Top articles",
    }]);
    // Nothing changed: the model, its query and its rules are all still there.
    assert.equal(
      (await t.call("GET", `/models/${modelId}`, { secret })).status,
      200,
    );
    assert.equal(
      (await t.call("GET", `/saved-queries/${saved.id}`, { secret })).status,
      200,
    );
    assert.deepEqual(await access(), accessBefore);
    // Access rules alone do not block: they describe only this model and go with it.
    const deleted = await t.call("DELETE", `/saved-queries/${saved.id}`, {
      secret,
      key: "dq",
    });
    assert.equal(deleted.status, 200);
    const removed = await t.call("POST", path, { secret, key: "r2", body });
    assert.equal(removed.status, 200, await removed.clone().text());
    const rules = await t.services.db.selectFrom("backend_access_rules")
      .select("model_id").where("site_id", "=", t.siteId).execute();
    assert.deepEqual(rules, []);
  }));
