// Idempotency-Key over HTTP (spec 2, 4.1 items 3 and 4, and 4.3): shape, replay, reuse, concurrency, freeing, settlement, retention.
import assert from "node:assert/strict";
import { Hono } from "hono";
import { insertMember, insertRole } from "../../core/access/_testing.ts";
import { createManagementApi } from "../../core/manage/api.ts";
import { HANDLERS } from "../../core/manage/handlers/mod.ts";
import { keyDigestOf } from "../../core/manage/idempotency.ts";
import { sha256Hex } from "../../core/kv/digest.ts";
import {
  IDEMPOTENCY_RETENTION_MS,
  IdempotencyStore,
} from "../../core/kv/mod.ts";
import { addSiteLanguage } from "../../core/sites/languages.ts";
import { putSettings } from "../../core/sites/settings.ts";
import type { AppEnv } from "../../core/web/env.ts";
import { BASE, type ManageFixture, refusal, withManageApp } from "./helpers.ts";
import { postsDefinition } from "./model_fixtures.ts";

async function codes(t: ManageFixture): Promise<string[]> {
  const rows = await t.services.db.selectFrom("site_languages").select("code")
    .where("site_id", "=", t.siteId).orderBy("position").execute();
  return rows.map((r) => r.code);
}

/** Claims a key the way the API would for `POST /languages` with `body`, as if a request then died. */
async function strandClaim(
  t: ManageFixture,
  key: string,
  request: { method: string; path: string; body: unknown },
  credentialId = t.credentialId,
) {
  const store = new IdempotencyStore(t.services.kv, { clock: t.clock });
  const scope = ["manage", t.siteId, credentialId];
  const claimed = await store.claim({ scope, key }, {
    method: request.method,
    path: `/api/manage/v1${request.path}`,
    bodyDigest: await sha256Hex(JSON.stringify(request.body)),
    retentionMs: IDEMPOTENCY_RETENTION_MS,
  });
  assert.ok(claimed.ok && !claimed.replayed);
  return { keyDigest: await keyDigestOf(scope, key) };
}

Deno.test("Idempotency-Key: required on writes, 1 to 128 visible ASCII characters (MAPI-005)", () =>
  withManageApp(async (t) => {
    const missing = await t.call("POST", "/languages", {
      body: { code: "fr" },
    });
    assert.equal(missing.status, 400);
    const error = await refusal(missing);
    assert.equal(error.code, "invalid_request");
    assert.match(error.message, /Idempotency-Key/);
    for (const key of ["a".repeat(129), "has space", "tab\tkey", "é"]) {
      const response = await t.call("POST", "/languages", {
        key,
        body: { code: "fr" },
      }).catch(() => null);
      if (response === null) continue; // Headers() itself refuses some bytes.
      assert.equal(response.status, 400, JSON.stringify(key));
      assert.equal((await refusal(response)).code, "invalid_request");
    }
    assert.deepEqual(await codes(t), ["en", "de"]);
    const longest = "!~".repeat(64);
    const ok = await t.call("POST", "/languages", {
      key: longest,
      body: { code: "fr" },
    });
    assert.equal(ok.status, 201);
    const one = await t.call("POST", "/languages", {
      key: "x",
      body: { code: "it" },
    });
    assert.equal(one.status, 201);
    // GET routes take no key and ignore one.
    assert.equal(
      (await t.call("GET", "/languages", { key: "any" })).status,
      200,
    );
  }));

Deno.test("a retry with the same key and body answers the exact first answer with replayed: true (MAPI-007, MAPI-008)", () =>
  withManageApp(async (t) => {
    const first = await t.call("POST", "/languages", {
      key: "add-fr",
      body: { code: "fr" },
    });
    assert.equal(first.status, 201);
    const firstBody = await first.json();
    assert.deepEqual(firstBody, { code: "fr", is_default: false, position: 2 });
    const again = await t.call("POST", "/languages", {
      key: "add-fr",
      body: { code: "fr" },
    });
    assert.equal(again.status, 201);
    assert.equal(again.headers.get("idempotent-replayed"), "true");
    assert.deepEqual(await again.json(), { ...firstBody, replayed: true });
    assert.deepEqual(await codes(t), ["en", "de", "fr"]);
    // Same key, different body: 409 idempotency_key_reused, nothing runs.
    const reused = await t.call("POST", "/languages", {
      key: "add-fr",
      body: { code: "it" },
    });
    assert.equal(reused.status, 409);
    assert.equal((await refusal(reused)).code, "idempotency_key_reused");
    // Same key on another route is another request too.
    const elsewhere = await t.call("PUT", "/settings/editorial", {
      key: "add-fr",
      body: {
        expected_revision: 0,
        document: { version_retention_days: null, review_required: true },
      },
    });
    assert.equal(elsewhere.status, 409);
    assert.equal((await refusal(elsewhere)).code, "idempotency_key_reused");
    assert.deepEqual(await codes(t), ["en", "de", "fr"]);
    // Keys belong to a credential: another credential's same key is a new request.
    const other = await t.credential(["settings:write"]);
    const theirs = await t.call("POST", "/languages", {
      key: "add-fr",
      body: { code: "it" },
      secret: other.secret,
    });
    assert.equal(theirs.status, 201);
  }));

