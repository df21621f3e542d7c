// Long on purpose: the workflow routes' cases share one world and its held-answer helpers.
// The entry workflow routes over HTTP: moves, assignment, Trash and purge with held answers, relations, proposals, working drafts.
import assert from "node:assert/strict";
import { insertMember, insertRole } from "../../core/access/_testing.ts";
import type { Scope } from "../../core/access/scopes.ts";
import { trashEntry } from "../../core/entries/mod.ts";
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

async function model(t: ManageFixture, slug: string, fields: unknown[]) {
  const made = await createModel(
    { db: t.services.db, clock: t.clock, siteId: t.siteId },
    { model: { name: slug, slug }, fields },
  );
  if (!made.ok) throw new Error(JSON.stringify(made));
  return made.model.id;
}

async function setup(t: ManageFixture, scopes: Scope[] = ALL) {
  const tags = await model(t, "tags", [{
    key: "name",
    label: "Name",
    type: "text",
  }]);
  const posts = await model(t, "posts", [
    { key: "title", label: "Title", type: "text" },
    {
      key: "tags",
      label: "Tags",
      type: "relation",
      config: { targets: [tags], cardinality: "many-to-many" },
    },
    {
      key: "feature",
      label: "Feature",
      type: "relation",
      config: { targets: [tags], cardinality: "one-to-one" },
    },
  ]);
  const credential = await t.credential(scopes);
  let n = 0;
  const call = (
    method: string,
    path: string,
    body?: unknown,
    options: { key?: string; secret?: string } = {},
  ) =>
    t.call(method, path, {
      body,
      secret: options.secret ?? credential.secret,
      key: method === "GET" || path.includes("/editing")
        ? undefined
        : options.key ?? `w-${++n}`,
    });
  const json = async (r: Response, status = 200) => {
    const body = await r.json();
    assert.equal(r.status, status, JSON.stringify(body));
    return body;
  };
  const create = async (
    modelId: string,
    fields: Record<string, unknown>,
    slug: string,
  ) =>
    await json(
      await call("POST", "/entries", {
        model_id: modelId,
        locale: "en",
        slug,
        fields,
      }),
      201,
    );
  return { tags, posts, credential, call, json, create };
}

Deno.test("POST /entries/{id}/transition: review moves pinned to the workflow revision, kept 30 days; 409 workflow_conflict and transition_unavailable (ENT-010, MAPI-009)", () =>
  withManageApp(async (t) => {
    const s = await setup(t);
    const post = await s.create(s.posts, { title: "A" }, "a");
    const submitted = await s.json(
      await s.call("POST", `/entries/${post.id}/transition`, {
        move: "submit",
        expected_workflow_revision: 0,
      }, {
        key: "move-1",
      }),
    );
    assert.equal(submitted.review_stage, "in_review");
    assert.equal(submitted.revision, 1);
    assert.deepEqual(submitted.policy_results, []);
    const stale = await s.call("POST", `/entries/${post.id}/transition`, {
      move: "approve",
      expected_workflow_revision: 0,
    });
    assert.equal(stale.status, 409);
    assert.equal((await refusal(stale)).code, "workflow_conflict");
    const unavailable = await s.call("POST", `/entries/${post.id}/transition`, {
      move: "submit",
      expected_workflow_revision: 1,
    });
    assert.equal(unavailable.status, 409);
    assert.equal((await refusal(unavailable)).code, "transition_unavailable");
    const approved = await s.json(
      await s.call("POST", `/entries/${post.id}/transition`, {
        move: "approve",
        expected_workflow_revision: 1,
      }),
    );
    assert.equal(approved.review_stage, "approved");
    const read = await s.json(await s.call("GET", `/entries/${post.id}`));
    assert.equal(read.review_stage, "approved");
    t.clock.advance(29 * 24 * 3600 * 1000);
    const replay = await s.call("POST", `/entries/${post.id}/transition`, {
      move: "submit",
      expected_workflow_revision: 0,
    }, { key: "move-1" });
    assert.equal(replay.status, 200);
    const replayed = await replay.json();
    assert.equal(replayed.replayed, true);
    assert.equal(replayed.review_stage, "in_review");
    const bad = await s.call("POST", `/entries/${post.id}/transition`, {
      move: "publish",
      expected_workflow_revision: 2,
    });
    assert.equal(bad.status, 400);
    const noScope = await t.credential(["content:write"]);
    const denied = await s.call("POST", `/entries/${post.id}/transition`, {
      move: "withdraw",
      expected_workflow_revision: 2,
    }, { secret: noScope.secret });
    assert.equal(denied.status, 403);
  }));

