// Deciding proposals over HTTP: a script holding only a credential proposes, applies and dismisses entry and model changes.
import assert from "node:assert/strict";
import type { Scope } from "../../core/access/scopes.ts";
import { type ManageFixture, refusal, withManageApp } from "./helpers.ts";

const SCRIPT: Scope[] = [
  "content:read",
  "content:write",
  "content:propose",
  "lifecycle:publish",
  "schema:write",
  "schema:propose",
];

/** A credential of the administrator, a model made over HTTP, and an entry in `en` and `de`. */
async function script(t: ManageFixture, scopes: Scope[] = SCRIPT) {
  const { secret } = await t.credential(scopes);
  let n = 0;
  const call = (
    method: string,
    path: string,
    body?: unknown,
    options: { secret?: string; key?: string } = {},
  ) =>
    t.call(method, path, {
      body,
      secret: options.secret ?? secret,
      key: method === "GET" ? undefined : options.key ?? `key-${++n}`,
    });
  const json = async (r: Response, status = 200) => {
    const body = await r.json();
    assert.equal(r.status, status, JSON.stringify(body));
    return body;
  };
  const model = await json(
    await call("POST", "/models", {
      definition: {
        model: { name: "Posts", slug: "posts", enableI18n: true },
        fields: [
          { key: "title", label: "Title", type: "text", localized: true },
          { key: "body", label: "Body", type: "text", localized: true },
        ],
      },
    }),
    201,
  );
  const en = await json(
    await call("POST", "/entries", {
      model_id: model.model_id,
      locale: "en",
      slug: "hello",
      fields: { title: "Hello", body: "First" },
    }),
    201,
  );
  const both = await json(
    await call("POST", `/entries/${en.id}/locales`, {
      locale: "de",
      slug: "hallo",
      fields: { title: "Hallo", body: "Erste" },
    }),
    201,
  );
  return { secret, call, json, model, entryId: en.id as string, de: both };
}

Deno.test("POST /entries/{id}/proposals/{proposalId}/apply saves the proposed values as a new version; dismiss leaves the entry unchanged", () =>
  withManageApp(async (t) => {
    const s = await script(t);
    const entry = await s.json(await s.call("GET", `/entries/${s.entryId}`));
    const base = entry.locales.de.current_version_id;
    const proposed = await s.json(
      await s.call("POST", `/entries/${s.entryId}/proposals`, {
        base_version_id: base,
        fields: { title: "Hallo Welt" },
        note: "Sharper",
      }),
      201,
    );
    const applied = await s.json(
      await s.call(
        "POST",
        `/entries/${s.entryId}/proposals/${proposed.id}/apply`,
        undefined,
        { key: "apply-1" },
      ),
    );
    assert.equal(applied.proposal.state, "applied");
    assert.equal(applied.proposal.revision, 2);
    assert.equal(applied.proposal.decided_by.kind, "credential");
    const newVersion = applied.entry.locales.de.current_version_id;
    assert.notEqual(newVersion, base);
    assert.equal(applied.proposal.applied_version_id, newVersion);
    const version = await s.json(
      await s.call("GET", `/entries/${s.entryId}/versions/${newVersion}`),
    );
    assert.deepEqual(version.fields, { title: "Hallo Welt", body: "Erste" });
    // en is untouched.
    assert.equal(
      applied.entry.locales.en.current_version_id,
      entry.locales.en.current_version_id,
    );
    // A repeated apply (a new key, or a rerun after a lost answer) meets the proposal's own record.
    const again = await s.call(
      "POST",
      `/entries/${s.entryId}/proposals/${proposed.id}/apply`,
    );
    assert.equal(again.status, 409);
    assert.equal((await refusal(again)).code, "proposal_not_open");
    // The same key answers the first answer again.
    const replay = await s.call(
      "POST",
      `/entries/${s.entryId}/proposals/${proposed.id}/apply`,
      undefined,
      { key: "apply-1" },
    );
    assert.equal(replay.status, 200);
    assert.equal((await replay.json()).replayed, true);

    t.clock.advance(1000);
    const other = await s.json(
      await s.call("POST", `/entries/${s.entryId}/proposals`, {
        base_version_id: newVersion,
        fields: { body: "Nope" },
      }),
      201,
    );
    const before = await s.json(await s.call("GET", `/entries/${s.entryId}`));
    const dismissed = await s.json(
      await s.call(
        "POST",
        `/entries/${s.entryId}/proposals/${other.id}/dismiss`,
      ),
    );
    assert.equal(dismissed.proposal.state, "dismissed");
    assert.equal(dismissed.proposal.applied_version_id, null);
    assert.deepEqual(
      await s.json(await s.call("GET", `/entries/${s.entryId}`)),
      before,
    );
    const twice = await s.call(
      "POST",
      `/entries/${s.entryId}/proposals/${other.id}/apply`,
    );
    assert.equal((await refusal(twice)).code, "proposal_not_open");
    const list = await s.json(
      await s.call("GET", `/entries/${s.entryId}/proposals`),
    );
    assert.deepEqual(
      list.data.map((p: { state: string }) => p.state),
      ["applied", "dismissed"],
    );
  }));

