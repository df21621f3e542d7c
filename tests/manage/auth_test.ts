// Common rules of the Management API over HTTP: bearer credential, site from the credential, authority now, scopes.
import assert from "node:assert/strict";
import { refusal, withManageApp } from "./helpers.ts";
import { insertMember, insertRole } from "../../core/access/_testing.ts";

Deno.test("a missing, malformed, unknown or revoked credential is 401 unauthorized, one code, no secret echoed (MAPI-001)", () =>
  withManageApp(async (t) => {
    const unknown = `svm_${"A".repeat(43)}`;
    const cases: Record<string, string | undefined> = {
      missing: undefined,
      "wrong scheme": `Basic ${t.secret}`,
      "no token": "Bearer",
      "short token": `Bearer ${t.secret.slice(0, -1)}`,
      "two tokens": `Bearer ${t.secret} ${t.secret}`,
      unknown: `Bearer ${unknown}`,
    };
    for (const [name, header] of Object.entries(cases)) {
      const response = await t.call("GET", "/site", {
        secret: null,
        headers: header ? { authorization: header } : {},
      });
      assert.equal(response.status, 401, name);
      assert.equal(
        response.headers.get("www-authenticate"),
        'Bearer realm="manage"',
      );
      const text = await response.text();
      assert.equal(JSON.parse(text).error.code, "unauthorized", name);
      assert.ok(!text.includes("svm_A"), `${name}: no secret in the answer`);
    }
    // The same secret works until revoked, then fails on its next request.
    assert.equal((await t.call("GET", "/site")).status, 200);
    await t.services.db.updateTable("management_credentials")
      .set({ revoked_at: t.clock.now() }).where("id", "=", t.credentialId)
      .execute();
    const revoked = await t.call("GET", "/site");
    assert.equal(revoked.status, 401);
    assert.equal((await refusal(revoked)).code, "unauthorized");
    const logged = JSON.stringify(t.logs);
    assert.ok(!logged.includes(t.secret), "the secret is never logged");
    assert.ok(!logged.includes(unknown));
  }));

Deno.test("the site comes from the credential: X-Site-Id and site or database fields are 400 invalid_request (MAPI-002)", () =>
  withManageApp(async (t) => {
    const other = await t.credential(["content:read"]);
    for (
      const [name, options] of [
        ["X-Site-Id header", { headers: { "x-site-id": t.siteId } }],
        ["X-Database header", { headers: { "x-database": "main" } }],
      ] as const
    ) {
      const response = await t.call("GET", "/site", options);
      assert.equal(response.status, 400, name);
      const error = await refusal(response);
      assert.equal(error.code, "invalid_request");
      assert.match(error.message, /comes from the credential/);
    }
    for (const field of ["site_id", "database"]) {
      const query = await t.call("GET", `/languages?${field}=${t.siteId}`);
      assert.equal(query.status, 400);
      const error = await refusal(query);
      assert.equal(error.code, "invalid_request");
      assert.match(error.message, new RegExp(`"${field}"`));
      const body = await t.call("POST", "/languages", {
        key: `k-${field}`,
        body: { code: "fr", [field]: t.siteId },
      });
      assert.equal(body.status, 400);
      assert.match((await refusal(body)).message, new RegExp(`"${field}"`));
    }
    // Nothing was added by the refused bodies.
    const languages = await (await t.call("GET", "/languages")).json();
    assert.deepEqual(languages.data.map((l: { code: string }) => l.code), [
      "en",
      "de",
    ]);
    // Another credential of the same site sees the same site.
    const site = await (await t.call("GET", "/site", { secret: other.secret }))
      .json();
    assert.equal(site.id, t.siteId);
  }));

Deno.test("authority is re-read on every request: a deactivated creator or one without site access is 403 creator_unauthorized", () =>
  withManageApp(async (t) => {
    assert.equal((await t.call("GET", "/site")).status, 200);
    await t.services.db.updateTable("users").set({ status: "deactivated" })
      .where("id", "=", t.adminId).execute();
    const deactivated = await t.call("GET", "/site");
    assert.equal(deactivated.status, 403);
    assert.equal((await refusal(deactivated)).code, "creator_unauthorized");
    await t.services.db.updateTable("users").set({ status: "active" })
      .where("id", "=", t.adminId).execute();
    assert.equal((await t.call("GET", "/site")).status, 200);
    await t.services.db.deleteFrom("site_members")
      .where("user_id", "=", t.adminId).execute();
    const removed = await t.call("GET", "/site");
    assert.equal(removed.status, 403);
    assert.equal((await refusal(removed)).code, "creator_unauthorized");
  }));

Deno.test("the route's scope is checked: a credential without settings:write is 403 missing_permission", () =>
  withManageApp(async (t) => {
    const reader = await t.credential(["content:read"]);
    assert.equal(
      (await t.call("GET", "/site", { secret: reader.secret })).status,
      200,
    );
    for (
      const [method, path, options] of [
        ["GET", "/settings/editorial", {}],
        ["POST", "/languages", { key: "k1", body: { code: "fr" } }],
      ] as const
    ) {
      const response = await t.call(method, path, {
        ...options,
        secret: reader.secret,
      });
      assert.equal(response.status, 403, `${method} ${path}`);
      const error = await refusal(response);
      assert.equal(error.code, "missing_permission");
      assert.deepEqual(error.missing, ["scope settings:write"]);
    }
  }));

Deno.test("a credential acts as its creator now: losing site:settings or lacking site:infra is 403 missing_permission", () =>
  withManageApp(async (t) => {
    const roleId = await insertRole(t.services.db, t.siteId, {
      models: { "*": ["read"] },
      system: ["site:settings"],
    }, t.clock);
    const person = await insertMember(t.services.db, t.siteId, {
      roleId,
      clock: t.clock,
    });
    const cred = await t.credential(["settings:write"], { creatorId: person });
    const ok = await t.call("GET", "/settings/editorial", {
      secret: cred.secret,
    });
    assert.equal(ok.status, 200);
    // SET-004: search settings need site:infra, which the creator lacks.
    const search = await t.call("GET", "/settings/search", {
      secret: cred.secret,
    });
    assert.equal(search.status, 403);
    assert.deepEqual((await refusal(search)).missing, ["site:infra"]);
    // The creator loses site:settings: the next request is refused, with no restart.
    await t.services.db.updateTable("roles")
      .set({
        permissions: JSON.stringify({ models: { "*": ["read"] }, system: [] }),
      })
      .where("id", "=", roleId).execute();
    const lost = await t.call("GET", "/settings/editorial", {
      secret: cred.secret,
    });
    assert.equal(lost.status, 403);
    const error = await refusal(lost);
    assert.equal(error.code, "missing_permission");
    assert.deepEqual(error.missing, ["site:settings"]);
  }));
