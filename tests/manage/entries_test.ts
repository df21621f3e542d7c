// Long on purpose: the /entries routes' script and refusals share one world; split, each part would set it up.
// The /entries routes over HTTP: an end-to-end script, reads, lists, saves, versions, publish and unpublish with every refusal.
import assert from "node:assert/strict";
import type { Scope } from "../../core/access/scopes.ts";
import { insertCredential } from "../../core/credentials/credential_store.ts";
import { saveEntry } from "../../core/entries/mod.ts";
import { sha256Hex } from "../../core/kv/digest.ts";
import {
  IDEMPOTENCY_RETENTION_MS,
  IdempotencyStore,
} from "../../core/kv/mod.ts";
import { keyDigestOf } from "../../core/manage/idempotency.ts";
import { createModel } from "../../core/models/store.ts";
import { type ManageFixture, refusal, withManageApp } from "./helpers.ts";

const ALL: Scope[] = [
  "content:read",
  "content:write",
  "content:propose",
  "lifecycle:publish",
  "content:trash",
  "content:purge",
  "workflow:move",
  "workflow:assign",
];

/** A model made through the models service (the credential models nothing) and a credential for entries. */
async function setup(t: ManageFixture, scopes: Scope[] = ALL) {
  const made = await createModel(
    { db: t.services.db, clock: t.clock, siteId: t.siteId },
    {
      model: { name: "Posts", slug: "posts" },
      fields: [
        { key: "title", label: "Title", type: "text", required: true },
        { key: "body", label: "Body", type: "text" },
      ],
    },
  );
  if (!made.ok) throw new Error(JSON.stringify(made));
  const { id: credentialId, secret } = await t.credential(scopes);
  let n = 0;
  const call = (
    method: string,
    path: string,
    body?: unknown,
    options: { key?: string | null; secret?: string } = {},
  ) =>
    t.call(method, path, {
      body,
      secret: options.secret ?? secret,
      key: options.key === null
        ? undefined
        : options.key ?? (method === "GET" ? undefined : `k-${++n}`),
    });
  const json = async (r: Response, status = 200) => {
    const body = await r.json();
    assert.equal(r.status, status, JSON.stringify(body));
    return body;
  };
  return { modelId: made.model.id, secret, credentialId, call, json };
}

async function create(
  s: Awaited<ReturnType<typeof setup>>,
  fields: Record<string, unknown> = { title: "Hello" },
  slug = "hello",
) {
  return await s.json(
    await s.call("POST", "/entries", {
      model_id: s.modelId,
      locale: "en",
      slug,
      fields,
    }),
    201,
  );
}

