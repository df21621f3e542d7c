// Shared-content grants: a source site's published public projection of one type, read on the
// grantee's host at /v1/_shared/{source}/{model}; nothing else of the source (AUTH-014).
import assert from "node:assert/strict";
import { administratorPermissions } from "../../core/access/default_roles.ts";
import { insertMember, insertRole } from "../../core/access/_testing.ts";
import {
  grantSharedContent,
  listSharedGrants,
  revokeSharedContent,
} from "../../core/public/shared_grants.ts";
import { insertSite } from "../support/sites.ts";
import { openAuxWorld } from "../public_aux/helpers.ts";

Deno.test("a shared-content grant adds only the source's published public projection of the granted type; other types, drafts, private fields, filters and other sites answer 404 or 400 (AUTH-014)", async () => {
  const w = await openAuxWorld();
  try {
    const { db } = w.services;
    const articles = await w.model({
      model: { name: "Articles", slug: "articles" },
      fields: [
        { key: "title", label: "Title", type: "text" },
        { key: "notes", label: "Notes", type: "text", private: true },
      ],
    });
    const memos = await w.model({
      model: { name: "Memos", slug: "memos" },
      fields: [{ key: "title", label: "Title", type: "text" }],
    });
    const secrets = await w.model({
      model: { name: "Secrets", slug: "secrets", isPublic: false },
      fields: [{ key: "title", label: "Title", type: "text" }],
    });
    const hello = await w.save({
      model: articles,
      locale: "en",
      slug: "hello",
      fields: { title: "Hello", notes: "internal" },
    });
    await w.publish(hello.group_id);
    await w.save({
      model: articles,
      locale: "en",
      slug: "wip",
      fields: { title: "Work in progress" },
    });
    for (const [model, slug] of [[memos, "memo"], [secrets, "secret"]]) {
      const saved = await w.save({
        model,
        locale: "en",
        slug,
        fields: { title: slug },
      });
      await w.publish(saved.group_id);
    }
    // The grantee site, where the source's administrator also belongs; a third site that is not.
    const grantee = await insertSite(db, {
      domain: "reader.test",
      languages: ["en"],
    });
    const granteeRole = await insertRole(
      db,
      grantee,
      administratorPermissions(),
      w.clock,
    );
    await db.insertInto("site_members").values({
      site_id: grantee,
      user_id: w.adminId,
      role_id: granteeRole,
      created_at: w.clock.now(),
    }).execute();
    const stranger = await insertSite(db, { domain: "other.test" });
    const on =
      (host: string) => async (path: string, init: RequestInit = {}) => {
        const res = await w.app.request(path, { ...init, headers: { host } });
        const text = await res.text();
        return { status: res.status, body: text ? JSON.parse(text) : null };
      };
    const reader = on("reader.test");
    const ctx = {
      db,
      clock: w.clock,
      siteId: w.siteId,
      personId: w.adminId,
    };

    assert.equal((await reader("/v1/_shared/aux-test/articles")).status, 404);
    const granted = await grantSharedContent(ctx, {
      granteeSiteId: grantee,
      modelId: articles,
    });
    assert.ok(granted.ok, JSON.stringify(granted));

    const list = await reader("/v1/_shared/aux-test/articles");
    assert.equal(list.status, 200, JSON.stringify(list.body));
    assert.deepEqual(list.body.data.map((i: { slug: string }) => i.slug), [
      "hello",
    ]);
    assert.deepEqual(list.body.data[0].fields, { title: "Hello" });
    const item = await reader("/v1/_shared/aux-test/articles/hello?locale=en");
    assert.equal(item.status, 200);
    assert.equal(item.body.data.fields.title, "Hello");
    assert.equal(item.body.data.fields.notes, undefined);
    assert.equal(
      (await reader("/v1/_shared/aux-test/articles?limit=100")).status,
      200,
    );

    // Not projected: drafts, other types, private types, unknown sources, the grantee's own API.
    for (
      const path of [
        "/v1/_shared/aux-test/articles/wip",
        "/v1/_shared/aux-test/memos",
        "/v1/_shared/aux-test/memos/memo",
        "/v1/_shared/aux-test/secrets",
        "/v1/_shared/nowhere/articles",
        "/v1/articles",
        "/v1/articles/hello",
      ]
    ) {
      const r = await reader(path);
      assert.equal(r.status, 404, path);
      assert.equal(r.body.error.code, "not_found", path);
    }
    // No arbitrary queries: only locale, limit and cursor (one item: locale).
    for (
      const path of [
        "/v1/_shared/aux-test/articles?filter[title]=Hello",
        "/v1/_shared/aux-test/articles?sort=title",
        "/v1/_shared/aux-test/articles?expand=tags",
        "/v1/_shared/aux-test/articles?limit=101",
        "/v1/_shared/aux-test/articles/hello?preview=sv_prev_x",
        "/v1/_shared/aux-test/articles/hello?expand=tags",
      ]
    ) {
      const r = await reader(path);
      assert.equal(r.status, 400, path);
      assert.equal(r.body.error.code, "public_filter_invalid", path);
    }
    // Another site of the installation sees nothing of it.
    assert.equal(
      (await on("other.test")("/v1/_shared/aux-test/articles")).status,
      404,
    );
    // Reads only: no method writes through the projection.
    const before = await db.selectFrom("entries").select("current_version_id")
      .where("group_id", "=", hello.group_id).executeTakeFirstOrThrow();
    const post = await reader("/v1/_shared/aux-test/articles/hello", {
      method: "POST",
      body: "{}",
    });
    assert.ok(post.status >= 400, `POST answered ${post.status}`);
    const after = await db.selectFrom("entries").select("current_version_id")
      .where("group_id", "=", hello.group_id).executeTakeFirstOrThrow();
    assert.equal(after.current_version_id, before.current_version_id);

    // Revoking takes effect at the next read.
    assert.ok((await revokeSharedContent(ctx, granted.id)).ok);
    assert.equal((await reader("/v1/_shared/aux-test/articles")).status, 404);
    assert.equal(stranger.length, 36);
  } finally {
    await w.close();
  }
});

