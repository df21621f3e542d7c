// People of a site: members, roles, removal and deactivation through role:manage (SET roles, MCR-003).
import { deepEqual, equal, ok } from "node:assert/strict";
import { loadAuthority } from "../access/authority.ts";
import {
  administratorPermissions,
  editorPermissions,
} from "../access/default_roles.ts";
import {
  insertCredential,
  insertMember,
  insertRole,
  insertSite,
} from "../access/_testing.ts";
import type { Permissions } from "../access/permissions.ts";
import { ManualClock } from "../clock.ts";
import { openTestDb } from "../../tests/support/db.ts";
import {
  addMember,
  type PeopleContext,
  removeMember,
  setMemberRole,
  setUserStatus,
} from "./people.ts";

async function world(permissions: Permissions = administratorPermissions()) {
  const test = await openTestDb();
  const clock = new ManualClock();
  const siteId = await insertSite(test.db, clock);
  const adminRole = await insertRole(test.db, siteId, permissions, clock);
  const editorRole = await insertRole(
    test.db,
    siteId,
    editorPermissions(),
    clock,
  );
  const managerId = await insertMember(test.db, siteId, {
    roleId: adminRole,
    clock,
  });
  const loaded = await loadAuthority(test.db, {
    siteId,
    actor: { kind: "person", userId: managerId },
  });
  if (!loaded.ok) throw new Error(loaded.code);
  const ctx: PeopleContext = {
    db: test.db,
    clock,
    siteId,
    authority: loaded.authority,
  };
  return { ...test, ctx, clock, siteId, adminRole, editorRole, managerId };
}

Deno.test("addMember() creates a new person with a once-shown password, or adds an existing one; twice is member_exists", async () => {
  const w = await world();
  try {
    const added = await addMember(w.ctx, {
      email: " Grace@Example.com ",
      roleId: w.editorRole,
    });
    ok(added.ok);
    ok(added.createdPassword && added.createdPassword.length >= 20);
    const user = await w.db.selectFrom("users").selectAll().where(
      "id",
      "=",
      added.userId,
    ).executeTakeFirstOrThrow();
    equal(user.email, "grace@example.com");
    equal(user.password_hash.includes(added.createdPassword), false);
    const again = await addMember(w.ctx, {
      email: "grace@example.com",
      roleId: w.editorRole,
    });
    deepEqual(again, { ok: false, code: "member_exists" });
  } finally {
    await w.close();
  }
});

Deno.test("giving a role beyond the giver's own authority is escalation_refused; no role:manage is missing_permission", async () => {
  const narrow: Permissions = {
    models: { "*": ["read"] },
    system: ["role:manage"],
  };
  const w = await world(narrow);
  try {
    const refused = await addMember(w.ctx, {
      email: "x@example.com",
      roleId: w.editorRole,
    });
    equal(!refused.ok && refused.code, "escalation_refused");
    equal((await w.db.selectFrom("users").selectAll().execute()).length, 1);
  } finally {
    await w.close();
  }
  const v = await world(editorPermissions());
  try {
    const refused = await addMember(v.ctx, {
      email: "x@example.com",
      roleId: v.editorRole,
    });
    equal(!refused.ok && refused.code, "missing_permission");
  } finally {
    await v.close();
  }
});

Deno.test("setUserStatus() deactivation ends sessions and stops the person's credentials at once (creator_unauthorized)", async () => {
  const w = await world();
  try {
    const editorId = await insertMember(w.db, w.siteId, {
      roleId: w.editorRole,
      clock: w.clock,
    });
    const credential = await insertCredential(w.db, w.siteId, {
      creatorId: editorId,
      scopes: ["content:read"],
      clock: w.clock,
    });
    ok((await loadAuthority(w.db, { siteId: w.siteId, actor: credential })).ok);
    await w.db.insertInto("sessions").values({
      id: crypto.randomUUID(),
      token_digest: "d".repeat(64),
      user_id: editorId,
      created_at: w.clock.now(),
      expires_at: new Date(w.clock.now().getTime() + 60_000),
    }).execute();
    ok(
      (await setUserStatus(w.ctx, { userId: editorId, status: "deactivated" }))
        .ok,
    );
    equal((await w.db.selectFrom("sessions").selectAll().execute()).length, 0);
    const after = await loadAuthority(w.db, {
      siteId: w.siteId,
      actor: credential,
    });
    equal(!after.ok && after.code, "creator_unauthorized");
    ok((await setUserStatus(w.ctx, { userId: editorId, status: "active" })).ok);
    ok((await loadAuthority(w.db, { siteId: w.siteId, actor: credential })).ok);
  } finally {
    await w.close();
  }
});

Deno.test("the last person who can manage roles cannot be demoted, removed or deactivated (last_manager)", async () => {
  const w = await world();
  try {
    const other = await insertMember(w.db, w.siteId, {
      roleId: w.adminRole,
      clock: w.clock,
    });
    ok(
      (await setMemberRole(w.ctx, { userId: other, roleId: w.editorRole })).ok,
    );
    deepEqual(
      await setMemberRole(w.ctx, { userId: w.managerId, roleId: w.editorRole }),
      {
        ok: false,
        code: "last_manager",
      },
    );
    deepEqual(await removeMember(w.ctx, w.managerId), {
      ok: false,
      code: "last_manager",
    });
    ok((await removeMember(w.ctx, other)).ok);
    equal(
      (await w.db.selectFrom("site_members").selectAll().where(
        "user_id",
        "=",
        w.managerId,
      ).execute()).length,
      1,
    );
  } finally {
    await w.close();
  }
});

Deno.test("setUserStatus() refuses a person who is also a member of another site", async () => {
  const w = await world();
  try {
    const editorId = await insertMember(w.db, w.siteId, {
      roleId: w.editorRole,
      clock: w.clock,
    });
    const otherSite = await insertSite(w.db, w.clock);
    const otherRole = await insertRole(
      w.db,
      otherSite,
      editorPermissions(),
      w.clock,
    );
    await w.db.insertInto("site_members").values({
      site_id: otherSite,
      user_id: editorId,
      role_id: otherRole,
      created_at: w.clock.now(),
    }).execute();
    const refused = await setUserStatus(w.ctx, {
      userId: editorId,
      status: "deactivated",
    });
    equal(!refused.ok && refused.code, "missing_permission");
    const user = await w.db.selectFrom("users").select("status").where(
      "id",
      "=",
      editorId,
    ).executeTakeFirstOrThrow();
    equal(user.status, "active");
  } finally {
    await w.close();
  }
});
