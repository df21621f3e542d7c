// MAPI-014: model writes and the Site Chrome and SEO settings writes are one-batch commands: each
// is written with its audit entry in one transaction, so a retry after a lost answer answers the
// first result with `replayed: true` instead of running again (and meeting its own pins).
import assert from "node:assert/strict";
import type { CredentialActor } from "../../core/access/actor.ts";
import type { Db } from "../../core/db/database.ts";
import { sha256Hex } from "../../core/kv/digest.ts";
import { entryContentFacts } from "../../core/manage/content_facts.ts";
import { IDEMPOTENCY_RETENTION_MS } from "../../core/kv/idempotency_key.ts";
import { IdempotencyStore } from "../../core/kv/idempotency_store.ts";
import { keyDigestOf } from "../../core/manage/idempotency.ts";
import {
  applyModelDefinition,
  createModel,
  removeModel,
  setModelFolder,
  updateModelInfo,
} from "../../core/models/mod.ts";
import type { StoredModel } from "../../core/models/store_rows.ts";
import { putSettings } from "../../core/sites/settings.ts";
import { SETTINGS_DEFAULTS } from "../../core/sites/settings_documents.ts";
import { type ManageFixture, withManageApp } from "./helpers.ts";
import { postsDefinition } from "./model_fixtures.ts";

/** Claims `key` as a first request that then died: the claim stays without an answer. */
async function strandClaim(
  t: ManageFixture,
  credentialId: string,
  key: string,
  request: { method: string; path: string; body: unknown },
): Promise<string> {
  const store = new IdempotencyStore(t.services.kv, { clock: t.clock });
  const scope = ["manage", t.siteId, credentialId];
  const claimed = await store.claim({ scope, key }, {
    method: request.method,
    path: `/api/manage/v1${request.path}`,
    bodyDigest: await sha256Hex(JSON.stringify(request.body)),
    retentionMs: IDEMPOTENCY_RETENTION_MS,
  });
  assert.ok(claimed.ok && !claimed.replayed);
  return await keyDigestOf(scope, key);
}

function actorOf(t: ManageFixture, credentialId: string): CredentialActor {
  return {
    kind: "credential",
    credentialId,
    creatorId: t.adminId,
    scopes: ["content:read", "schema:write", "settings:write"],
    models: null,
  };
}