Deno.test("a refused command frees its key: a retry with the same key is evaluated again (MAPI-012)", () =>
  withManageApp(async (t) => {
    const roleId = await insertRole(t.services.db, t.siteId, {
      models: {},
      system: [],
    }, t.clock);
    const person = await insertMember(t.services.db, t.siteId, {
      roleId,
      clock: t.clock,
    });
    const cred = await t.credential(["settings:write"], { creatorId: person });
    const request = { key: "k", body: { code: "fr" }, secret: cred.secret };
    const refused = await t.call("POST", "/languages", request);
    assert.equal(refused.status, 403);
    assert.equal((await refusal(refused)).code, "missing_permission");
    await t.services.db.updateTable("roles")
      .set({
        permissions: JSON.stringify({ models: {}, system: ["site:settings"] }),
      })
      .where("id", "=", roleId).execute();
    const retried = await t.call("POST", "/languages", request);
    assert.equal(retried.status, 201);
    assert.equal((await retried.json()).replayed, undefined);
    // A domain refusal frees the key as well.
    const duplicate = await t.call("POST", "/languages", {
      key: "dup",
      body: { code: "fr" },
    });
    assert.equal(duplicate.status, 409);
    assert.equal((await refusal(duplicate)).code, "locale_exists");
    const dupAgain = await t.call("POST", "/languages", {
      key: "dup",
      body: { code: "fr" },
    });
    assert.equal(dupAgain.status, 409);
    assert.equal((await refusal(dupAgain)).code, "locale_exists");
    assert.deepEqual(await codes(t), ["en", "de", "fr"]);
  }));

