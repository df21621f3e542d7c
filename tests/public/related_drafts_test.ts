// Preview links with the related-draft grant: `expand` shows the saved drafts the link's creator
// may read instead of published values, page by page through /v1/_related (PUB-030).
// deno-lint-ignore-file no-explicit-any -- answers are parsed JSON checked field by field
import assert from "node:assert/strict";
import { insertMember, insertRole } from "../../core/access/_testing.ts";
import { mintPreviewToken } from "../../core/public/preview_tokens.ts";
import { openAuxWorld } from "../public_aux/helpers.ts";

Deno.test("a related-draft preview link expands the saved drafts its creator may read; a plain link and published reads keep published values (PUB-030)", async () => {
  const w = await openAuxWorld();
  try {
    const tags = await w.model({
      model: { name: "Tags", slug: "tags", enableI18n: true },
      fields: [{ key: "name", label: "Name", type: "text", localized: true }],
    });
    const posts = await w.model({
      model: { name: "Posts", slug: "posts", enableI18n: true },
      fields: [
        { key: "title", label: "Title", type: "text", localized: true },
        {
          key: "tags",
          label: "Tags",
          type: "relation",
          config: { targets: [tags], cardinality: "many-to-many" },
        },
      ],
    });
    // t1 published then edited; t2 never published; t3 published as is.
    const t1 = await w.save({
      model: tags,
      locale: "en",
      slug: "one",
      fields: { name: "One" },
    });
    await w.publish(t1.group_id);
    await w.save({
      group: t1.group_id,
      locale: "en",
      slug: "one",
      fields: { name: "One (draft)" },
    });
    const t2 = await w.save({
      model: tags,
      locale: "en",
      slug: "two",
      fields: { name: "Two (draft)" },
    });
    const t3 = await w.save({
      model: tags,
      locale: "en",
      slug: "three",
      fields: { name: "Three" },
    });
    await w.publish(t3.group_id);
    const post = await w.save({
      model: posts,
      locale: "en",
      slug: "hello",
      fields: {
        title: "Hello",
        tags: [t1.group_id, t2.group_id, t3.group_id],
      },
    });
    await w.publish(post.group_id);
    const mint = (personId: string, relatedDrafts: boolean) =>
      mintPreviewToken({ db: w.services.db, clock: w.clock }, {
        siteId: w.siteId,
        groupId: post.group_id,
        personId,
        relatedDrafts,
      });
    const names = (body: any) =>
      body.data.expanded.tags.data.map((t: any) => t.fields.name);
    const read = async (query: string) => {
      const r = await w.json(`/v1/posts/hello?expand=tags${query}`);
      assert.equal(r.status, 200, JSON.stringify(r.body));
      return r;
    };

    const granted = await mint(w.adminId, true);
    const withDrafts = await read(`&preview=${granted.token}`);
    assert.deepEqual(names(withDrafts.body), [
      "One (draft)",
      "Two (draft)",
      "Three",
    ]);
    assert.deepEqual(withDrafts.body.data.relations.tags, [
      t1.group_id,
      t2.group_id,
      t3.group_id,
    ]);
    assert.equal(
      withDrafts.res.headers.get("cache-control"),
      "no-store, private",
    );

    // Without the grant, and without a preview, expansion stays published.
    const plain = await mint(w.adminId, false);
    assert.deepEqual(names((await read(`&preview=${plain.token}`)).body), [
      "One",
      "Three",
    ]);
    const published = await read("");
    assert.deepEqual(names(published.body), ["One", "Three"]);
    assert.deepEqual(published.body.data.relations.tags, [
      t1.group_id,
      t3.group_id,
    ]);

    // Authorised means the creator's read permission now: own items only, or none.
    const ownRole = await insertRole(w.services.db, w.siteId, {
      models: { [posts]: ["read"], [tags]: ["read:own"] },
      system: [],
    }, w.clock);
    const owner = await insertMember(w.services.db, w.siteId, {
      roleId: ownRole,
      clock: w.clock,
    });
    await w.services.db.updateTable("entry_groups").set({ created_by: owner })
      .where("id", "=", t2.group_id).execute();
    const ownLink = await mint(owner, true);
    assert.deepEqual(names((await read(`&preview=${ownLink.token}`)).body), [
      "One",
      "Two (draft)",
      "Three",
    ]);
    await w.services.db.updateTable("roles").set({
      permissions: JSON.stringify({
        models: { [posts]: ["read"] },
        system: [],
      }),
    }).where("id", "=", ownRole).execute();
    assert.deepEqual(names((await read(`&preview=${ownLink.token}`)).body), [
      "One",
      "Three",
    ]);
  } finally {
    await w.close();
  }
});

Deno.test("a related-draft preview's continuation cursor reads drafts on at /v1/_related, never cached, and stops with its link (PUB-030)", async () => {
  const w = await openAuxWorld();
  try {
    const tags = await w.model({
      model: { name: "Tags", slug: "tags" },
      fields: [{ key: "name", label: "Name", type: "text" }],
    });
    const posts = await w.model({
      model: { name: "Posts", slug: "posts" },
      fields: [
        { key: "title", label: "Title", type: "text" },
        {
          key: "tags",
          label: "Tags",
          type: "relation",
          config: { targets: [tags], cardinality: "many-to-many" },
        },
      ],
    });
    const ids: string[] = [];
    for (let i = 0; i < 27; i++) {
      const tag = await w.save({
        model: tags,
        locale: "en",
        slug: `t${i}`,
        fields: { name: `Draft ${i}` },
      });
      ids.push(tag.group_id);
    }
    const post = await w.save({
      model: posts,
      locale: "en",
      slug: "many",
      fields: { title: "Many", tags: ids },
    });
    const { token } = await mintPreviewToken(
      { db: w.services.db, clock: w.clock },
      {
        siteId: w.siteId,
        groupId: post.group_id,
        personId: w.adminId,
        relatedDrafts: true,
      },
    );
    const first = await w.json(`/v1/posts/many?expand=tags&preview=${token}`);
    assert.equal(first.status, 200, JSON.stringify(first.body));
    const page = first.body.data.expanded.tags;
    assert.equal(page.data.length, 25);
    assert.equal(page.page.has_more, true);
    const cursor = page.page.next_cursor as string;
    assert.ok(
      !cursor.includes(token.slice(8)),
      "the cursor never holds the token",
    );
    const rest = await w.json(
      `/v1/_related/posts?cursor=${encodeURIComponent(cursor)}`,
    );
    assert.equal(rest.status, 200, JSON.stringify(rest.body));
    assert.deepEqual(rest.body.data.map((t: any) => t.fields.name), [
      "Draft 25",
      "Draft 26",
    ]);
    assert.equal(rest.body.page.has_more, false);
    assert.equal(rest.res.headers.get("cache-control"), "no-store, private");
    // Once the link expires its cursor opens nothing.
    w.clock.advance(30 * 60 * 1000);
    const expired = await w.json(
      `/v1/_related/posts?cursor=${encodeURIComponent(cursor)}`,
    );
    assert.equal(expired.status, 404);
  } finally {
    await w.close();
  }
});
