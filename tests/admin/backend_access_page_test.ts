// /admin/settings/backend over HTTP: access rules of the generated backend per model and
// operation, and saved queries, where a public route never serves a private field
// (MOD-031). The page is model configuration, so it needs model:apply.
import { deepEqual, equal, match, ok } from "node:assert/strict";
import { listModelAccess } from "../../core/backend/access.ts";
import { listSavedQueries } from "../../core/backend/saved_queries.ts";
import { createModel } from "../../core/models/store.ts";
import { addPersonWith, type DemoAdmin, setupDemo } from "./demo_helpers.ts";
import {
  CookieJar,
  csrfField,
  PASSWORD,
  request,
  signInAs,
} from "./helpers.ts";

const PAGE = "/admin/settings/backend";

/** A model with a private field, as the saved-query tests need. */
const ARTICLES = {
  model: { name: "Articles", slug: "articles" },
  fields: [
    { key: "title", label: "Title", type: "text" },
    { key: "rank", label: "Rank", type: "number" },
    { key: "featured", label: "Featured", type: "boolean" },
    { key: "notes", label: "Notes", type: "text", private: true },
  ],
};

async function signedIn(demo: DemoAdmin, email = demo.email) {
  const jar = new CookieJar();
  await signInAs(demo.t, jar, { email, password: PASSWORD });
  const open = async (path = PAGE) => {
    const response = await request(demo.t, jar, path);
    const html = await response.text();
    return { status: response.status, html };
  };
  const post = (form: Record<string, string | string[]>) =>
    request(demo.t, jar, PAGE, { form });
  return { jar, open, post };
}

async function withArticles(
  fn: (
    demo: DemoAdmin,
    articlesId: string,
    s: Awaited<ReturnType<typeof signedIn>>,
  ) => Promise<void>,
) {
  const demo = await setupDemo();
  try {
    const { db, clock } = demo.t.services;
    const created = await createModel(
      { db, clock, siteId: demo.siteId },
      ARTICLES,
    );
    if (!created.ok) throw new Error(JSON.stringify(created));
    await fn(demo, created.model.id, await signedIn(demo));
  } finally {
    await demo.t.close();
  }
}

function ctxOf(demo: DemoAdmin) {
  return { db: demo.t.services.db, siteId: demo.siteId };
}

async function roleIds(demo: DemoAdmin): Promise<Record<string, string>> {
  const rows = await demo.t.services.db.selectFrom("roles")
    .select(["id", "name"]).where("site_id", "=", demo.siteId).execute();
  return Object.fromEntries(rows.map((r) => [r.name, r.id]));
}

Deno.test("backend access page: every model is listed with each operation at its default audience, and the settings index links it", () =>
  withArticles(async (demo, articlesId, s) => {
    const index = await s.open("/admin/settings");
    match(index.html, /href="\/admin\/settings\/backend"/);
    const { status, html } = await s.open();
    equal(status, 200);
    match(html, /<h2 id="access-heading">Access rules<\/h2>/);
    match(html, /<h2 id="queries-heading">Saved queries<\/h2>/);
    for (const name of ["Articles", "Posts", "Tags", "Notes"]) {
      match(html, new RegExp(`<h3 [^>]*>${name} `));
    }
    // Six operations of every model, each at service by default.
    const articleForm = html.slice(html.indexOf(`id="access-${articlesId}"`));
    for (
      const op of [
        "findMany",
        "findManyPaginated",
        "findUnique",
        "create",
        "update",
        "delete",
      ]
    ) {
      match(
        articleForm,
        new RegExp(`<label for="audience-articles-${op}">Who may call it`),
      );
    }
    match(
      articleForm,
      /<option value="service" selected(="")?>Service bearer only<\/option>/,
    );
    equal(
      [...html.matchAll(/Default: no rule stored\./g)].length,
      (await listModelAccess(ctxOf(demo))).length * 6,
    );
    match(html, /Editor/);
    match(html, /No saved queries yet\./);
  }));