Deno.test("entries end to end: create, edit, publish and unpublish in two languages, then propose a change (ENT-003)", () =>
  withManageApp(async (t) => {
    const s = await setup(t);
    const created = await create(s, { title: "Hello" });
    assert.equal(created.state, "draft");
    assert.equal(created.revision, 0);
    const id = created.id;
    const v1 = created.locales.en.current_version_id;
    assert.equal(created.current_version_id, v1);

    const edited = await s.json(
      await s.call("PUT", `/entries/${id}`, {
        locale: "en",
        expected_current_version_id: v1,
        fields: { title: "Hello world", body: "Text" },
      }),
    );
    assert.deepEqual(edited.policy_results, []);
    const v2 = edited.locales.en.current_version_id;
    assert.notEqual(v2, v1);

    const added = await s.json(
      await s.call("POST", `/entries/${id}/locales`, {
        locale: "de",
        slug: "hallo",
        fields: { title: "Hallo Welt" },
      }, { key: "add-de" }),
      201,
    );
    assert.equal(added.locale, "de");
    assert.equal(added.slug, "hallo");

    let read = await s.json(await s.call("GET", `/entries/${id}`));
    assert.deepEqual(Object.keys(read.locales), ["en", "de"]);
    assert.equal(read.locales.de.fields.title, "Hallo Welt");
    assert.equal(read.workflow.revision, 0);
    assert.deepEqual(
      read.workflow.transitions.map((x: { kind: string }) => x.kind).sort(),
      ["publish", "submit", "trash"],
    );
    const enLive = await s.json(
      await s.call("POST", `/entries/${id}/publish`, {
        locale: "en",
        expected_current_version_id: v2,
        expected_workflow_revision: 0,
      }),
    );
    assert.equal(enLive.locales.en.state, "published");
    assert.equal(enLive.locales.de.state, "draft");
    assert.equal(enLive.locales.en.published_version_id, v2);
    assert.equal(enLive.revision, 1);

    const allLive = await s.json(
      await s.call("POST", `/entries/${id}/publish`, {
        expected_current_version_id: read.current_version_id,
        expected_workflow_revision: 1,
      }),
    );
    assert.equal(allLive.locales.de.state, "published");
    assert.equal(allLive.published_version_id, read.current_version_id);

    read = await s.json(await s.call("GET", `/entries/${id}`));
    assert.equal(read.state, "published");
    assert.equal(
      read.locales.de.published_version_id,
      added.current_version_id,
    );
    assert.ok(
      read.workflow.locales.de.transitions.some((x: { kind: string }) =>
        x.kind === "unpublish"
      ),
    );

    const deOff = await s.json(
      await s.call("POST", `/entries/${id}/unpublish`, {
        locale: "de",
        expected_published_version_id: added.current_version_id,
        expected_workflow_revision: 2,
      }),
    );
    assert.equal(deOff.locales.de.state, "draft");
    assert.equal(deOff.locales.en.state, "published");
    const allOff = await s.json(
      await s.call("POST", `/entries/${id}/unpublish`, {
        expected_published_version_id: v2,
        expected_workflow_revision: 3,
      }),
    );
    assert.equal(allOff.state, "draft");
    // MAPI-010: the new-language key holds its exact first answer after the entry moved on.
    const addReplay = await s.json(
      await s.call("POST", `/entries/${id}/locales`, {
        locale: "de",
        slug: "hallo",
        fields: { title: "Hallo Welt" },
      }, { key: "add-de" }),
      201,
    );
    assert.deepEqual(addReplay, { ...added, replayed: true });

    const proposal = await s.json(
      await s.call("POST", `/entries/${id}/proposals`, {
        base_version_id: v2,
        fields: { title: "Hello, world" },
        note: "Comma",
      }),
      201,
    );
    assert.equal(proposal.state, "open");
    assert.equal(proposal.source.kind, "management");
    assert.deepEqual(proposal.original_fields, { title: "Hello world" });
    const listed = await s.json(
      await s.call("GET", `/entries/${id}/proposals?state=open`),
    );
    assert.deepEqual(listed.data.map((p: { id: string }) => p.id), [
      proposal.id,
    ]);
    const versions = await s.json(
      await s.call("GET", `/entries/${id}/versions`),
    );
    assert.deepEqual(
      versions.data.map((v: { number: number }) => v.number),
      [3, 2, 1],
    );
  }));

Deno.test("GET /entries pages a model's entries in SQL with an opaque cursor; limit 100 answers, 101 is 400 (ENT-001)", () =>
  withManageApp(async (t) => {
    const s = await setup(t);
    for (let i = 0; i < 5; i++) {
      await create(s, { title: `P${i}` }, `p-${i}`);
      t.clock.advance(1000);
    }
    // ENT-001: an entry of another model never shows in this model's list.
    const notes = await createModel(
      { db: t.services.db, clock: t.clock, siteId: t.siteId },
      {
        model: { name: "Notes", slug: "notes" },
        fields: [{ key: "title", label: "Title", type: "text" }],
      },
    );
    if (!notes.ok) throw new Error(JSON.stringify(notes));
    const note = await s.json(
      await s.call("POST", "/entries", {
        model_id: notes.model.id,
        locale: "en",
        slug: "note",
        fields: { title: "Note" },
      }),
      201,
    );
    const first = await s.json(
      await s.call("GET", `/entries?model_id=${s.modelId}&limit=2`),
    );
    assert.deepEqual(
      first.data.map((e: { locales: { en: { slug: string } } }) =>
        e.locales.en.slug
      ),
      ["p-4", "p-3"],
    );
    assert.equal(first.page.limit, 2);
    assert.equal(first.page.has_more, true);
    const seen = [...first.data];
    let cursor = first.page.next_cursor;
    while (cursor) {
      const next = await s.json(
        await s.call(
          "GET",
          `/entries?model_id=${s.modelId}&limit=2&cursor=${cursor}`,
        ),
      );
      seen.push(...next.data);
      cursor = next.page.next_cursor;
    }
    assert.equal(seen.length, 5);
    assert.equal(new Set(seen.map((e) => e.id)).size, 5);
    assert.ok(seen.every((e) => e.model_id === s.modelId && e.id !== note.id));
    const theirs = await s.json(
      await s.call("GET", `/entries?model_id=${notes.model.id}`),
    );
    assert.deepEqual(theirs.data.map((e: { id: string }) => e.id), [note.id]);
    const ok = await s.call("GET", `/entries?model_id=${s.modelId}&limit=100`);
    assert.equal(ok.status, 200);
    const over = await s.call(
      "GET",
      `/entries?model_id=${s.modelId}&limit=101`,
    );
    assert.equal(over.status, 400);
    assert.equal((await refusal(over)).code, "invalid_request");
    const foreign = await s.call(
      "GET",
      `/entries?model_id=${crypto.randomUUID()}&cursor=${first.page.next_cursor}`,
    );
    assert.equal(foreign.status, 400);
    assert.equal(
      ((await refusal(foreign)).issues as { path: string }[])[0].path,
      "query.cursor",
    );
    const missing = await s.call("GET", "/entries");
    assert.equal(missing.status, 400);
  }));