Deno.test("assignees and assignment: candidates listed, 422 assignee_not_eligible, null clears, 403 without workflow:assign (ENT-011, MCR-019)", () =>
  withManageApp(async (t) => {
    const s = await setup(t);
    const post = await s.create(s.posts, { title: "A" }, "a");
    const listed = await s.json(
      await s.call("GET", `/entries/${post.id}/assignees`),
    );
    assert.deepEqual(listed.data.map((p: { user_id: string }) => p.user_id), [
      t.adminId,
    ]);
    assert.equal(listed.assignee_id, null);
    const assigned = await s.json(
      await s.call("PUT", `/entries/${post.id}/assignment`, {
        assignee_id: t.adminId,
      }, { key: "assign-1" }),
    );
    assert.deepEqual(assigned, {
      id: post.id,
      model_id: s.posts,
      assignee_id: t.adminId,
    });
    const stranger = await s.call("PUT", `/entries/${post.id}/assignment`, {
      assignee_id: crypto.randomUUID(),
    });
    assert.equal(stranger.status, 422);
    assert.equal((await refusal(stranger)).code, "assignee_not_eligible");
    assert.equal(
      (await s.json(await s.call("GET", `/entries/${post.id}`))).assignee_id,
      t.adminId,
    );
    const cleared = await s.json(
      await s.call("PUT", `/entries/${post.id}/assignment`, {
        assignee_id: null,
      }),
    );
    assert.equal(cleared.assignee_id, null);
    // MAPI-010: the assignment key holds its exact first answer; the replay assigns nobody again.
    const assignReplay = await s.json(
      await s.call("PUT", `/entries/${post.id}/assignment`, {
        assignee_id: t.adminId,
      }, { key: "assign-1" }),
    );
    assert.deepEqual(assignReplay, { ...assigned, replayed: true });
    assert.equal(
      (await s.json(await s.call("GET", `/entries/${post.id}`))).assignee_id,
      null,
    );
    const readOnly = await t.credential(["content:read"]);
    const denied = await s.call(
      "GET",
      `/entries/${post.id}/assignees`,
      undefined,
      { secret: readOnly.secret },
    );
    assert.equal(denied.status, 403);
    assert.deepEqual((await refusal(denied)).missing, [
      "scope workflow:assign",
    ]);
    const absent = await s.call(
      "GET",
      `/entries/${crypto.randomUUID()}/assignees`,
    );
    assert.equal(absent.status, 404);
  }));

