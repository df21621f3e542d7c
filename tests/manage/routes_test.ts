// The first Management API routes end to end: /site, /languages and /settings/{key}.
import assert from "node:assert/strict";
import { SETTINGS_DEFAULTS } from "../../core/sites/settings_documents.ts";
import { refusal, withManageApp } from "./helpers.ts";

Deno.test("GET /site answers the credential's site with its languages, default first (MAPI-019)", () =>
  withManageApp(async (t) => {
    const response = await t.call("GET", "/site");
    assert.equal(response.status, 200);
    assert.match(
      response.headers.get("content-type") ?? "",
      /application\/json/,
    );
    assert.deepEqual(await response.json(), {
      id: t.siteId,
      slug: "manage",
      name: "Manage test",
      domain: "manage.test",
      languages: ["en", "de"],
      default_language: "en",
    });
    const wrong = await t.call("DELETE", "/site");
    assert.equal(wrong.status, 405);
    assert.equal(wrong.headers.get("allow"), "GET");
    const unknown = await t.call("GET", "/nothing-here");
    assert.equal(unknown.status, 404);
    assert.equal((await refusal(unknown)).code, "not_found");
    const withBody = await t.call("GET", "/site?x=1");
    assert.equal(withBody.status, 400);
    assert.equal((await refusal(withBody)).message, 'Unknown key "x" in query');
  }));

Deno.test("GET /languages and POST /languages: add a language, 409 locale_exists on a duplicate (MAPI-019)", () =>
  withManageApp(async (t) => {
    // MAPI-019: both reads need only content:read.
    const reader = await t.credential(["content:read"]);
    for (const path of ["/site", "/languages"]) {
      const read = await t.call("GET", path, { secret: reader.secret });
      assert.equal(read.status, 200, path);
      await read.body?.cancel();
    }
    const before = await (await t.call("GET", "/languages")).json();
    assert.deepEqual(before, {
      data: [
        { code: "en", is_default: true, position: 0 },
        { code: "de", is_default: false, position: 1 },
      ],
      default_language: "en",
    });
    const added = await t.call("POST", "/languages", {
      key: "a",
      body: { code: "de-AT" },
    });
    assert.equal(added.status, 201);
    assert.deepEqual(await added.json(), {
      code: "de-AT",
      is_default: false,
      position: 2,
    });
    const site = await (await t.call("GET", "/site")).json();
    assert.deepEqual(site.languages, ["en", "de", "de-AT"]);
    const duplicate = await t.call("POST", "/languages", {
      key: "b",
      body: { code: "de" },
    });
    assert.equal(duplicate.status, 409);
    const error = await refusal(duplicate);
    assert.equal(error.code, "locale_exists");
    assert.equal(error.language, "de");
    for (const code of ["DE", "english", "", "de_AT"]) {
      const bad = await t.call("POST", "/languages", {
        key: `c-${code}`,
        body: { code },
      });
      assert.equal(bad.status, 400, code);
      const problem = await refusal(bad);
      assert.equal(problem.code, "invalid_request");
      assert.deepEqual(
        (problem.issues as { path: string }[])[0].path,
        "body.code",
      );
    }
    const unknownKey = await t.call("POST", "/languages", {
      key: "d",
      body: { code: "fr", label: "French" },
    });
    assert.equal(unknownKey.status, 400);
    assert.equal(
      (await refusal(unknownKey)).message,
      'Unknown key "label" in body',
    );
    const notJson = await t.call("POST", "/languages", {
      key: "e",
      rawBody: "{code:",
    });
    assert.equal(notJson.status, 400);
    assert.equal((await refusal(notJson)).code, "invalid_request");
    const after = await (await t.call("GET", "/languages")).json();
    assert.equal(after.data.length, 3);
    const audit = await t.services.db.selectFrom("audit_entries")
      .select(["action", "actor"]).where("site_id", "=", t.siteId).execute();
    assert.equal(audit.length, 1);
    assert.equal(audit[0].action, "site.language.add");
    assert.equal((audit[0].actor as { kind: string }).kind, "credential");
  }));

