import { deepEqual, equal, ok } from "node:assert/strict";
import { ManualClock } from "../clock.ts";
import type { Db } from "../db/database.ts";
import { openTestDb } from "../../tests/support/db.ts";
import { loadAuthority } from "./authority.ts";
import { decide } from "./decide.ts";
import type { Permissions } from "./permissions.ts";
import {
  insertCredential,
  insertMember,
  insertRole,
  insertSite,
} from "./_testing.ts";

const publisher: Permissions = {
  models: { "*": ["read", "update", "publish"] },
  system: ["site:settings"],
};

async function withDb(run: (db: Db, clock: ManualClock) => Promise<void>) {
  const { db, close } = await openTestDb();
  try {
    await run(db, new ManualClock());
  } finally {
    await close();
  }
}

Deno.test("loadAuthority() gives an active member their role's permissions", async () => {
  await withDb(async (db, clock) => {
    const siteId = await insertSite(db, clock);
    const roleId = await insertRole(db, siteId, publisher, clock);
    const userId = await insertMember(db, siteId, { roleId, clock });
    const result = await loadAuthority(db, {
      siteId,
      actor: { kind: "person", userId },
    });
    ok(result.ok);
    equal(result.authority.personId, userId);
    equal(result.authority.roleId, roleId);
    deepEqual(result.authority.permissions, publisher);
    equal(result.authority.scopes, null);
    equal(result.authority.models, null);
  });
});

Deno.test("loadAuthority() refuses a deactivated person and a person of another site", async () => {
  await withDb(async (db, clock) => {
    const siteId = await insertSite(db, clock);
    const otherSite = await insertSite(db, clock);
    const roleId = await insertRole(db, siteId, publisher, clock);
    const userId = await insertMember(db, siteId, { roleId, clock });
    deepEqual(
      await loadAuthority(db, {
        siteId: otherSite,
        actor: { kind: "person", userId },
      }),
      { ok: false, code: "site_access_denied" },
    );
    await db.updateTable("users").set({ status: "deactivated" })
      .where("id", "=", userId).execute();
    deepEqual(
      await loadAuthority(db, { siteId, actor: { kind: "person", userId } }),
      { ok: false, code: "site_access_denied" },
    );
  });
});

Deno.test("loadAuthority() narrows a credential to its scopes and models, with content:read always (MCR-006, MCR-010)", async () => {
  await withDb(async (db, clock) => {
    const siteId = await insertSite(db, clock);
    const roleId = await insertRole(db, siteId, publisher, clock);
    const creatorId = await insertMember(db, siteId, { roleId, clock });
    const actor = await insertCredential(db, siteId, {
      creatorId,
      scopes: ["lifecycle:publish"],
      models: ["article"],
      clock,
    });
    const result = await loadAuthority(db, { siteId, actor });
    ok(result.ok);
    const authority = result.authority;
    equal(authority.personId, creatorId);
    deepEqual(authority.scopes, ["content:read", "lifecycle:publish"]);
    deepEqual(authority.models, ["article"]);
    deepEqual(
      decide(authority, { action: "entries.publish", model: "article" }),
      {
        ok: true,
      },
    );
    equal(
      decide(authority, { action: "entries.publish", model: "page" }).ok,
      false,
    );
    equal(
      decide(authority, { action: "entries.update", model: "article" }).ok,
      false,
    );
  });
});