Deno.test("Trash: trash, GET /trash and /entries/{id}/trash, restore, purge; refusals 409 and 403; answers held and replayed (ENT-013, MAPI-010)", () =>
  withManageApp(async (t) => {
    const s = await setup(t);
    const post = await s.create(s.posts, { title: "A" }, "a");
    const other = await s.create(s.posts, { title: "B" }, "b");
    const notTrashed = await s.call(
      "POST",
      `/entries/${post.id}/trash/purge`,
      {},
    );
    assert.equal(notTrashed.status, 409);
    assert.equal((await refusal(notTrashed)).code, "transition_unavailable");
    const stale = await s.call("POST", `/entries/${post.id}/trash`, {
      expected_workflow_revision: 3,
    });
    assert.equal(stale.status, 409);
    assert.equal((await refusal(stale)).code, "workflow_conflict");
    const trashed = await s.json(
      await s.call("POST", `/entries/${post.id}/trash`, {
        expected_workflow_revision: 0,
      }, { key: "trash-1" }),
    );
    assert.deepEqual(trashed, {
      id: post.id,
      model_id: s.posts,
      trashed: true,
      revision: 1,
      policy_results: [],
    });
    const replay = await s.json(
      await s.call("POST", `/entries/${post.id}/trash`, {
        expected_workflow_revision: 0,
      }, { key: "trash-1" }),
    );
    // MAPI-010: the trash key holds the exact first answer.
    assert.deepEqual(replay, { ...trashed, replayed: true });
    const state = await s.json(
      await s.call("GET", `/entries/${post.id}/trash`),
    );
    assert.equal(state.trashed, true);
    assert.deepEqual(state.actions, ["restore", "purge"]);
    const inTrash = await s.json(
      await s.call("GET", `/trash?model_id=${s.posts}`),
    );
    assert.deepEqual(inTrash.data.map((e: { id: string }) => e.id), [post.id]);
    assert.equal(inTrash.data[0].state, "trashed");
    const live = await s.json(
      await s.call("GET", `/entries?model_id=${s.posts}`),
    );
    assert.deepEqual(live.data.map((e: { id: string }) => e.id), [other.id]);
    const again = await s.call("POST", `/entries/${post.id}/trash`, {});
    assert.equal(again.status, 409);
    assert.equal((await refusal(again)).code, "transition_unavailable");
    const editTrashed = await s.call("PUT", `/entries/${post.id}`, {
      locale: "en",
      expected_current_version_id: post.current_version_id,
      fields: { title: "X" },
    });
    assert.equal(editTrashed.status, 409);
    assert.equal((await refusal(editTrashed)).code, "transition_unavailable");
    const restored = await s.json(
      await s.call("POST", `/entries/${post.id}/trash/restore`, {}, {
        key: "restore-1",
      }),
    );
    assert.equal(restored.trashed, false);
    assert.equal(restored.revision, 2);
    await s.json(await s.call("POST", `/entries/${post.id}/trash`, {}));
    // MAPI-010: a restore key holds its exact first answer, even once the entry is back in Trash.
    const restoreReplay = await s.json(
      await s.call("POST", `/entries/${post.id}/trash/restore`, {}, {
        key: "restore-1",
      }),
    );
    assert.deepEqual(restoreReplay, { ...restored, replayed: true });
    assert.equal(
      (await s.json(await s.call("GET", `/entries/${post.id}/trash`))).trashed,
      true,
    );
    const noPurge = await t.credential(["content:trash"]);
    const denied = await s.call("POST", `/entries/${post.id}/trash/purge`, {}, {
      secret: noPurge.secret,
    });
    assert.equal(denied.status, 403);
    assert.deepEqual((await refusal(denied)).missing, ["scope content:purge"]);
    const purged = await s.json(
      await s.call("POST", `/entries/${post.id}/trash/purge`, {}, {
        key: "purge-1",
      }),
    );
    assert.deepEqual(purged, {
      id: post.id,
      model_id: s.posts,
      purged: { languages: ["en"], versions: 1, links: 0 },
    });
    const purgeReplay = await s.json(
      await s.call("POST", `/entries/${post.id}/trash/purge`, {}, {
        key: "purge-1",
      }),
    );
    // MAPI-010: the purge key holds the exact first answer.
    assert.deepEqual(purgeReplay, { ...purged, replayed: true });
    const gone = await s.call("GET", `/entries/${post.id}`);
    assert.equal(gone.status, 404);
  }));

