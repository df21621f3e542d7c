// Long on purpose: the model routes' refusals at their edges share one world and model builders.
// The model routes over HTTP: read, create, change, file and remove models, with every refusal at its edge.
import assert from "node:assert/strict";
import { insertMember, insertRole } from "../../core/access/_testing.ts";
import { type ManageFixture, refusal, withManageApp } from "./helpers.ts";
import {
  insertEntry,
  postsDefinition,
  schemaCredential,
} from "./model_fixtures.ts";

async function createPosts(
  t: ManageFixture,
  secret: string,
  definition = postsDefinition(),
) {
  const response = await t.call("POST", "/models", {
    secret,
    key: `create-${definition.model.slug}`,
    body: { definition },
  });
  assert.equal(response.status, 201);
  return await response.json();
}

Deno.test("POST /models creates at revision 1; GET /models and /models/{id} answer the whole definition", () =>
  withManageApp(async (t) => {
    const secret = await schemaCredential(t);
    const created = await createPosts(t, secret);
    assert.equal(created.slug, "posts");
    assert.equal(created.renamed_from, null);
    assert.equal(created.changed, true);
    assert.equal(created.created_field_ids.length, 2);
    assert.equal("dependents" in created, false);
    assert.equal(created.model.revision, 1);
    const model = await (await t.call("GET", `/models/${created.model_id}`))
      .json();
    assert.deepEqual(model, created.model);
    assert.equal(model.definition.model.settings.validation_mode, "draft");
    const [title] = model.definition.fields;
    assert.equal(title.key, "title");
    assert.equal(title.id, created.created_field_ids[0]);
    assert.equal(typeof title.config, "string");
    assert.equal(title.validation, "{}");
    assert.equal(typeof model.updated_at, "string");
    const list = await (await t.call("GET", "/models")).json();
    assert.deepEqual(list.data.map((m: { model_id: string }) => m.model_id), [
      created.model_id,
    ]);
    // The same key and body replays the first answer; another body is refused.
    const replay = await t.call("POST", "/models", {
      secret,
      key: "create-posts",
      body: { definition: postsDefinition() },
    });
    assert.equal(replay.status, 201);
    assert.deepEqual(await replay.json(), { ...created, replayed: true });
    const reused = await t.call("POST", "/models", {
      secret,
      key: "create-posts",
      body: { definition: postsDefinition("other", "Other") },
    });
    assert.equal(reused.status, 409);
    assert.equal((await refusal(reused)).code, "idempotency_key_reused");
    const missing = await t.call("GET", `/models/${crypto.randomUUID()}`);
    assert.equal(missing.status, 404);
    const notUuid = await t.call("GET", "/models/posts");
    assert.equal(notUuid.status, 404);
  }));

Deno.test("POST /models refusals: field ids, builder codes with every problem, taken slug and name, scope, key, closed body", () =>
  withManageApp(async (t) => {
    const secret = await schemaCredential(t);
    await createPosts(t, secret);
    const withIds = postsDefinition("with-ids", "With ids");
    (withIds.fields[0] as Record<string, unknown>).id = crypto.randomUUID();
    const ids = await t.call("POST", "/models", {
      secret,
      key: "ids",
      body: { definition: withIds },
    });
    assert.equal(ids.status, 400);
    const idsError = await refusal(ids);
    assert.equal(idsError.code, "invalid_request");
    assert.deepEqual(
      (idsError.issues as { path: string }[])[0].path,
      "body.definition.fields[0].id",
    );
    const duplicate = postsDefinition("dup", "Dup");
    duplicate.fields[1].key = "title";
    const dup = await t.call("POST", "/models", {
      secret,
      key: "dup",
      body: { definition: duplicate },
    });
    assert.equal(dup.status, 400);
    const dupError = await refusal(dup);
    assert.equal(dupError.code, "duplicate_field_key");
    assert.equal((dupError.problems as unknown[]).length, 1);
    const twoProblems = {
      model: { name: "", slug: "Bad Slug" },
      fields: [],
    };
    const two = await t.call("POST", "/models", {
      secret,
      key: "two",
      body: { definition: twoProblems },
    });
    assert.equal(two.status, 400);
    assert.equal(((await refusal(two)).problems as unknown[]).length, 2);
    const taken = await t.call("POST", "/models", {
      secret,
      key: "taken",
      body: { definition: postsDefinition("posts", "Another") },
    });
    assert.equal(taken.status, 409);
    assert.deepEqual(await refusal(taken), {
      code: "model_slug_taken",
      message: 'Another model of the site has slug "posts"',
      slug: "posts",
    });
    const named = await t.call("POST", "/models", {
      secret,
      key: "named",
      body: { definition: postsDefinition("posts-2", "POSTS") },
    });
    assert.equal(named.status, 409);
    assert.equal((await refusal(named)).code, "model_name_collision");
    const reader = await t.call("POST", "/models", {
      key: "reader",
      body: { definition: postsDefinition("r", "R") },
    });
    assert.equal(reader.status, 403);
    assert.deepEqual((await refusal(reader)).missing, ["scope schema:write"]);
    const noKey = await t.call("POST", "/models", {
      secret,
      body: { definition: postsDefinition("k", "K") },
    });
    assert.equal(noKey.status, 400);
    assert.equal((await refusal(noKey)).code, "invalid_request");
    const extra = await t.call("POST", "/models", {
      secret,
      key: "extra",
      body: { definition: postsDefinition("e", "E"), force: true },
    });
    assert.equal(extra.status, 400);
    assert.equal((await refusal(extra)).message, 'Unknown key "force" in body');
    const list = await (await t.call("GET", "/models")).json();
    assert.equal(list.data.length, 1);
  }));