Deno.test("backend access page: saving a model's rules stores them, roles only for signed-in members, the rest back at the default", () =>
  withArticles(async (demo, articlesId, s) => {
    const roles = await roleIds(demo);
    const { html } = await s.open();
    const saved = await s.post({
      _csrf: csrfField(html),
      action: "access",
      model: articlesId,
      "audience.findMany": "anonymous",
      "audience.findManyPaginated": "anonymous",
      "audience.findUnique": "session",
      "roles.findUnique": [roles.Editor],
      "audience.create": "session",
      "audience.update": "service",
      "audience.delete": "service",
      // Ticked but not a signed-in rule: left out.
      "roles.delete": [roles.Editor],
    });
    equal(saved.status, 303);
    match(saved.headers.get("location") ?? "", /done=access/);
    const [access] = await listModelAccess(ctxOf(demo), articlesId);
    deepEqual(access.operations.findMany, {
      audience: "anonymous",
      roles: [],
      stored: true,
    });
    deepEqual(access.operations.findUnique, {
      audience: "session",
      roles: [roles.Editor],
      stored: true,
    });
    deepEqual(access.operations.create, {
      audience: "session",
      roles: [],
      stored: true,
    });
    deepEqual(access.operations.delete, {
      audience: "service",
      roles: [],
      stored: false,
    });
    const after = await s.open(saved.headers.get("location")!);
    match(after.html, /Access rules of Articles saved\./);
    match(after.html, /Rule stored for this model\./);

    const bad = await s.post({
      _csrf: csrfField(html),
      action: "access",
      model: articlesId,
      "audience.findMany": "everyone",
    });
    equal(bad.status, 422);
    match(await bad.text(), /role="alert"/);
    equal(
      (await listModelAccess(ctxOf(demo), articlesId))[0].operations.findMany
        .audience,
      "anonymous",
    );
  }));

Deno.test("MOD-031 backend access page: a saved query on an anonymous route selecting a private field is refused with 422 and nothing is stored", () =>
  withArticles(async (demo, articlesId, s) => {
    const { html } = await s.open();
    const refused = await s.post({
      _csrf: csrfField(html),
      action: "query",
      model: articlesId,
      name: "Leaky",
      slug: "leaky",
      columns: "id, title, notes",
      filters: "",
      order: "",
      take: "10",
      audience: "anonymous",
    });
    equal(refused.status, 422);
    const body = await refused.text();
    match(
      body,
      /A public route cannot serve private fields: notes\. Choose a signed-in or service audience, or leave those columns out\./,
    );
    // What was typed is kept.
    match(body, /value="id, title, notes"/);
    match(body, /value="leaky"/);
    deepEqual(await listSavedQueries(ctxOf(demo)), []);

    // Filtering on the private field is refused the same way.
    const filtered = await s.post({
      _csrf: csrfField(html),
      action: "query",
      model: articlesId,
      name: "Leaky",
      slug: "leaky",
      columns: "id",
      filters: "notes=secret",
      audience: "anonymous",
    });
    equal(filtered.status, 422);
    match(await filtered.text(), /cannot serve private fields: notes\./);
    deepEqual(await listSavedQueries(ctxOf(demo)), []);
  }));