async function strand(
  t: ManageFixture,
  credentialId: string,
  key: string,
  path: string,
  body: unknown,
) {
  const store = new IdempotencyStore(t.services.kv, { clock: t.clock });
  const scope = ["manage", t.siteId, credentialId];
  const claimed = await store.claim({ scope, key }, {
    method: "POST",
    path: `/api/manage/v1${path}`,
    bodyDigest: await sha256Hex(JSON.stringify(body)),
    retentionMs: IDEMPOTENCY_RETENTION_MS,
  });
  assert.ok(claimed.ok && !claimed.replayed);
  return await keyDigestOf(scope, key);
}

Deno.test("a lost Trash answer is settled from what was written: replayed when the trash landed, run again when nothing did", () =>
  withManageApp(async (t) => {
    const s = await setup(t);
    const post = await s.create(s.posts, { title: "A" }, "a");
    const path = `/entries/${post.id}/trash`;
    const body = { expected_workflow_revision: 0 };
    const digest = await strand(t, s.credential.id, "lost", path, body);
    // The first request wrote the trash and its audit entry, then died before answering.
    const written = await trashEntry({
      db: t.services.db,
      clock: t.clock,
      siteId: t.siteId,
      actor: {
        kind: "credential",
        credentialId: s.credential.id,
        creatorId: t.adminId,
        scopes: ALL,
        models: null,
      },
      trace: { idempotency_key_digest: digest },
    }, { group_id: post.id, expected_workflow_revision: 0 });
    assert.ok(written.ok);
    const early = await s.call("POST", path, body, { key: "lost" });
    assert.equal(early.status, 409);
    assert.equal((await refusal(early)).code, "idempotency_in_progress");
    t.clock.advance(60_000);
    const settled = await s.json(
      await s.call("POST", path, body, { key: "lost" }),
    );
    assert.deepEqual(settled, {
      id: post.id,
      model_id: s.posts,
      trashed: true,
      revision: 1,
      policy_results: [],
      replayed: true,
    });
    // Nothing written under a stranded key: the retry runs the command.
    const other = await s.create(s.posts, { title: "B" }, "b");
    const otherPath = `/entries/${other.id}/trash`;
    await strand(t, s.credential.id, "lost-2", otherPath, {});
    t.clock.advance(60_000);
    const ran = await s.json(
      await s.call("POST", otherPath, {}, { key: "lost-2" }),
    );
    assert.equal(ran.trashed, true);
    assert.equal(ran.replayed, undefined);
  }));