Deno.test("grantSharedContent() needs site:infra on the source and membership of the grantee, shares public types only and once; refusals change nothing (AUTH-014)", async () => {
  const w = await openAuxWorld();
  try {
    const { db } = w.services;
    const articles = await w.model({
      model: { name: "Articles", slug: "articles" },
      fields: [{ key: "title", label: "Title", type: "text" }],
    });
    const secrets = await w.model({
      model: { name: "Secrets", slug: "secrets", isPublic: false },
      fields: [{ key: "title", label: "Title", type: "text" }],
    });
    const grantee = await insertSite(db, { domain: "reader.test" });
    const role = await insertRole(
      db,
      grantee,
      administratorPermissions(),
      w.clock,
    );
    await db.insertInto("site_members").values({
      site_id: grantee,
      user_id: w.adminId,
      role_id: role,
      created_at: w.clock.now(),
    }).execute();
    const foreign = await insertSite(db, { domain: "foreign.test" });
    const ctx = {
      db,
      clock: w.clock,
      siteId: w.siteId,
      personId: w.adminId,
    };
    const editorRole = await insertRole(db, w.siteId, {
      models: { "*": ["read", "update"] },
      system: [],
    }, w.clock);
    const editor = await insertMember(db, w.siteId, {
      roleId: editorRole,
      clock: w.clock,
    });
    const count = async () =>
      (await db.selectFrom("shared_content_grants").select("id").execute())
        .length;

    const refusals: [unknown, string][] = [
      [{ granteeSiteId: grantee, modelId: secrets }, "input_invalid"],
      [{ granteeSiteId: foreign, modelId: articles }, "input_invalid"],
      [{ granteeSiteId: w.siteId, modelId: articles }, "input_invalid"],
      [
        { granteeSiteId: grantee, modelId: crypto.randomUUID() },
        "input_invalid",
      ],
    ];
    for (const [input, code] of refusals) {
      const r = await grantSharedContent(
        ctx,
        input as { granteeSiteId: string; modelId: string },
      );
      assert.equal(r.ok ? "ok" : r.code, code, JSON.stringify(input));
    }
    const byEditor = await grantSharedContent({ ...ctx, personId: editor }, {
      granteeSiteId: grantee,
      modelId: articles,
    });
    assert.equal(byEditor.ok ? "ok" : byEditor.code, "missing_permission");
    assert.equal(await count(), 0);

    const first = await grantSharedContent(ctx, {
      granteeSiteId: grantee,
      modelId: articles,
    });
    assert.ok(first.ok);
    const twice = await grantSharedContent(ctx, {
      granteeSiteId: grantee,
      modelId: articles,
    });
    assert.equal(twice.ok ? "ok" : twice.code, "already_shared");
    assert.equal(await count(), 1);
    const listed = await listSharedGrants(ctx);
    assert.ok(listed.ok);
    assert.deepEqual(
      listed.grants.map((g) => [g.grantee.id, g.model.slug, g.revoked_at]),
      [[grantee, "articles", null]],
    );
    const audit = await db.selectFrom("audit_entries").select("action")
      .where("site_id", "=", w.siteId)
      .where("action", "like", "shared_content.%").execute();
    assert.deepEqual(audit.map((a) => a.action), ["shared_content.grant"]);
    // Revoked once; a second revoke finds nothing live; sharing again is allowed.
    assert.ok((await revokeSharedContent(ctx, first.id)).ok);
    const again = await revokeSharedContent(ctx, first.id);
    assert.equal(again.ok ? "ok" : again.code, "not_found");
    assert.ok(
      (await grantSharedContent(ctx, {
        granteeSiteId: grantee,
        modelId: articles,
      }))
        .ok,
    );
  } finally {
    await w.close();
  }
});