Deno.test("POST /entries/{id}/proposals/{proposalId}/apply after the entry changed is 409 proposal_stale and writes nothing", () =>
  withManageApp(async (t) => {
    const s = await script(t);
    const entry = await s.json(await s.call("GET", `/entries/${s.entryId}`));
    const base = entry.locales.en.current_version_id;
    const proposed = await s.json(
      await s.call("POST", `/entries/${s.entryId}/proposals`, {
        base_version_id: base,
        fields: { title: "Proposed" },
      }),
      201,
    );
    await s.json(
      await s.call("PUT", `/entries/${s.entryId}`, {
        locale: "en",
        expected_current_version_id: base,
        fields: { title: "Edited meanwhile", body: "First" },
      }),
    );
    const after = await s.json(await s.call("GET", `/entries/${s.entryId}`));
    const stale = await s.call(
      "POST",
      `/entries/${s.entryId}/proposals/${proposed.id}/apply`,
    );
    assert.equal(stale.status, 409);
    assert.equal((await refusal(stale)).code, "proposal_stale");
    assert.deepEqual(
      await s.json(await s.call("GET", `/entries/${s.entryId}`)),
      after,
    );
    const list = await s.json(
      await s.call("GET", `/entries/${s.entryId}/proposals?state=open`),
    );
    assert.deepEqual(list.data.map((p: { id: string }) => p.id), [
      proposed.id,
    ]);
  }));

Deno.test("Deciding an entry proposal needs scope content:write; another entry's path or an unknown proposal is 404", () =>
  withManageApp(async (t) => {
    const s = await script(t);
    const entry = await s.json(await s.call("GET", `/entries/${s.entryId}`));
    const proposed = await s.json(
      await s.call("POST", `/entries/${s.entryId}/proposals`, {
        base_version_id: entry.locales.en.current_version_id,
        fields: { title: "Proposed" },
      }),
      201,
    );
    const { secret: proposer } = await t.credential([
      "content:read",
      "content:propose",
    ]);
    for (const verb of ["apply", "dismiss"]) {
      const refused = await s.call(
        "POST",
        `/entries/${s.entryId}/proposals/${proposed.id}/${verb}`,
        undefined,
        { secret: proposer },
      );
      assert.equal(refused.status, 403);
      const error = await refusal(refused);
      assert.equal(error.code, "missing_permission");
      assert.deepEqual(error.missing, ["scope content:write"]);
    }
    const otherEntry = await s.json(
      await s.call("POST", "/entries", {
        model_id: s.model.model_id,
        locale: "en",
        slug: "other",
        fields: { title: "Other" },
      }),
      201,
    );
    for (
      const path of [
        `/entries/${otherEntry.id}/proposals/${proposed.id}/apply`,
        `/entries/${s.entryId}/proposals/${crypto.randomUUID()}/apply`,
        `/entries/${s.entryId}/proposals/${crypto.randomUUID()}/dismiss`,
      ]
    ) {
      const missing = await s.call("POST", path);
      assert.equal(missing.status, 404, path);
      assert.equal((await refusal(missing)).code, "not_found");
    }
    const withBody = await s.call(
      "POST",
      `/entries/${s.entryId}/proposals/${proposed.id}/apply`,
      {},
    );
    assert.equal((await refusal(withBody)).code, "invalid_request");
    const still = await s.json(
      await s.call("GET", `/entries/${s.entryId}/proposals`),
    );
    assert.equal(still.data[0].state, "open");
  }));