Deno.test("PUT /models/{id} changes the model part at the revision read and keeps fields; a rename answers renamed_from and dependents", () =>
  withManageApp(async (t) => {
    const secret = await schemaCredential(t);
    const posts = await createPosts(t, secret);
    const tags = await createPosts(t, secret, {
      model: { name: "Tags", slug: "tags", enableI18n: false },
      fields: [{
        key: "posts",
        label: "Posts",
        type: "relation",
        config: { targets: [posts.model_id], cardinality: "many-to-many" },
      } as never],
    });
    const renamed = await t.call("PUT", `/models/${posts.model_id}`, {
      secret,
      key: "rename",
      body: {
        expected_revision: 1,
        model: { name: "Articles", slug: "articles", enableI18n: true },
      },
    });
    assert.equal(renamed.status, 200);
    const body = await renamed.json();
    assert.equal(body.renamed_from, "posts");
    assert.equal(body.slug, "articles");
    assert.equal(body.model.revision, 2);
    assert.deepEqual(body.created_field_ids, []);
    assert.deepEqual(
      body.model.definition.fields.map((f: { id: string }) => f.id),
      posts.model.definition.fields.map((f: { id: string }) => f.id),
    );
    assert.deepEqual(body.dependents, {
      complete: true,
      relation_fields: [{
        model_id: tags.model_id,
        slug: "tags",
        field: "posts",
      }],
    });
    // MOD-013: a replay answers the first answer without its dependents.
    const replay = await t.call("PUT", `/models/${posts.model_id}`, {
      secret,
      key: "rename",
      body: {
        expected_revision: 1,
        model: { name: "Articles", slug: "articles", enableI18n: true },
      },
    });
    assert.equal(replay.status, 200);
    const replayed = await replay.json();
    assert.equal(replayed.replayed, true);
    assert.equal(replayed.renamed_from, "posts");
    assert.equal("dependents" in replayed, false);
    const stale = await t.call("PUT", `/models/${posts.model_id}`, {
      secret,
      key: "stale",
      body: { expected_revision: 1, model: { name: "X", slug: "x" } },
    });
    assert.equal(stale.status, 409);
    const staleError = await refusal(stale);
    assert.equal(staleError.code, "model_changed");
    assert.equal(staleError.current_revision, 2);
    assert.equal(staleError.current_updated_at, body.model.updated_at);
    const badName = await t.call("PUT", `/models/${posts.model_id}`, {
      secret,
      key: "bad",
      body: { expected_revision: 2, model: { name: "", slug: "articles" } },
    });
    assert.equal(badName.status, 400);
    const badError = await refusal(badName);
    assert.equal(badError.code, "invalid_request");
    assert.equal(
      (badError.issues as { path: string }[])[0].path,
      "body.model.name",
    );
    // The same model part again changes nothing: revision stays, no rename.
    const same = await t.call("PUT", `/models/${posts.model_id}`, {
      secret,
      key: "same",
      body: {
        expected_revision: 2,
        model: { name: "Articles", slug: "articles", enableI18n: true },
      },
    });
    assert.equal(same.status, 200);
    const sameBody = await same.json();
    assert.equal(sameBody.changed, false);
    assert.equal(sameBody.model.revision, 2);
    const gone = await t.call("PUT", `/models/${crypto.randomUUID()}`, {
      secret,
      key: "gone",
      body: { expected_revision: 1, model: { name: "X", slug: "x" } },
    });
    assert.equal(gone.status, 404);
  }));