Deno.test("loadAuthority() takes a lost permission away from a credential at once (MCR-006, MCR-008)", async () => {
  await withDb(async (db, clock) => {
    const siteId = await insertSite(db, clock);
    const roleId = await insertRole(db, siteId, publisher, clock);
    const creatorId = await insertMember(db, siteId, { roleId, clock });
    const actor = await insertCredential(db, siteId, {
      creatorId,
      scopes: ["lifecycle:publish"],
      clock,
    });
    const request = { action: "entries.publish", model: "article" } as const;
    const before = await loadAuthority(db, { siteId, actor });
    ok(before.ok);
    deepEqual(decide(before.authority, request), { ok: true });
    const narrowed: Permissions = {
      models: { "*": ["read", "update"] },
      system: [],
    };
    await db.updateTable("roles").set({ permissions: JSON.stringify(narrowed) })
      .where("id", "=", roleId).execute();
    const after = await loadAuthority(db, { siteId, actor });
    ok(after.ok);
    deepEqual(decide(after.authority, request), {
      ok: false,
      code: "missing_permission",
      missing: ["publish"],
    });
  });
});

Deno.test("loadAuthority() refuses a credential whose creator is deactivated or left the site with creator_unauthorized (MCR-007)", async () => {
  await withDb(async (db, clock) => {
    const siteId = await insertSite(db, clock);
    const roleId = await insertRole(db, siteId, publisher, clock);
    const creatorId = await insertMember(db, siteId, { roleId, clock });
    const leaverId = await insertMember(db, siteId, { roleId, clock });
    const actor = await insertCredential(db, siteId, {
      creatorId,
      scopes: ["content:write"],
      clock,
    });
    const leavers = await insertCredential(db, siteId, {
      creatorId: leaverId,
      scopes: ["content:write"],
      clock,
    });
    await db.updateTable("users").set({ status: "deactivated" })
      .where("id", "=", creatorId).execute();
    await db.deleteFrom("site_members").where("user_id", "=", leaverId)
      .execute();
    deepEqual(await loadAuthority(db, { siteId, actor }), {
      ok: false,
      code: "creator_unauthorized",
    });
    deepEqual(await loadAuthority(db, { siteId, actor: leavers }), {
      ok: false,
      code: "creator_unauthorized",
    });
  });
});

Deno.test("loadAuthority() refuses a revoked credential on its next request (MCR-009)", async () => {
  await withDb(async (db, clock) => {
    const siteId = await insertSite(db, clock);
    const otherSite = await insertSite(db, clock);
    const roleId = await insertRole(db, siteId, publisher, clock);
    const creatorId = await insertMember(db, siteId, { roleId, clock });
    const actor = await insertCredential(db, siteId, {
      creatorId,
      scopes: [],
      clock,
    });
    ok((await loadAuthority(db, { siteId, actor })).ok);
    deepEqual(await loadAuthority(db, { siteId: otherSite, actor }), {
      ok: false,
      code: "credential_not_found",
    });
    if (actor.kind !== "credential") throw new Error("Expected a credential");
    await db.updateTable("management_credentials")
      .set({ revoked_at: clock.now() })
      .where("id", "=", actor.credentialId).execute();
    deepEqual(await loadAuthority(db, { siteId, actor }), {
      ok: false,
      code: "credential_revoked",
    });
  });
});

Deno.test("loadAuthority() gives a plugin its delegated person's authority, refused requester_unauthorized once deactivated (LAU-024)", async () => {
  await withDb(async (db, clock) => {
    const siteId = await insertSite(db, clock);
    const roleId = await insertRole(db, siteId, publisher, clock);
    const userId = await insertMember(db, siteId, { roleId, clock });
    const actor = {
      kind: "plugin",
      installationId: "inst",
      name: "scheduling",
      version: "1.0.0",
      delegatedUserId: userId,
      delegatedEmail: "someone@example.test",
    } as const;
    const result = await loadAuthority(db, { siteId, actor });
    ok(result.ok);
    equal(result.authority.personId, userId);
    deepEqual(
      decide(result.authority, { action: "publish", model: "article" }),
      {
        ok: true,
      },
    );
    await db.updateTable("users").set({ status: "deactivated" })
      .where("id", "=", userId).execute();
    deepEqual(await loadAuthority(db, { siteId, actor }), {
      ok: false,
      code: "requester_unauthorized",
    });
  });
});