Deno.test("relate, related-from and dependents: write forms save a version; 422 relation refusals, 409 relation_target_taken, unknown field", () =>
  withManageApp(async (t) => {
    const s = await setup(t);
    const t1 = await s.create(s.tags, { name: "one" }, "one");
    const t2 = await s.create(s.tags, { name: "two" }, "two");
    const post = await s.create(s.posts, { title: "A" }, "a");
    const related = await s.json(
      await s.call("POST", "/entries/relate", {
        id: post.id,
        locale: "en",
        field: "tags",
        expected_current_version_id: post.current_version_id,
        connect: [t1.id, t2.id],
      }),
    );
    assert.notEqual(related.current_version_id, post.current_version_id);
    const read = await s.json(await s.call("GET", `/entries/${post.id}`));
    assert.deepEqual(read.locales.en.fields.tags, [t1.id, t2.id]);
    assert.equal(read.locales.en.fields.title, "A");
    const from = await s.json(
      await s.call("GET", `/entries/${t1.id}/related-from`),
    );
    assert.deepEqual(from, {
      data: [{
        model_id: s.posts,
        field: "tags",
        locale: null,
        ids: [post.id],
      }],
      hidden: 0,
    });
    const dependents = await s.json(
      await s.call("GET", `/entries/${t2.id}/dependents`),
    );
    assert.deepEqual(dependents, {
      data: [{
        id: post.id,
        model_id: s.posts,
        trashed: false,
        fields: [{ key: "tags", locale: null }],
      }],
      hidden: 0,
    });
    const missing = await s.call("POST", "/entries/relate", {
      id: post.id,
      locale: "en",
      field: "tags",
      expected_current_version_id: related.current_version_id,
      connect: [crypto.randomUUID()],
    });
    assert.equal(missing.status, 422);
    assert.equal((await refusal(missing)).code, "relation_target_not_found");
    const twice = await s.call("POST", "/entries/relate", {
      id: post.id,
      locale: "en",
      field: "tags",
      expected_current_version_id: related.current_version_id,
      connect: [t1.id],
    });
    assert.equal(twice.status, 422);
    assert.equal((await refusal(twice)).code, "relation_duplicate_target");
    const featured = await s.json(
      await s.call("POST", "/entries/relate", {
        id: post.id,
        locale: "en",
        field: "feature",
        expected_current_version_id: related.current_version_id,
        set: [t1.id],
      }),
    );
    const notOrdered = await s.call("POST", "/entries/relate", {
      id: post.id,
      locale: "en",
      field: "feature",
      expected_current_version_id: featured.current_version_id,
      move: [{ id: t1.id, position: "start" }],
    });
    assert.equal(notOrdered.status, 422);
    assert.equal(
      (await refusal(notOrdered)).code,
      "relation_position_not_ordered",
    );
    const second = await s.create(s.posts, { title: "B" }, "b");
    const taken = await s.call("POST", "/entries/relate", {
      id: second.id,
      locale: "en",
      field: "feature",
      expected_current_version_id: second.current_version_id,
      set: [t1.id],
    });
    assert.equal(taken.status, 409);
    assert.equal((await refusal(taken)).code, "relation_target_taken");
    const notRelation = await s.call("POST", "/entries/relate", {
      id: post.id,
      locale: "en",
      field: "title",
      expected_current_version_id: featured.current_version_id,
      set: [],
    });
    assert.equal((await refusal(notRelation)).code, "field_not_found");
    const empty = await s.call("POST", "/entries/relate", {
      id: post.id,
      locale: "en",
      field: "tags",
      expected_current_version_id: featured.current_version_id,
    });
    assert.equal(empty.status, 400);
    const after = await s.json(await s.call("GET", `/entries/${post.id}`));
    assert.equal(after.current_version_id, featured.current_version_id);
  }));

Deno.test("proposals: 403 without content:propose, 409 version_conflict on a stale base, field refusals; listed with state filter", () =>
  withManageApp(async (t) => {
    const s = await setup(t);
    const tag = await s.create(s.tags, { name: "one" }, "one");
    const post = await s.create(s.posts, { title: "A" }, "a");
    const readOnly = await t.credential(["content:read"]);
    const denied = await s.call("POST", `/entries/${post.id}/proposals`, {
      base_version_id: post.current_version_id,
      fields: { title: "B" },
    }, { secret: readOnly.secret });
    assert.equal(denied.status, 403);
    assert.deepEqual((await refusal(denied)).missing, [
      "scope content:propose",
    ]);
    const unsupported = await s.call("POST", `/entries/${post.id}/proposals`, {
      base_version_id: post.current_version_id,
      fields: { tags: [tag.id] },
    });
    assert.equal(unsupported.status, 422);
    assert.equal(
      (await refusal(unsupported)).code,
      "proposal_field_unsupported",
    );
    const unknown = await s.call("POST", `/entries/${post.id}/proposals`, {
      base_version_id: post.current_version_id,
      fields: { nope: 1 },
    });
    assert.equal((await refusal(unknown)).code, "field_not_found");
    const edited = await s.json(
      await s.call("PUT", `/entries/${post.id}`, {
        locale: "en",
        expected_current_version_id: post.current_version_id,
        fields: { title: "A2" },
      }),
    );
    const stale = await s.call("POST", `/entries/${post.id}/proposals`, {
      base_version_id: post.current_version_id,
      fields: { title: "B" },
    });
    assert.equal(stale.status, 409);
    assert.equal((await refusal(stale)).code, "version_conflict");
    const made = await s.json(
      await s.call("POST", `/entries/${post.id}/proposals`, {
        base_version_id: edited.current_version_id,
        fields: { title: "B" },
      }),
      201,
    );
    const open = await s.json(
      await s.call("GET", `/entries/${post.id}/proposals?state=open`),
    );
    assert.deepEqual(open.data.map((p: { id: string }) => p.id), [made.id]);
    const applied = await s.json(
      await s.call("GET", `/entries/${post.id}/proposals?state=applied`),
    );
    assert.deepEqual(applied.data, []);
    const badState = await s.call(
      "GET",
      `/entries/${post.id}/proposals?state=stale`,
    );
    assert.equal(badState.status, 400);
  }));