Deno.test("PUT /models/{id}/definition replaces fields exactly; an unsafe change is 409 model_change_blocked with changes and nothing changes", () =>
  withManageApp(async (t) => {
    const secret = await schemaCredential(t);
    const posts = await createPosts(t, secret);
    const [title, summary] = posts.model.definition.fields;
    await insertEntry(t, posts.model_id, {
      en: { title: "Hello", summary: "" },
      de: { title: "Hallo" },
    });
    await insertEntry(t, posts.model_id, { en: { title: "Two" } });
    const base = posts.model.definition;
    // Summary becomes required while both entries lack it.
    const blocked = await t.call(
      "PUT",
      `/models/${posts.model_id}/definition`,
      {
        secret,
        key: "required",
        body: {
          expected_revision: 1,
          definition: {
            model: base.model,
            fields: [title, { ...summary, required: true }],
          },
        },
      },
    );
    assert.equal(blocked.status, 409);
    const error = await refusal(blocked);
    assert.equal(error.code, "model_change_blocked");
    assert.deepEqual(
      (error.changes as Record<string, unknown>[]).map((c) => [
        c.kind,
        c.field,
        c.affected_count,
      ]),
      [["required_missing", "summary", 2]],
    );
    const change = (error.changes as Record<string, unknown>[])[0];
    assert.equal(typeof change.message, "string");
    assert.equal(typeof change.suggestion, "string");
    // Title becomes unlocalized while entries hold titles: blocked too.
    const localization = await t.call(
      "PUT",
      `/models/${posts.model_id}/definition`,
      {
        secret,
        key: "localized",
        body: {
          expected_revision: 1,
          definition: {
            model: base.model,
            fields: [{ ...title, localized: false }, summary],
          },
        },
      },
    );
    assert.equal(localization.status, 409);
    assert.deepEqual(
      ((await refusal(localization)).changes as { kind: string }[]).map((c) =>
        c.kind
      ),
      ["localization_change"],
    );
    const unchanged = await (await t.call("GET", `/models/${posts.model_id}`))
      .json();
    assert.deepEqual(unchanged, posts.model);
    // Removing summary and adding body: fields match exactly, revision 2.
    const replaced = await t.call(
      "PUT",
      `/models/${posts.model_id}/definition`,
      {
        secret,
        key: "replace",
        body: {
          expected_revision: 1,
          definition: {
            model: base.model,
            fields: [{ key: "body", label: "Body", type: "rich_text" }, title],
          },
        },
      },
    );
    assert.equal(replaced.status, 200);
    const after = await replaced.json();
    assert.equal(after.model.revision, 2);
    assert.equal(after.created_field_ids.length, 1);
    assert.deepEqual(
      after.model.definition.fields.map((f: { key: string }) => f.key),
      ["body", "title"],
    );
    assert.equal(
      after.model.definition.fields[0].id,
      after.created_field_ids[0],
    );
    // Giving the removed key "summary" to a new field while versions hold it: blocked.
    await insertEntry(t, posts.model_id, {
      en: { title: "Three", summary: "kept" },
    });
    const reuse = await t.call("PUT", `/models/${posts.model_id}/definition`, {
      secret,
      key: "reuse",
      body: {
        expected_revision: 2,
        definition: {
          model: base.model,
          fields: [
            ...after.model.definition.fields,
            { key: "summary", label: "Summary", type: "text" },
          ],
        },
      },
    });
    assert.equal(reuse.status, 409);
    const reuseError = await refusal(reuse);
    assert.deepEqual(
      (reuseError.changes as Record<string, unknown>[]).map((c) => [
        c.kind,
        c.affected_count,
      ]),
      [["retained_key_reuse", 1]],
    );
    const stale = await t.call("PUT", `/models/${posts.model_id}/definition`, {
      secret,
      key: "stale",
      body: { expected_revision: 1, definition: base },
    });
    assert.equal(stale.status, 409);
    assert.equal((await refusal(stale)).code, "model_changed");
  }));