Deno.test("create and update refusals: 404, 409 version_conflict, 422 field_validation_failed with paths, 409 slug_taken, 403 missing scope; nothing changes", () =>
  withManageApp(async (t) => {
    const s = await setup(t);
    const created = await create(s);
    const id = created.id;
    const v1 = created.locales.en.current_version_id;
    const unknownModel = await s.call("POST", "/entries", {
      model_id: crypto.randomUUID(),
      locale: "en",
      slug: "x",
      fields: {},
    });
    assert.equal(unknownModel.status, 404);
    assert.match((await unknownModel.json()).error.message, /^No model "/);
    // The model is named before the language: an unknown one of each is still the model's 404.
    const unknownBoth = await s.call("POST", "/entries", {
      model_id: crypto.randomUUID(),
      locale: "xx",
      slug: "x",
      fields: {},
    });
    assert.equal(unknownBoth.status, 404);
    await unknownBoth.body?.cancel();
    const taken = await s.call("POST", "/entries", {
      model_id: s.modelId,
      locale: "en",
      slug: "hello",
      fields: { title: "Again" },
    });
    assert.equal(taken.status, 409);
    assert.equal((await refusal(taken)).code, "slug_taken");
    const invalid = await s.call("PUT", `/entries/${id}`, {
      locale: "en",
      expected_current_version_id: v1,
      fields: { title: 42 },
    });
    assert.equal(invalid.status, 422);
    const problem = await refusal(invalid);
    assert.equal(problem.code, "field_validation_failed");
    assert.equal((problem.errors as { path: string }[])[0].path, "title");
    const stale = await s.call("PUT", `/entries/${id}`, {
      locale: "en",
      expected_current_version_id: crypto.randomUUID(),
      fields: { title: "Stale" },
    });
    assert.equal(stale.status, 409);
    assert.equal((await refusal(stale)).code, "version_conflict");
    const noLanguage = await s.call("PUT", `/entries/${id}`, {
      locale: "de",
      expected_current_version_id: v1,
      fields: { title: "X" },
    });
    assert.equal(noLanguage.status, 404);
    const noSiteLanguage = await s.call("PUT", `/entries/${id}`, {
      locale: "fr",
      expected_current_version_id: v1,
      fields: { title: "X" },
    });
    assert.equal(noSiteLanguage.status, 422);
    assert.equal((await refusal(noSiteLanguage)).code, "unknown_locale");
    const absent = await s.call("GET", `/entries/${crypto.randomUUID()}`);
    assert.equal(absent.status, 404);
    const notAnId = await s.call("GET", "/entries/not-an-id");
    assert.equal(notAnId.status, 404);
    const closed = await s.call("PUT", `/entries/${id}`, {
      locale: "en",
      expected_current_version_id: v1,
      fields: {},
      status: "x",
    });
    assert.equal(closed.status, 400);
    const readOnly = await t.credential(["content:read"]);
    const denied = await s.call("PUT", `/entries/${id}`, {
      locale: "en",
      expected_current_version_id: v1,
      fields: { title: "No" },
    }, { secret: readOnly.secret });
    assert.equal(denied.status, 403);
    assert.deepEqual((await refusal(denied)).missing, ["scope content:write"]);
    const read = await s.json(await s.call("GET", `/entries/${id}`));
    assert.equal(read.current_version_id, v1);
    assert.equal(read.locales.en.fields.title, "Hello");
    const existing = await s.call("POST", `/entries/${id}/locales`, {
      locale: "en",
      slug: "again",
      fields: {},
    });
    assert.equal(existing.status, 409);
    assert.equal((await refusal(existing)).code, "locale_exists");
  }));

Deno.test("publish and unpublish pins: 409 workflow_conflict, 409 version_conflict, 409 transition_unavailable, 422 on the exact snapshot, 403 without lifecycle:publish", () =>
  withManageApp(async (t) => {
    const s = await setup(t);
    const created = await create(s, { body: "no title" });
    const id = created.id;
    const v1 = created.current_version_id;
    const pin = (extra: Record<string, unknown>) => ({
      expected_current_version_id: v1,
      expected_workflow_revision: 0,
      ...extra,
    });
    const invalid = await s.call("POST", `/entries/${id}/publish`, pin({}));
    assert.equal(invalid.status, 422);
    const problem = await refusal(invalid);
    assert.equal(problem.code, "field_validation_failed");
    assert.deepEqual(
      (problem.errors as { path: string; locale: string }[]).map((
        e,
      ) => [e.path, e.locale]),
      [["title", "en"]],
    );
    const fixed = await s.json(
      await s.call("PUT", `/entries/${id}`, {
        locale: "en",
        expected_current_version_id: v1,
        fields: { title: "T" },
      }),
    );
    const v2 = fixed.current_version_id;
    const workflow = await s.call(
      "POST",
      `/entries/${id}/publish`,
      pin({ expected_current_version_id: v2, expected_workflow_revision: 5 }),
    );
    assert.equal(workflow.status, 409);
    assert.equal((await refusal(workflow)).code, "workflow_conflict");
    const version = await s.call("POST", `/entries/${id}/publish`, pin({}));
    assert.equal(version.status, 409);
    assert.equal((await refusal(version)).code, "version_conflict");
    const noPublish = await t.credential(["content:write"]);
    const scope = await s.call(
      "POST",
      `/entries/${id}/publish`,
      pin({ expected_current_version_id: v2 }),
      { secret: noPublish.secret },
    );
    assert.equal(scope.status, 403);
    assert.equal((await refusal(scope)).code, "missing_permission");
    const published = await s.json(
      await s.call(
        "POST",
        `/entries/${id}/publish`,
        pin({ expected_current_version_id: v2 }),
      ),
    );
    assert.equal(published.revision, 1);
    const again = await s.call(
      "POST",
      `/entries/${id}/publish`,
      pin({ expected_current_version_id: v2, expected_workflow_revision: 1 }),
    );
    assert.equal(again.status, 409);
    assert.equal((await refusal(again)).code, "transition_unavailable");
    const wrongLanguage = await s.call("POST", `/entries/${id}/unpublish`, {
      locale: "de",
      expected_published_version_id: v2,
      expected_workflow_revision: 1,
    });
    assert.equal(wrongLanguage.status, 404);
    const stale = await s.call("POST", `/entries/${id}/unpublish`, {
      expected_published_version_id: v1,
      expected_workflow_revision: 1,
    });
    assert.equal(stale.status, 409);
    assert.equal((await refusal(stale)).code, "version_conflict");
    const read = await s.json(await s.call("GET", `/entries/${id}`));
    assert.equal(read.state, "published");
    assert.equal(read.workflow.revision, 1);
  }));

Deno.test("publish keys are kept 30 days and replayed; two concurrent publishes with one key publish once (MAPI-009)", () =>
  withManageApp(async (t) => {
    const s = await setup(t);
    const created = await create(s);
    const body = {
      expected_current_version_id: created.current_version_id,
      expected_workflow_revision: 0,
    };
    const answers = await Promise.all(
      [1, 2].map(() =>
        s.call("POST", `/entries/${created.id}/publish`, body, { key: "pub-1" })
      ),
    );
    const bodies = await Promise.all(answers.map((r) => r.json()));
    const outcomes = answers.map((r, i) =>
      r.status === 200 && bodies[i].replayed
        ? "replayed"
        : r.status === 200
        ? "ran"
        : bodies[i].error.code
    );
    assert.equal(
      outcomes.filter((o) => o === "ran").length,
      1,
      outcomes.join(),
    );
    for (const o of outcomes) {
      assert.ok(
        ["ran", "replayed", "idempotency_in_progress"].includes(o),
        o,
      );
    }
    const events = await t.services.db.selectFrom("workflow_events")
      .select("kind").where("group_id", "=", created.id)
      .where("kind", "=", "publish").execute();
    assert.equal(events.length, 1);
    t.clock.advance(29 * 24 * 3600 * 1000);
    const replay = await s.call(
      "POST",
      `/entries/${created.id}/publish`,
      body,
      { key: "pub-1" },
    );
    assert.equal(replay.status, 200);
    assert.equal((await replay.json()).replayed, true);
    const reused = await s.call("POST", `/entries/${created.id}/publish`, {
      ...body,
      locale: "en",
    }, { key: "pub-1" });
    assert.equal(reused.status, 409);
    assert.equal((await refusal(reused)).code, "idempotency_key_reused");
  }));

Deno.test("versions: list pages newest first, one version answers its values, restore writes a new version; unreadable fields are left out (ENT-005)", () =>
  withManageApp(async (t) => {
    const s = await setup(t);
    const created = await create(s, { title: "One", body: "Secret" });
    const id = created.id;
    const v1 = created.current_version_id;
    const edited = await s.json(
      await s.call("PUT", `/entries/${id}`, {
        locale: "en",
        expected_current_version_id: v1,
        fields: { title: "Two", body: "Secret" },
      }),
    );
    const page = await s.json(
      await s.call("GET", `/entries/${id}/versions?limit=1`),
    );
    assert.equal(page.data[0].number, 2);
    assert.equal(page.data[0].current, true);
    const rest = await s.json(
      await s.call(
        "GET",
        `/entries/${id}/versions?limit=1&cursor=${page.page.next_cursor}`,
      ),
    );
    assert.equal(rest.data[0].id, v1);
    assert.equal(rest.page.has_more, false);
    const one = await s.json(
      await s.call("GET", `/entries/${id}/versions/${v1}`),
    );
    assert.deepEqual(one.fields, { title: "One", body: "Secret" });
    assert.equal(one.created_by.kind, "credential");
    const missing = await s.call(
      "GET",
      `/entries/${id}/versions/${crypto.randomUUID()}`,
    );
    assert.equal(missing.status, 404);
    const stale = await s.call(
      "POST",
      `/entries/${id}/versions/${v1}/restore`,
      { expected_current_version_id: v1 },
    );
    assert.equal(stale.status, 409);
    assert.equal((await refusal(stale)).code, "version_conflict");
    const restored = await s.json(
      await s.call("POST", `/entries/${id}/versions/${v1}/restore`, {
        expected_current_version_id: edited.current_version_id,
      }),
    );
    assert.deepEqual(restored.policy_results, []);
    const read = await s.json(await s.call("GET", `/entries/${id}`));
    assert.equal(read.locales.en.fields.title, "One");
    // A role that cannot read `body`: reads and version payloads leave it out.
    await t.services.db.updateTable("roles").set({
      permissions: JSON.stringify({
        models: { "*": ["read", "create", "update"] },
        system: [],
        fields: { "*": { read: ["title"], write: ["title"] } },
      }),
    }).where(
      "id",
      "=",
      (await t.services.db.selectFrom("site_members")
        .select("role_id").where("user_id", "=", t.adminId)
        .where("site_id", "=", t.siteId).executeTakeFirstOrThrow()).role_id,
    )
      .execute();
    const narrowed = await s.json(await s.call("GET", `/entries/${id}`));
    assert.deepEqual(narrowed.locales.en.fields, { title: "One" });
    const version = await s.json(
      await s.call("GET", `/entries/${id}/versions/${v1}`),
    );
    assert.deepEqual(version.fields, { title: "One" });
    const list = await s.json(
      await s.call("GET", `/entries?model_id=${s.modelId}`),
    );
    assert.deepEqual(list.data[0].locales.en.fields, { title: "One" });
  }));

Deno.test("access and rules over HTTP: 409 single_entry_exists, 403 locale_denied, 403 for a model outside the credential, a held language answer proved after a lost answer", () =>
  withManageApp(async (t) => {
    const s = await setup(t);
    const home = await createModel(
      { db: t.services.db, clock: t.clock, siteId: t.siteId },
      {
        model: { name: "Home", slug: "home", kind: "single" },
        fields: [{ key: "title", label: "Title", type: "text" }],
      },
    );
    if (!home.ok) throw new Error(JSON.stringify(home));
    const first = await s.json(
      await s.call("POST", "/entries", {
        model_id: home.model.id,
        locale: "en",
        slug: "home",
        fields: { title: "Home" },
      }),
      201,
    );
    const second = await s.call("POST", "/entries", {
      model_id: home.model.id,
      locale: "en",
      slug: "home-2",
      fields: { title: "Again" },
    });
    assert.equal(second.status, 409);
    const single = await refusal(second);
    assert.equal(single.code, "single_entry_exists");
    assert.deepEqual(single.existing, { group_id: first.id });

    const { credential, secret } = await insertCredential(
      t.services.db,
      t.clock,
      {
        siteId: t.siteId,
        creatorId: t.adminId,
        name: "home only",
        scopes: ["content:read", "content:write"],
        models: [home.model.id],
      },
    );
    assert.ok(credential.id);
    const outside = await s.call(
      "GET",
      `/entries?model_id=${s.modelId}`,
      undefined,
      { secret },
    );
    assert.equal(outside.status, 403);
    assert.deepEqual((await refusal(outside)).missing, [`model ${s.modelId}`]);

    // Lost answer of a new language: the retry answers from what was written, replayed.
    const path = `/entries/${first.id}/locales`;
    const body = { locale: "de", slug: "start", fields: { title: "Start" } };
    const scope = ["manage", t.siteId, s.credentialId];
    const store = new IdempotencyStore(t.services.kv, { clock: t.clock });
    const claimed = await store.claim({ scope, key: "lang-lost" }, {
      method: "POST",
      path: `/api/manage/v1${path}`,
      bodyDigest: await sha256Hex(JSON.stringify(body)),
      retentionMs: IDEMPOTENCY_RETENTION_MS,
    });
    assert.ok(claimed.ok);
    const written = await saveEntry({
      db: t.services.db,
      clock: t.clock,
      siteId: t.siteId,
      actor: {
        kind: "credential",
        credentialId: s.credentialId,
        creatorId: t.adminId,
        scopes: ALL,
        models: null,
      },
      trace: { idempotency_key_digest: await keyDigestOf(scope, "lang-lost") },
    }, {
      group_id: first.id,
      locale: "de",
      slug: "start",
      fields: { title: "Start" },
      expected_current_version_id: null,
    });
    assert.ok(written.ok);
    t.clock.advance(60_000);
    const settled = await s.json(
      await s.call("POST", path, body, { key: "lang-lost" }),
      201,
    );
    assert.equal(settled.replayed, true);
    assert.equal(settled.locale, "de");
    assert.equal(
      settled.current_version_id,
      written.ok && written.instances[1].current_version_id,
    );

    // A role limited to publishing in German: publishing English is refused whole.
    const roleId = (await t.services.db.selectFrom("site_members")
      .select("role_id").where("user_id", "=", t.adminId)
      .where("site_id", "=", t.siteId).executeTakeFirstOrThrow()).role_id;
    await t.services.db.updateTable("roles").set({
      permissions: JSON.stringify({
        models: { "*": ["read", "create", "update", "publish", "unpublish"] },
        system: [],
        languages: { publish: ["de"] },
      }),
    }).where("id", "=", roleId).execute();
    const post = await create(s);
    const denied = await s.call("POST", `/entries/${post.id}/publish`, {
      locale: "en",
      expected_current_version_id: post.current_version_id,
      expected_workflow_revision: 0,
    });
    assert.equal(denied.status, 403);
    const locale = await refusal(denied);
    assert.equal(locale.code, "locale_denied");
    assert.deepEqual(locale.languages, ["en"]);
  }));