Deno.test("GET /settings/{key} answers each of the six documents with its revision; an unknown key is 404", () =>
  withManageApp(async (t) => {
    for (const key of Object.keys(SETTINGS_DEFAULTS)) {
      const response = await t.call("GET", `/settings/${key}`);
      assert.equal(response.status, 200, key);
      assert.deepEqual(await response.json(), {
        key,
        document: SETTINGS_DEFAULTS[key as keyof typeof SETTINGS_DEFAULTS],
        revision: 0,
        updated_at: null,
      });
    }
    const unknown = await t.call("GET", "/settings/robots");
    assert.equal(unknown.status, 404);
    assert.equal((await refusal(unknown)).code, "not_found");
  }));

Deno.test("PUT /settings/{key} stores the document under expected_revision; stale is 409 conflict, invalid is 400 input_invalid, an unknown nested key 400 invalid_request (MAPI-003)", () =>
  withManageApp(async (t) => {
    const document = {
      policy: "fallback",
      chains: { de: ["en"] },
    };
    const put = await t.call("PUT", "/settings/language-fallback", {
      key: "p1",
      body: { expected_revision: 0, document },
    });
    assert.equal(put.status, 200);
    assert.deepEqual(await put.json(), {
      key: "language-fallback",
      document,
      revision: 1,
      updated_at: "2026-11-23T10:00:00.000Z",
    });
    const read = await (await t.call("GET", "/settings/language-fallback"))
      .json();
    assert.equal(read.revision, 1);
    assert.deepEqual(read.document, document);
    const stale = await t.call("PUT", "/settings/language-fallback", {
      key: "p2",
      body: {
        expected_revision: 0,
        document: { policy: "strict", chains: {} },
      },
    });
    assert.equal(stale.status, 409);
    const conflict = await refusal(stale);
    assert.equal(conflict.code, "conflict");
    assert.equal(conflict.current_revision, 1);
    const invalid = await t.call("PUT", "/settings/language-fallback", {
      key: "p3",
      body: {
        expected_revision: 1,
        document: { policy: "fallback", chains: { fr: ["en"] } },
      },
    });
    assert.equal(invalid.status, 400);
    const problems = await refusal(invalid);
    assert.equal(problems.code, "input_invalid");
    assert.deepEqual(problems.problems, [{
      path: "chains.fr",
      message: 'Unknown language "fr"',
    }]);
    const extra = await t.call("PUT", "/settings/editorial", {
      key: "p4",
      body: {
        expected_revision: 0,
        document: {
          review_required: true,
          version_retention_days: null,
          colour: 1,
        },
      },
    });
    // MAPI-003: an unknown key inside the document is invalid_request naming it.
    assert.equal(extra.status, 400);
    const unknown = await refusal(extra);
    assert.equal(unknown.code, "invalid_request");
    assert.deepEqual(unknown.issues, [{
      path: "body.document.colour",
      message: "unknown key",
    }]);
    const nestedExtra = await t.call("PUT", "/settings/seo", {
      key: "p4b",
      body: {
        expected_revision: 0,
        document: {
          ...SETTINGS_DEFAULTS.seo,
          robots: { index: true, extra: "", colour: 1 },
        },
      },
    });
    assert.equal(nestedExtra.status, 400);
    assert.deepEqual((await refusal(nestedExtra)).issues, [{
      path: "body.document.robots.colour",
      message: "unknown key",
    }]);
    const noPin = await t.call("PUT", "/settings/editorial", {
      key: "p5",
      body: { document: SETTINGS_DEFAULTS.editorial },
    });
    assert.equal(noPin.status, 400);
    assert.equal((await refusal(noPin)).code, "invalid_request");
    const noKey = await t.call("PUT", "/settings/editorial", {
      body: { expected_revision: 0, document: SETTINGS_DEFAULTS.editorial },
    });
    assert.equal(noKey.status, 400);
    assert.match((await refusal(noKey)).message, /Idempotency-Key/);
    // Nothing changed after the refusals.
    const after = await (await t.call("GET", "/settings/language-fallback"))
      .json();
    assert.equal(after.revision, 1);
    assert.equal(
      (await (await t.call("GET", "/settings/editorial")).json()).revision,
      0,
    );
  }));