Deno.test("PUT /models/{id}/folder files the model without moving its revision; 40 characters pass, 41 are refused", () =>
  withManageApp(async (t) => {
    const secret = await schemaCredential(t);
    const posts = await createPosts(t, secret);
    const pages = await createPosts(
      t,
      secret,
      postsDefinition("pages", "Pages"),
    );
    const filed = await t.call("PUT", `/models/${posts.model_id}/folder`, {
      secret,
      key: "f1",
      body: { folder: "  Content  " },
    });
    assert.equal(filed.status, 200);
    assert.deepEqual(await filed.json(), {
      model_id: posts.model_id,
      slug: "posts",
      folder: "Content",
    });
    // A label equal but for case joins the existing folder's spelling.
    const joined = await t.call("PUT", `/models/${pages.model_id}/folder`, {
      secret,
      key: "f2",
      body: { folder: "CONTENT" },
    });
    assert.equal((await joined.json()).folder, "Content");
    const model = await (await t.call("GET", `/models/${posts.model_id}`))
      .json();
    assert.equal(model.folder, "Content");
    assert.equal(model.revision, 1);
    assert.equal(model.updated_at, posts.model.updated_at);
    const forty = await t.call("PUT", `/models/${posts.model_id}/folder`, {
      secret,
      key: "f40",
      body: { folder: "x".repeat(40) },
    });
    assert.equal(forty.status, 200);
    for (const [key, folder] of [["f41", "x".repeat(41)], ["blank", "   "]]) {
      const refused = await t.call("PUT", `/models/${posts.model_id}/folder`, {
        secret,
        key,
        body: { folder },
      });
      assert.equal(refused.status, 400, key);
      const error = await refusal(refused);
      assert.equal(error.code, "invalid_request");
      assert.equal((error.issues as { path: string }[])[0].path, "body.folder");
    }
    const cleared = await t.call("PUT", `/models/${posts.model_id}/folder`, {
      secret,
      key: "clear",
      body: { folder: null },
    });
    assert.equal((await cleared.json()).folder, null);
    const gone = await t.call("PUT", `/models/${crypto.randomUUID()}/folder`, {
      secret,
      key: "gone",
      body: { folder: "A" },
    });
    assert.equal(gone.status, 404);
  }));

Deno.test("POST /models/{id}/remove needs the id again, the revision read, no entries (Trash counts) and model:delete (MOD-014)", () =>
  withManageApp(async (t) => {
    const secret = await schemaCredential(t);
    const posts = await createPosts(t, secret);
    const tags = await createPosts(t, secret, {
      model: { name: "Tags", slug: "tags", enableI18n: false },
      fields: [{
        key: "posts",
        label: "Posts",
        type: "relation",
        config: { targets: [posts.model_id], cardinality: "many-to-many" },
      } as never],
    });
    const path = `/models/${posts.model_id}/remove`;
    const wrong = await t.call("POST", path, {
      secret,
      key: "wrong",
      body: { expected_revision: 1, confirm: tags.model_id },
    });
    assert.equal(wrong.status, 400);
    assert.equal(
      ((await refusal(wrong)).issues as { path: string }[])[0].path,
      "body.confirm",
    );
    const stale = await t.call("POST", path, {
      secret,
      key: "stale",
      body: { expected_revision: 2, confirm: posts.model_id },
    });
    assert.equal(stale.status, 409);
    assert.equal((await refusal(stale)).code, "model_changed");
    const group = await insertEntry(t, posts.model_id, { en: { title: "A" } }, {
      trashed: true,
    });
    const full = await t.call("POST", path, {
      secret,
      key: "full",
      body: { expected_revision: 1, confirm: posts.model_id },
    });
    assert.equal(full.status, 409);
    const fullError = await refusal(full);
    assert.equal(fullError.code, "model_not_empty");
    assert.equal(fullError.affected_count, 1);
    await t.services.db.deleteFrom("entry_groups").where("id", "=", group)
      .execute();
    // A creator with model:apply but not model:delete.
    const roleId = await insertRole(t.services.db, t.siteId, {
      models: { "*": ["read"] },
      system: ["model:apply"],
    }, t.clock);
    const person = await insertMember(t.services.db, t.siteId, {
      roleId,
      clock: t.clock,
    });
    const limited = await t.credential(["schema:write"], { creatorId: person });
    const denied = await t.call("POST", path, {
      secret: limited.secret,
      key: "denied",
      body: { expected_revision: 1, confirm: posts.model_id },
    });
    assert.equal(denied.status, 403);
    assert.deepEqual((await refusal(denied)).missing, ["model:delete"]);
    const removed = await t.call("POST", path, {
      secret,
      key: "remove",
      body: { expected_revision: 1, confirm: posts.model_id.toUpperCase() },
    });
    assert.equal(removed.status, 200);
    assert.deepEqual(await removed.json(), {
      model_id: posts.model_id,
      slug: "posts",
      created_field_ids: [],
      renamed_from: null,
      changed: true,
      model: null,
      dependents: {
        complete: true,
        relation_fields: [{
          model_id: tags.model_id,
          slug: "tags",
          field: "posts",
        }],
      },
    });
    assert.equal(
      (await t.call("GET", `/models/${posts.model_id}`)).status,
      404,
    );
    const again = await t.call("POST", path, {
      secret,
      key: "again",
      body: { expected_revision: 1, confirm: posts.model_id },
    });
    assert.equal(again.status, 404);
    // The slug is free again.
    await createPosts(t, secret);
  }));