Deno.test("backend access page: a valid saved query is created with typed filters and order, edited, refused in plain words, and deleted", () =>
  withArticles(async (demo, articlesId, s) => {
    const roles = await roleIds(demo);
    const { html } = await s.open();
    const csrf = csrfField(html);
    const created = await s.post({
      _csrf: csrf,
      action: "query",
      model: articlesId,
      name: "Top articles",
      slug: "top-articles",
      columns: "id, title, rank",
      filters: "featured=true\nrank = 3\ntitle=A = B",
      order: "-rank, title",
      take: "5",
      audience: "session",
      route_roles: [roles.Editor],
    });
    equal(created.status, 303, await created.clone().text());
    const [query] = await listSavedQueries(ctxOf(demo));
    equal(query.name, "Top articles");
    equal(query.model_id, articlesId);
    deepEqual(query.select, ["id", "title", "rank"]);
    deepEqual(query.filter, { featured: true, rank: 3, title: "A = B" });
    deepEqual(query.order_by, [
      { field: "rank", direction: "desc" },
      { field: "title", direction: "asc" },
    ]);
    equal(query.take, 5);
    deepEqual(query.route, {
      path: "/api/_queries/top-articles",
      audience: "session",
      roles: [roles.Editor],
    });
    const listed = await s.open(created.headers.get("location")!);
    match(listed.html, /Saved query “Top articles” created\./);
    match(listed.html, /<code>\/api\/_queries\/top-articles<\/code>/);
    match(
      listed.html,
      new RegExp(`href="${PAGE}\\?edit=${query.id}#query-form"`),
    );

    // The edit form shows the stored values as text.
    const edit = await s.open(`${PAGE}?edit=${query.id}`);
    equal(edit.status, 200);
    match(edit.html, /Edit “Top articles”/);
    match(edit.html, /value="-rank, title"/);
    const filters = /name="filters"[^>]*>([^<]*)<\/textarea>/.exec(edit.html)
      ?.[1];
    deepEqual(filters?.split("\n").sort(), [
      "featured=true",
      "rank=3",
      "title=A = B",
    ]);

    // Plain-word refusals: a second query taking the slug, a column the model lacks, a bad take.
    const taken = await s.post({
      _csrf: csrf,
      action: "query",
      model: articlesId,
      name: "Again",
      slug: "top-articles",
      columns: "id",
    });
    equal(taken.status, 409);
    match(
      await taken.text(),
      /Another saved query already uses the slug “top-articles”/,
    );
    const unknown = await s.post({
      _csrf: csrf,
      action: "query",
      model: articlesId,
      name: "Unknown",
      slug: "unknown",
      columns: "id, colour",
      filters: "rank=many",
    });
    equal(unknown.status, 422);
    const unknownHtml = await unknown.text();
    match(unknownHtml, /This query does not fit its model:/);
    match(
      unknownHtml,
      /Columns #2: No column &quot;colour&quot; on this model/,
    );
    match(unknownHtml, /Filters rank: Expected a number/);
    const badTake = await s.post({
      _csrf: csrf,
      action: "query",
      model: articlesId,
      name: "Big",
      slug: "big",
      columns: "id",
      take: "500",
      filters: "nonsense",
    });
    equal(badTake.status, 422);
    match(await badTake.text(), /Filters line 1: write column=value/);
    const badTake2 = await s.post({
      _csrf: csrf,
      action: "query",
      model: articlesId,
      name: "Big",
      slug: "Big Slug",
      columns: "id",
      take: "500",
    });
    equal(badTake2.status, 422);
    const badHtml = await badTake2.text();
    match(badHtml, /Slug: Lower-case letters and digits/);
    match(badHtml, /Rows per page: /);
    equal((await listSavedQueries(ctxOf(demo))).length, 1);

    // Edit: served to anyone now, without the private column; roles dropped.
    const updated = await s.post({
      _csrf: csrf,
      action: "query",
      id: query.id,
      name: "Top articles",
      slug: "top-articles",
      columns: "id, title",
      filters: "",
      order: "title",
      take: "20",
      audience: "anonymous",
      route_roles: [roles.Editor],
    });
    equal(updated.status, 303, await updated.clone().text());
    const [after] = await listSavedQueries(ctxOf(demo));
    deepEqual(after.filter, {});
    deepEqual(after.route?.audience, "anonymous");
    deepEqual(after.route?.roles, []);
    equal(after.take, 20);

    const deleted = await s.post({
      _csrf: csrf,
      action: "delete",
      id: query.id,
    });
    equal(deleted.status, 303);
    deepEqual(await listSavedQueries(ctxOf(demo)), []);
    match(
      (await s.open(deleted.headers.get("location")!)).html,
      /Saved query deleted\./,
    );
    const again = await s.post({ _csrf: csrf, action: "delete", id: query.id });
    equal(again.status, 404);
    match(await again.text(), /That saved query no longer exists\./);
  }));

Deno.test("backend access page: a person without model:apply gets 403 on the page and on a save", async () => {
  const demo = await setupDemo();
  try {
    await addPersonWith(demo, {
      email: "grace@example.com",
      displayName: "Grace",
      permissions: { models: { "*": ["read"] }, system: ["site:settings"] },
    });
    const s = await signedIn(demo, "grace@example.com");
    const denied = await s.open();
    equal(denied.status, 403);
    match(denied.html, /model:apply/);
    const csrf = csrfField((await s.open("/admin/settings")).html);
    const [posts] = (await listModelAccess(ctxOf(demo))).filter((m) =>
      m.slug === "posts"
    );
    ok(posts);
    const post = await s.post({
      _csrf: csrf,
      action: "access",
      model: posts.model_id,
      "audience.findMany": "anonymous",
    });
    equal(post.status, 403);
    equal(
      (await listModelAccess(ctxOf(demo), posts.model_id))[0].operations
        .findMany.stored,
      false,
    );
  } finally {
    await demo.t.close();
  }
});