Deno.test("POST /models/proposals/{id}/apply applies create and update proposals as model saves; dismiss and stale proposals", () =>
  withManageApp(async (t) => {
    const s = await script(t);
    const create = await s.json(
      await s.call("POST", "/models/proposals", {
        mode: "create",
        definition: {
          model: { name: "Tags", slug: "tags" },
          fields: [{ key: "name", label: "Name", type: "text" }],
        },
      }),
      201,
    );
    const made = await s.json(
      await s.call("POST", `/models/proposals/${create.id}/apply`),
    );
    assert.equal(made.proposal.state, "applied");
    assert.equal(made.proposal.applied_model_id, made.model.model_id);
    assert.equal(made.proposal.decided_by.kind, "credential");
    assert.equal(made.model.slug, "tags");
    assert.equal(made.model.model.definition.fields[0].key, "name");

    const current = await s.json(
      await s.call("GET", `/models/${s.model.model_id}`),
    );
    const [title, body] = current.definition.fields;
    const propose = async (label: string, base = current.updated_at) =>
      await s.json(
        await s.call("POST", "/models/proposals", {
          mode: "update",
          model_id: s.model.model_id,
          base_updated_at: base,
          definition: {
            model: current.definition.model,
            fields: [{ ...title, label }, body],
          },
        }),
        201,
      );
    const rename = await propose("Headline");
    const dismissMe = await propose("Heading");
    const dismissed = await s.json(
      await s.call("POST", `/models/proposals/${dismissMe.id}/dismiss`),
    );
    assert.equal(dismissed.proposal.state, "dismissed");
    t.clock.advance(1000);
    const applied = await s.json(
      await s.call("POST", `/models/proposals/${rename.id}/apply`),
    );
    assert.equal(applied.proposal.state, "applied");
    assert.equal(applied.model.changed, true);
    assert.equal(applied.model.model.revision, current.revision + 1);
    assert.equal(applied.model.model.definition.fields[0].label, "Headline");
    const repeated = await s.call(
      "POST",
      `/models/proposals/${rename.id}/apply`,
    );
    assert.equal(repeated.status, 409);
    assert.equal((await refusal(repeated)).code, "proposal_not_open");

    // A proposal on the model as it was before the apply is stale: apply refused, dismissal remains.
    const fresh = await s.json(
      await s.call("GET", `/models/${s.model.model_id}`),
    );
    const stale = await s.json(
      await s.call("POST", "/models/proposals", {
        mode: "update",
        model_id: s.model.model_id,
        base_updated_at: fresh.updated_at,
        definition: fresh.definition,
        note: "will go stale",
      }),
      201,
    );
    t.clock.advance(1000);
    await s.json(
      await s.call("PUT", `/models/${s.model.model_id}/definition`, {
        expected_revision: fresh.revision,
        definition: {
          model: fresh.definition.model,
          fields: fresh.definition.fields.map((
            f: { key: string; label: string },
          ) => f.key === "body" ? { ...f, label: "Text" } : f),
        },
      }),
    );
    const before = await s.json(
      await s.call("GET", `/models/${s.model.model_id}`),
    );
    const refused = await s.call("POST", `/models/proposals/${stale.id}/apply`);
    assert.equal(refused.status, 409);
    assert.equal((await refusal(refused)).code, "schema_proposal_stale");
    assert.deepEqual(
      await s.json(await s.call("GET", `/models/${s.model.model_id}`)),
      before,
    );
    const gone = await s.json(
      await s.call("POST", `/models/proposals/${stale.id}/dismiss`),
    );
    assert.equal(gone.proposal.state, "dismissed");
  }));

Deno.test("Deciding model proposals: apply needs scope schema:write, dismiss schema:propose; an unknown proposal is 404", () =>
  withManageApp(async (t) => {
    const s = await script(t);
    const proposal = await s.json(
      await s.call("POST", "/models/proposals", {
        mode: "create",
        definition: {
          model: { name: "Tags", slug: "tags" },
          fields: [{ key: "name", label: "Name", type: "text" }],
        },
      }),
      201,
    );
    const { secret: proposer } = await t.credential([
      "content:read",
      "schema:propose",
    ]);
    const refused = await s.call(
      "POST",
      `/models/proposals/${proposal.id}/apply`,
      undefined,
      { secret: proposer },
    );
    assert.equal(refused.status, 403);
    assert.deepEqual((await refusal(refused)).missing, ["scope schema:write"]);
    const { secret: writer } = await t.credential([
      "content:read",
      "schema:write",
    ]);
    const noDismiss = await s.call(
      "POST",
      `/models/proposals/${proposal.id}/dismiss`,
      undefined,
      { secret: writer },
    );
    assert.equal(noDismiss.status, 403);
    assert.deepEqual((await refusal(noDismiss)).missing, [
      "scope schema:propose",
    ]);
    for (const verb of ["apply", "dismiss"]) {
      const missing = await s.call(
        "POST",
        `/models/proposals/${crypto.randomUUID()}/${verb}`,
      );
      assert.equal(missing.status, 404);
    }
    const dismissed = await s.json(
      await s.call(
        "POST",
        `/models/proposals/${proposal.id}/dismiss`,
        undefined,
        {
          secret: proposer,
        },
      ),
    );
    assert.equal(dismissed.proposal.state, "dismissed");
    const models = await s.json(await s.call("GET", "/models"));
    assert.deepEqual(models.data.map((m: { model_id: string }) => m.model_id), [
      s.model.model_id,
    ]);
  }));