Deno.test("model writes need the creator's model:apply now; a credential's models limit what it reads and writes (MOD-014)", () =>
  withManageApp(async (t) => {
    const secret = await schemaCredential(t);
    const posts = await createPosts(t, secret);
    const pages = await createPosts(
      t,
      secret,
      postsDefinition("pages", "Pages"),
    );
    const roleId = await insertRole(t.services.db, t.siteId, {
      models: { "*": ["read"] },
      system: [],
    }, t.clock);
    const person = await insertMember(t.services.db, t.siteId, {
      roleId,
      clock: t.clock,
    });
    const cred = await t.credential(["schema:write", "schema:propose"], {
      creatorId: person,
    });
    for (
      const [method, path, body] of [
        ["POST", "/models", { definition: postsDefinition("n", "N") }],
        ["PUT", `/models/${posts.model_id}/folder`, { folder: "A" }],
        ["GET", "/models/proposals", undefined],
      ] as const
    ) {
      const response = await t.call(method, path, {
        secret: cred.secret,
        key: method === "GET" ? undefined : `k-${path}`,
        body,
      });
      assert.equal(response.status, 403, `${method} ${path}`);
      const error = await refusal(response);
      assert.equal(error.code, "missing_permission");
      assert.deepEqual(error.missing, ["model:apply"]);
    }
    // MOD-014: nothing was written, and a creator who loses model:apply is refused on the next write.
    assert.equal(
      (await (await t.call("GET", `/models/${posts.model_id}`)).json()).folder,
      null,
    );
    await t.services.db.updateTable("roles").set({
      permissions: JSON.stringify({
        models: { "*": ["read"] },
        system: ["model:apply"],
      }),
    }).where("id", "=", roleId).execute();
    const held = await t.call("PUT", `/models/${posts.model_id}/folder`, {
      secret: cred.secret,
      key: "held",
      body: { folder: "B" },
    });
    assert.equal(held.status, 200);
    await t.services.db.updateTable("roles").set({
      permissions: JSON.stringify({ models: { "*": ["read"] }, system: [] }),
    }).where("id", "=", roleId).execute();
    const lost = await t.call("PUT", `/models/${posts.model_id}/folder`, {
      secret: cred.secret,
      key: "lost",
      body: { folder: "C" },
    });
    assert.equal(lost.status, 403);
    assert.equal((await refusal(lost)).code, "missing_permission");
    assert.equal(
      (await (await t.call("GET", `/models/${posts.model_id}`)).json()).folder,
      "B",
    );
    // A credential limited to posts sees and changes posts only.
    const { credential } = await import(
      "../../core/credentials/credential_store.ts"
    ).then(async (m) => ({
      credential: await m.insertCredential(t.services.db, t.clock, {
        siteId: t.siteId,
        creatorId: t.adminId,
        name: "posts only",
        scopes: ["content:read", "schema:write"],
        models: [posts.model_id],
      }),
    }));
    const only = credential.secret;
    const list = await (await t.call("GET", "/models", { secret: only }))
      .json();
    assert.deepEqual(
      list.data.map((m: { model_id: string }) => m.model_id),
      [posts.model_id],
    );
    assert.equal(
      (await t.call("GET", `/models/${pages.model_id}`, { secret: only }))
        .status,
      404,
    );
    const outside = await t.call("PUT", `/models/${pages.model_id}/folder`, {
      secret: only,
      key: "outside",
      body: { folder: "A" },
    });
    assert.equal(outside.status, 404);
    const inside = await t.call("PUT", `/models/${posts.model_id}/folder`, {
      secret: only,
      key: "inside",
      body: { folder: "A" },
    });
    assert.equal(inside.status, 200);
  }));