Deno.test("two concurrent requests with one key: exactly one runs, the other is 409 idempotency_in_progress with Retry-After (MAPI-011)", () =>
  withManageApp(async (t) => {
    let runs = 0;
    let entered!: () => void;
    const inside = new Promise<void>((resolve) => entered = resolve);
    let release!: () => void;
    const gate = new Promise<void>((resolve) => release = resolve);
    const held = new Hono<AppEnv>().route(
      "/api/manage/v1",
      createManagementApi(t.services, {
        handlers: {
          ...HANDLERS,
          addLanguage: {
            ...HANDLERS.addLanguage,
            async run(ctx, input) {
              runs++;
              entered();
              await gate;
              return await HANDLERS.addLanguage.run(ctx, input);
            },
          },
        },
      }),
    );
    const send = () =>
      held.request(`${BASE}/languages`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${t.secret}`,
          "idempotency-key": "same",
          "content-type": "application/json",
        },
        body: JSON.stringify({ code: "fr" }),
      });
    const first = send();
    await inside;
    const second = await send();
    assert.equal(second.status, 409);
    assert.equal(second.headers.get("retry-after"), "5");
    const error = await refusal(second);
    assert.equal(error.code, "idempotency_in_progress");
    release();
    assert.equal((await first).status, 201);
    const third = await send();
    assert.equal(third.status, 201);
    assert.equal((await third.json()).replayed, true);
    assert.equal(runs, 1);
    assert.deepEqual(await codes(t), ["en", "de", "fr"]);
  }));

Deno.test("two truly concurrent identical requests through the real app: one language is added, once (MAPI-011)", () =>
  withManageApp(async (t) => {
    const answers = await Promise.all(
      [1, 2].map(() =>
        t.call("POST", "/languages", { key: "race", body: { code: "fr" } })
      ),
    );
    const bodies = await Promise.all(answers.map((r) => r.json()));
    const outcomes = answers.map((r, i) =>
      r.status === 201 && bodies[i].replayed
        ? "replayed"
        : r.status === 201
        ? "ran"
        : bodies[i].error.code
    ).sort();
    assert.equal(
      outcomes.filter((o) => o === "ran").length,
      1,
      outcomes.join(),
    );
    assert.ok(
      ["idempotency_in_progress", "replayed"].includes(
        outcomes.find((o) => o !== "ran")!,
      ),
    );
    assert.deepEqual(await codes(t), ["en", "de", "fr"]);
  }));

Deno.test("a lost answer (add language, one batch): in progress within the lease, then run again when nothing was written (MAPI-013)", () =>
  withManageApp(async (t) => {
    const body = { code: "fr" };
    await strandClaim(t, "lost", { method: "POST", path: "/languages", body });
    const early = await t.call("POST", "/languages", { key: "lost", body });
    assert.equal(early.status, 409);
    assert.equal(early.headers.get("retry-after"), "5");
    assert.equal((await refusal(early)).code, "idempotency_in_progress");
    assert.deepEqual(await codes(t), ["en", "de"]);
    t.clock.advance(60_000);
    const settled = await t.call("POST", "/languages", { key: "lost", body });
    assert.equal(settled.status, 201);
    assert.deepEqual(await settled.json(), {
      code: "fr",
      is_default: false,
      position: 2,
    });
    assert.deepEqual(await codes(t), ["en", "de", "fr"]);
    const replay = await t.call("POST", "/languages", { key: "lost", body });
    assert.equal((await replay.json()).replayed, true);
  }));

Deno.test("a lost answer (add language, one batch): when only the answer was lost, the retry answers from what was written, replayed (MAPI-013)", () =>
  withManageApp(async (t) => {
    const body = { code: "fr" };
    const { keyDigest } = await strandClaim(t, "lost", {
      method: "POST",
      path: "/languages",
      body,
    });
    // The first request wrote its effect and its record, then died before answering.
    const written = await addSiteLanguage({
      db: t.services.db,
      clock: t.clock,
      siteId: t.siteId,
      actor: {
        kind: "credential",
        credentialId: t.credentialId,
        creatorId: t.adminId,
        scopes: ["settings:write"],
        models: null,
      },
    }, { code: "fr", keyDigest });
    assert.ok(written.ok);
    t.clock.advance(60_000);
    const settled = await t.call("POST", "/languages", { key: "lost", body });
    assert.equal(settled.status, 201);
    assert.deepEqual(await settled.json(), {
      code: "fr",
      is_default: false,
      position: 2,
      replayed: true,
    });
    assert.deepEqual(await codes(t), ["en", "de", "fr"]);
    // The settled answer is kept: later retries replay it.
    const again = await t.call("POST", "/languages", { key: "lost", body });
    assert.equal((await again.json()).replayed, true);
  }));

Deno.test("a lost answer (settings, own record): the retry runs again, so a written first attempt meets its revision pin (MAPI-015)", () =>
  withManageApp(async (t) => {
    const body = {
      expected_revision: 0,
      document: { version_retention_days: 30, review_required: false },
    };
    await strandClaim(t, "s1", {
      method: "PUT",
      path: "/settings/editorial",
      body,
    });
    t.clock.advance(60_000);
    const rerun = await t.call("PUT", "/settings/editorial", {
      key: "s1",
      body,
    });
    assert.equal(rerun.status, 200);
    assert.equal((await rerun.json()).revision, 1);
    // The first attempt of s2 wrote, then lost its answer: running again meets the pin.
    await strandClaim(t, "s2", {
      method: "PUT",
      path: "/settings/editorial",
      body: { ...body, expected_revision: 1 },
    });
    await putSettings(
      {
        db: t.services.db,
        clock: t.clock,
        siteId: t.siteId,
        personId: t.adminId,
      },
      "editorial",
      { document: body.document, expectedRevision: 1 },
    );
    t.clock.advance(60_000);
    const again = await t.call("PUT", "/settings/editorial", {
      key: "s2",
      body: { ...body, expected_revision: 1 },
    });
    assert.equal(again.status, 409);
    const error = await refusal(again);
    assert.equal(error.code, "conflict");
    assert.equal(error.current_revision, 2);
  }));

Deno.test("key retention: a 24-hour key replays until its last millisecond, then the request is evaluated anew (MAPI-009)", () =>
  withManageApp(async (t) => {
    const body = { code: "fr" };
    assert.equal(
      (await t.call("POST", "/languages", { key: "day", body })).status,
      201,
    );
    t.clock.advance(IDEMPOTENCY_RETENTION_MS - 1);
    const replay = await t.call("POST", "/languages", { key: "day", body });
    assert.equal(replay.status, 201);
    assert.equal((await replay.json()).replayed, true);
    t.clock.advance(1);
    const fresh = await t.call("POST", "/languages", { key: "day", body });
    assert.equal(fresh.status, 409);
    assert.equal((await refusal(fresh)).code, "locale_exists");
  }));

Deno.test("a stranded key under which nothing was recorded runs again: a model another request removed answers 404 not_found (MAPI-014)", () =>
  withManageApp(async (t) => {
    const cred = await t.credential(["schema:write"]);
    const created = await t.call("POST", "/models", {
      secret: cred.secret,
      key: "create",
      body: { definition: postsDefinition() },
    });
    assert.equal(created.status, 201);
    const { model_id } = await created.json();
    const path = `/models/${model_id}/remove`;
    const body = { expected_revision: 1, confirm: model_id };
    await strandClaim(t, "lost", { method: "POST", path, body }, cred.id);
    // Another request removed the model; the stranded key's own attempt wrote nothing.
    const first = await t.call("POST", path, {
      secret: cred.secret,
      key: "first-attempt",
      body,
    });
    assert.equal(first.status, 200);
    t.clock.advance(60_000);
    const retried = await t.call("POST", path, {
      secret: cred.secret,
      key: "lost",
      body,
    });
    assert.equal(retried.status, 404);
    assert.equal((await refusal(retried)).code, "not_found");
    assert.equal((await t.call("GET", `/models/${model_id}`)).status, 404);
  }));