Deno.test("editing: draft write and read without Idempotency-Key, 409 draft_conflict, 409 draft_held, takeover and discard (MAPI-006)", () =>
  withManageApp(async (t) => {
    const s = await setup(t);
    const post = await s.create(s.posts, { title: "A" }, "a");
    const base = `/entries/${post.id}/editing`;
    const empty = await s.json(await s.call("GET", `${base}?locale=en`));
    assert.deepEqual(empty, {
      id: post.id,
      locale: "en",
      kind: "draft",
      draft: null,
      held_by: null,
    });
    const first = await s.json(
      await s.call("PUT", `${base}/draft`, {
        locale: "en",
        fields: { title: "Work" },
        base_version_id: post.current_version_id,
        expected_revision: null,
      }),
    );
    assert.equal(first.draft.revision, 1);
    assert.equal(first.draft.holder.person_id, t.adminId);
    const conflict = await s.call("PUT", `${base}/draft`, {
      locale: "en",
      fields: { title: "Again" },
      base_version_id: post.current_version_id,
      expected_revision: null,
    });
    assert.equal(conflict.status, 409);
    assert.equal((await refusal(conflict)).code, "draft_conflict");
    const role = await t.services.db.selectFrom("site_members").select(
      "role_id",
    )
      .where("user_id", "=", t.adminId).where("site_id", "=", t.siteId)
      .executeTakeFirstOrThrow();
    const colleague = await insertMember(t.services.db, t.siteId, {
      roleId: role.role_id,
      clock: t.clock,
    });
    const theirs = await t.credential(ALL, { creatorId: colleague });
    const seen = await s.json(
      await s.call("GET", `${base}?locale=en`, undefined, {
        secret: theirs.secret,
      }),
    );
    assert.equal(seen.draft, null);
    assert.equal(seen.held_by.person_id, t.adminId);
    // ENT-017: `kind=holder` names the holder, the creator included, and never values.
    const mine = await s.json(
      await s.call("GET", `${base}?locale=en&kind=holder`),
    );
    assert.equal(mine.kind, "holder");
    assert.equal(mine.draft, null);
    assert.equal(mine.held_by.person_id, t.adminId);
    const ownDraft = await s.json(
      await s.call("GET", `${base}?locale=en&kind=draft`),
    );
    assert.deepEqual(ownDraft.draft.fields, { title: "Work" });
    const badKind = await s.call("GET", `${base}?locale=en&kind=page`);
    assert.equal(badKind.status, 400);
    assert.equal((await refusal(badKind)).code, "invalid_request");
    const held = await s.call(
      "POST",
      `${base}/draft/discard`,
      { locale: "en" },
      { secret: theirs.secret },
    );
    assert.equal(held.status, 409);
    assert.equal((await refusal(held)).code, "draft_held");
    const staleTakeover = await s.call("POST", `${base}/takeover`, {
      locale: "en",
      expected_revision: 5,
    }, {
      secret: theirs.secret,
    });
    assert.equal((await refusal(staleTakeover)).code, "draft_conflict");
    const taken = await s.json(
      await s.call("POST", `${base}/takeover`, {
        locale: "en",
        expected_revision: 1,
      }, { secret: theirs.secret }),
    );
    assert.equal(taken.draft.holder.person_id, colleague);
    assert.equal(taken.draft.taken_over_from.person_id, t.adminId);
    assert.deepEqual(taken.draft.fields, { title: "Work" });
    const discarded = await s.json(
      await s.call("POST", `${base}/draft/discard`, { locale: "en" }, {
        secret: theirs.secret,
      }),
    );
    assert.deepEqual(discarded, { discarded: true });
    const none = await s.call("POST", `${base}/takeover`, { locale: "en" });
    assert.equal(none.status, 404);
    const noLocale = await s.call("GET", base);
    assert.equal(noLocale.status, 400);
    const readOnly = await t.credential(["content:read"]);
    const denied = await s.call("PUT", `${base}/draft`, {
      locale: "en",
      fields: {},
      base_version_id: null,
      expected_revision: null,
    }, { secret: readOnly.secret });
    assert.equal(denied.status, 403);
  }));

