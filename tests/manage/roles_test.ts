// The role routes over HTTP: list, read, create, change and delete roles, with every refusal at its edge.
import assert from "node:assert/strict";
import { insertMember, insertRole } from "../../core/access/_testing.ts";
import { type ManageFixture, refusal, withManageApp } from "./helpers.ts";

const MODEL = "0b5f7a3e-3c1e-4c1a-9d6e-2f1a7c9e4b10";

async function rolesCredential(t: ManageFixture): Promise<string> {
  return (await t.credential(["content:read", "content:write", "roles:write"]))
    .secret;
}

Deno.test("GET /roles lists the seeded roles; GET /roles/{id} reads one; unknown ids are 404", () =>
  withManageApp(async (t) => {
    const secret = await rolesCredential(t);
    const response = await t.call("GET", "/roles", { secret });
    assert.equal(response.status, 200);
    const { data } = await response.json();
    assert.deepEqual(
      data.map((r: { name: string; seeded: boolean }) => [r.name, r.seeded])
        .sort(),
      [["Administrator", true], ["Editor", true]],
    );
    const editor = data.find((r: { name: string }) => r.name === "Editor");
    assert.deepEqual(Object.keys(editor).sort(), [
      "created_at",
      "id",
      "name",
      "permissions",
      "seeded",
    ]);
    assert.ok(Array.isArray(editor.permissions.system));
    const one = await t.call("GET", `/roles/${editor.id}`, { secret });
    assert.equal(one.status, 200);
    assert.deepEqual(await one.json(), editor);
    for (const id of [crypto.randomUUID(), "editor"]) {
      const missing = await t.call("GET", `/roles/${id}`, { secret });
      assert.equal(missing.status, 404, id);
      assert.equal((await refusal(missing)).code, "not_found");
    }
    const reader = await t.call("GET", "/roles");
    assert.equal(reader.status, 403);
    assert.deepEqual((await refusal(reader)).missing, ["scope roles:write"]);
  }));

Deno.test("POST /roles creates a role; invalid_permissions lists every reason; escalation beyond the credential is 403", () =>
  withManageApp(async (t) => {
    const secret = await rolesCredential(t);
    const permissions = {
      models: { [MODEL]: ["read", "update"] },
      system: [],
    };
    const created = await t.call("POST", "/roles", {
      secret,
      key: "r1",
      body: { name: "  Writers  ", permissions },
    });
    assert.equal(created.status, 201);
    const role = await created.json();
    assert.equal(role.name, "Writers");
    assert.equal(role.seeded, false);
    assert.deepEqual(role.permissions.models, { [MODEL]: ["read", "update"] });
    const replay = await t.call("POST", "/roles", {
      secret,
      key: "r1",
      body: { name: "  Writers  ", permissions },
    });
    assert.equal(replay.status, 201);
    assert.deepEqual(await replay.json(), { ...role, replayed: true });
    const taken = await t.call("POST", "/roles", {
      secret,
      key: "r2",
      body: { name: "Writers", permissions },
    });
    assert.equal(taken.status, 409);
    assert.equal((await refusal(taken)).code, "role_name_taken");
    const invalid = await t.call("POST", "/roles", {
      secret,
      key: "r3",
      body: {
        name: "Bad",
        permissions: {
          models: { [MODEL]: ["fly"] },
          system: ["site:everything"],
        },
      },
    });
    assert.equal(invalid.status, 400);
    const error = await refusal(invalid);
    assert.equal(error.code, "invalid_permissions");
    assert.equal((error.reasons as unknown[]).length, 2);
    const unknownKey = await t.call("POST", "/roles", {
      secret,
      key: "r4",
      body: { name: "Bad", permissions: { models: {}, powers: [] } },
    });
    assert.equal(unknownKey.status, 400);
    assert.equal((await refusal(unknownKey)).code, "invalid_permissions");
    const wildcard = await t.call("POST", "/roles", {
      secret,
      key: "r5",
      body: { name: "All", permissions: { models: { "*": ["read"] } } },
    });
    assert.equal(wildcard.status, 403);
    const escalation = await refusal(wildcard);
    assert.equal(escalation.code, "escalation_refused");
    assert.deepEqual(escalation.exceeds, ["models.*.read"]);
    const name81 = await t.call("POST", "/roles", {
      secret,
      key: "r6",
      body: { name: "n".repeat(81), permissions },
    });
    assert.equal(name81.status, 400);
    assert.equal(
      ((await refusal(name81)).issues as { path: string }[])[0].path,
      "body.name",
    );
    const name80 = await t.call("POST", "/roles", {
      secret,
      key: "r7",
      body: { name: "n".repeat(80), permissions },
    });
    assert.equal(name80.status, 201);
    const list = await (await t.call("GET", "/roles", { secret })).json();
    assert.equal(list.data.length, 4);
  }));