Deno.test("a lost answer of each model write: the retry answers the first result, replayed, and nothing is written twice (MAPI-014)", () =>
  withManageApp(async (t) => {
    const cred = await t.credential(["content:read", "schema:write"]);
    const actor = actorOf(t, cred.id);
    const facts = (db: Db, model: StoredModel) =>
      entryContentFacts(db, t.siteId, model);
    // The first request wrote the model and its audit entry, then died before answering.
    const ctx = (keyDigest: string) => ({
      db: t.services.db,
      clock: t.clock,
      siteId: t.siteId,
      record: { actor, keyDigest },
    });
    const call = (method: string, path: string, key: string, body: unknown) =>
      t.call(method, path, { secret: cred.secret, key, body });
    const retry = async (
      method: string,
      path: string,
      key: string,
      body: unknown,
      status = 200,
    ) => {
      t.clock.advance(60_000);
      const res = await call(method, path, key, body);
      assert.equal(res.status, status, await res.clone().text());
      const answer = await res.json();
      assert.equal(answer.replayed, true, `${method} ${path}`);
      return answer;
    };

    const createBody = { definition: postsDefinition() };
    const created = await createModel(
      ctx(
        await strandClaim(t, cred.id, "create", {
          method: "POST",
          path: "/models",
          body: createBody,
        }),
      ),
      createBody.definition,
    );
    assert.ok(created.ok);
    const modelId = created.model_id;
    const first = await retry("POST", "/models", "create", createBody, 201);
    assert.equal(first.model_id, modelId);
    assert.deepEqual(first.created_field_ids, created.created_field_ids);
    assert.equal(first.model.revision, 1);
    const models = await t.services.db.selectFrom("models").select("id")
      .where("site_id", "=", t.siteId).where("deleted_at", "is", null)
      .execute();
    assert.equal(models.length, 1);

    // The model part: running again would meet model_changed.
    const path = `/models/${modelId}`;
    const updateBody = {
      expected_revision: 1,
      model: { ...postsDefinition().model, name: "Articles", slug: "articles" },
    };
    const updated = await updateModelInfo(
      ctx(
        await strandClaim(t, cred.id, "update", {
          method: "PUT",
          path,
          body: updateBody,
        }),
      ),
      modelId,
      updateBody.model,
      { baseRevision: 1, facts },
    );
    assert.ok(updated.ok);
    const renamed = await retry("PUT", path, "update", updateBody);
    assert.equal(renamed.renamed_from, "posts");
    assert.equal(renamed.model.revision, 2);
    assert.equal(
      renamed.dependents,
      undefined,
      "dependents are first-answer only",
    );

    // The whole definition.
    const definitionBody = {
      expected_revision: 2,
      definition: {
        model: updateBody.model,
        fields: [
          ...updated.model.fields,
          { key: "byline", label: "Byline", type: "text" },
        ],
      },
    };
    const replaced = await applyModelDefinition(
      ctx(
        await strandClaim(t, cred.id, "definition", {
          method: "PUT",
          path: `${path}/definition`,
          body: definitionBody,
        }),
      ),
      modelId,
      definitionBody.definition,
      { baseRevision: 2, facts },
    );
    assert.ok(replaced.ok);
    const defined = await retry(
      "PUT",
      `${path}/definition`,
      "definition",
      definitionBody,
    );
    assert.equal(defined.model.revision, 3);
    assert.deepEqual(defined.created_field_ids, replaced.created_field_ids);

    // The folder.
    const folderBody = { folder: "Blog" };
    const filed = await setModelFolder(
      ctx(
        await strandClaim(t, cred.id, "folder", {
          method: "PUT",
          path: `${path}/folder`,
          body: folderBody,
        }),
      ),
      modelId,
      "Blog",
    );
    assert.ok(filed.ok);
    assert.deepEqual(
      await retry("PUT", `${path}/folder`, "folder", folderBody),
      { model_id: modelId, slug: "articles", folder: "Blog", replayed: true },
    );

    // The removal: running again would answer 404 not_found.
    const removeBody = { expected_revision: 3, confirm: modelId };
    const removed = await removeModel(
      ctx(
        await strandClaim(t, cred.id, "remove", {
          method: "POST",
          path: `${path}/remove`,
          body: removeBody,
        }),
      ),
      modelId,
      { baseRevision: 3, confirm: modelId, facts },
    );
    assert.ok(removed.ok);
    assert.deepEqual(
      await retry("POST", `${path}/remove`, "remove", removeBody),
      {
        model_id: modelId,
        slug: "articles",
        created_field_ids: [],
        renamed_from: null,
        changed: true,
        model: null,
        replayed: true,
      },
    );

    // Nothing written under the key: the retry runs the command.
    const fresh = { definition: postsDefinition("notes", "Notes") };
    await strandClaim(t, cred.id, "fresh", {
      method: "POST",
      path: "/models",
      body: fresh,
    });
    t.clock.advance(60_000);
    const ran = await call("POST", "/models", "fresh", fresh);
    assert.equal(ran.status, 201);
    assert.equal((await ran.json()).replayed, undefined);
  }));

Deno.test("a lost answer of a Site Chrome or SEO settings write: the retry answers the first result, replayed, not conflict (MAPI-014)", () =>
  withManageApp(async (t) => {
    for (const key of ["chrome", "seo"] as const) {
      const body = {
        expected_revision: 0,
        document: structuredClone(SETTINGS_DEFAULTS[key]),
      };
      const keyDigest = await strandClaim(t, t.credentialId, `put-${key}`, {
        method: "PUT",
        path: `/settings/${key}`,
        body,
      });
      const written = await putSettings(
        {
          db: t.services.db,
          clock: t.clock,
          siteId: t.siteId,
          personId: t.adminId,
          record: { actor: actorOf(t, t.credentialId), keyDigest },
        },
        key,
        { document: body.document, expectedRevision: 0 },
      );
      assert.ok(written.ok);
      t.clock.advance(60_000);
      const settled = await t.call("PUT", `/settings/${key}`, {
        key: `put-${key}`,
        body,
      });
      assert.equal(settled.status, 200, await settled.clone().text());
      assert.deepEqual(await settled.json(), {
        ...JSON.parse(JSON.stringify(written.settings)),
        replayed: true,
      });
      // The settled answer is kept: later retries replay it too.
      const again = await t.call("PUT", `/settings/${key}`, {
        key: `put-${key}`,
        body,
      });
      assert.equal((await again.json()).replayed, true);
      const stored = await t.call("GET", `/settings/${key}`);
      assert.equal((await stored.json()).revision, 1);
    }
  }));