Deno.test("workflow:move alone moves a draft through review and workflow:assign alone assigns (spec 2 part 5.1, MCR-017, MCR-018)", () =>
  withManageApp(async (t) => {
    const s = await setup(t);
    const post = await s.create(s.posts, { title: "A" }, "a");
    const mover = await t.credential(["workflow:move"]);
    const submitted = await s.json(
      await s.call("POST", `/entries/${post.id}/transition`, {
        move: "submit",
        expected_workflow_revision: 0,
      }, { secret: mover.secret }),
    );
    assert.equal(submitted.review_stage, "in_review");
    const approved = await s.json(
      await s.call("POST", `/entries/${post.id}/transition`, {
        move: "approve",
        expected_workflow_revision: 1,
      }, { secret: mover.secret }),
    );
    assert.equal(approved.review_stage, "approved");
    const assigner = await t.credential(["workflow:assign"]);
    const assigned = await s.call("PUT", `/entries/${post.id}/assignment`, {
      assignee_id: t.adminId,
    }, { secret: assigner.secret });
    assert.equal(assigned.status, 200, await assigned.clone().text());
  }));

Deno.test("workflow:assign acts only while its creator may update the model: a read-only creator is 403 and nothing is assigned (MCR-019)", () =>
  withManageApp(async (t) => {
    const s = await setup(t);
    const post = await s.create(s.posts, { title: "A" }, "a");
    const roleId = await insertRole(t.services.db, t.siteId, {
      models: { "*": ["read"] },
      system: [],
    }, t.clock);
    const person = await insertMember(t.services.db, t.siteId, {
      roleId,
      clock: t.clock,
    });
    const assigner = await t.credential(["workflow:assign"], {
      creatorId: person,
    });
    const listed = await s.call(
      "GET",
      `/entries/${post.id}/assignees`,
      undefined,
      { secret: assigner.secret },
    );
    assert.equal(listed.status, 403);
    assert.equal((await refusal(listed)).code, "missing_permission");
    const assigned = await s.call("PUT", `/entries/${post.id}/assignment`, {
      assignee_id: t.adminId,
    }, { secret: assigner.secret });
    assert.equal(assigned.status, 403);
    assert.equal((await refusal(assigned)).code, "missing_permission");
    assert.equal(
      (await s.json(await s.call("GET", `/entries/${post.id}`))).assignee_id,
      null,
    );
    // Given update, the same credential lists the candidates and assigns.
    await t.services.db.updateTable("roles").set({
      permissions: JSON.stringify({
        models: { "*": ["read", "update"] },
        system: [],
      }),
    }).where("id", "=", roleId).execute();
    const candidates = await s.json(
      await s.call("GET", `/entries/${post.id}/assignees`, undefined, {
        secret: assigner.secret,
      }),
    );
    assert.ok(
      candidates.data.some((p: { user_id: string }) => p.user_id === t.adminId),
    );
    const done = await s.json(
      await s.call("PUT", `/entries/${post.id}/assignment`, {
        assignee_id: t.adminId,
      }, { secret: assigner.secret }),
    );
    assert.equal(done.assignee_id, t.adminId);
  }));