Deno.test("POST /roles needs the creator's role:manage now and refuses what the creator does not hold", () =>
  withManageApp(async (t) => {
    const roleId = await insertRole(t.services.db, t.siteId, {
      models: { [MODEL]: ["read"] },
      system: ["role:manage"],
    }, t.clock);
    const person = await insertMember(t.services.db, t.siteId, {
      roleId,
      clock: t.clock,
    });
    const cred = await t.credential(["content:read", "roles:write"], {
      creatorId: person,
    });
    const beyond = await t.call("POST", "/roles", {
      secret: cred.secret,
      key: "b1",
      body: {
        name: "Settings",
        permissions: { models: {}, system: ["site:settings"] },
      },
    });
    assert.equal(beyond.status, 403);
    assert.equal((await refusal(beyond)).code, "escalation_refused");
    const within = await t.call("POST", "/roles", {
      secret: cred.secret,
      key: "b2",
      body: {
        name: "Readers",
        permissions: { models: { [MODEL]: ["read"] } },
      },
    });
    assert.equal(within.status, 201);
    await t.services.db.updateTable("roles")
      .set({ permissions: JSON.stringify({ models: {}, system: [] }) })
      .where("id", "=", roleId).execute();
    const lost = await t.call("GET", "/roles", { secret: cred.secret });
    assert.equal(lost.status, 403);
    assert.deepEqual((await refusal(lost)).missing, ["role:manage"]);
  }));

Deno.test("PUT /roles/{id} changes only the named fields; permissions replace the whole set", () =>
  withManageApp(async (t) => {
    const secret = await rolesCredential(t);
    const role = await (await t.call("POST", "/roles", {
      secret,
      key: "c",
      body: {
        name: "Writers",
        permissions: { models: { [MODEL]: ["read", "update"] }, system: [] },
      },
    })).json();
    const renamed = await t.call("PUT", `/roles/${role.id}`, {
      secret,
      key: "u1",
      body: { name: "Authors" },
    });
    assert.equal(renamed.status, 200);
    assert.deepEqual(await renamed.json(), { ...role, name: "Authors" });
    const replaced = await t.call("PUT", `/roles/${role.id}`, {
      secret,
      key: "u2",
      body: { permissions: { models: { [MODEL]: ["read"] } } },
    });
    assert.equal(replaced.status, 200);
    const after = await replaced.json();
    assert.equal(after.name, "Authors");
    assert.deepEqual(after.permissions.models, { [MODEL]: ["read"] });
    assert.deepEqual(after.permissions.system, []);
    const invalid = await t.call("PUT", `/roles/${role.id}`, {
      secret,
      key: "u3",
      body: { permissions: { models: { [MODEL]: ["fly", "swim"] } } },
    });
    assert.equal(invalid.status, 400);
    const error = await refusal(invalid);
    assert.equal(error.code, "invalid_permissions");
    assert.equal((error.reasons as unknown[]).length, 2);
    const escalate = await t.call("PUT", `/roles/${role.id}`, {
      secret,
      key: "u4",
      body: { permissions: { models: { "*": ["read"] } } },
    });
    assert.equal(escalate.status, 403);
    assert.equal((await refusal(escalate)).code, "escalation_refused");
    const unchanged = await (await t.call("GET", `/roles/${role.id}`, {
      secret,
    })).json();
    assert.deepEqual(unchanged, after);
    const missing = await t.call("PUT", `/roles/${crypto.randomUUID()}`, {
      secret,
      key: "u5",
      body: { name: "X" },
    });
    assert.equal(missing.status, 404);
    const taken = await t.call("PUT", `/roles/${role.id}`, {
      secret,
      key: "u6",
      body: { name: "Editor" },
    });
    assert.equal(taken.status, 409);
    assert.equal((await refusal(taken)).code, "role_name_taken");
    const extra = await t.call("PUT", `/roles/${role.id}`, {
      secret,
      key: "u7",
      body: { name: "X", seeded: true },
    });
    assert.equal(extra.status, 400);
    assert.equal(
      (await refusal(extra)).message,
      'Unknown key "seeded" in body',
    );
  }));

Deno.test("DELETE /roles/{id} deletes an unheld role and refuses seeded and held roles", () =>
  withManageApp(async (t) => {
    const secret = await rolesCredential(t);
    const roles = (await (await t.call("GET", "/roles", { secret })).json())
      .data as { id: string; name: string }[];
    const editor = roles.find((r) => r.name === "Editor")!;
    const seeded = await t.call("DELETE", `/roles/${editor.id}`, {
      secret,
      key: "d1",
    });
    assert.equal(seeded.status, 409);
    assert.equal((await refusal(seeded)).code, "role_seeded");
    const role = await (await t.call("POST", "/roles", {
      secret,
      key: "c",
      body: { name: "Writers", permissions: { models: { [MODEL]: ["read"] } } },
    })).json();
    const member = await insertMember(t.services.db, t.siteId, {
      roleId: role.id,
      clock: t.clock,
    });
    const held = await t.call("DELETE", `/roles/${role.id}`, {
      secret,
      key: "d2",
    });
    assert.equal(held.status, 409);
    const heldError = await refusal(held);
    assert.equal(heldError.code, "role_in_use");
    assert.equal(heldError.members, 1);
    await t.services.db.deleteFrom("site_members").where(
      "user_id",
      "=",
      member,
    ).execute();
    const noKey = await t.call("DELETE", `/roles/${role.id}`, { secret });
    assert.equal(noKey.status, 400);
    const deleted = await t.call("DELETE", `/roles/${role.id}`, {
      secret,
      key: "d3",
    });
    assert.equal(deleted.status, 200);
    assert.deepEqual(await deleted.json(), { id: role.id, deleted: true });
    const replay = await t.call("DELETE", `/roles/${role.id}`, {
      secret,
      key: "d3",
    });
    assert.deepEqual(await replay.json(), {
      id: role.id,
      deleted: true,
      replayed: true,
    });
    const again = await t.call("DELETE", `/roles/${role.id}`, {
      secret,
      key: "d4",
    });
    assert.equal(again.status, 404);
  }));
