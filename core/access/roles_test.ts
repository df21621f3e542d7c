import { deepEqual, equal, ok } from "node:assert/strict";
import { ManualClock } from "../clock.ts";
import type { Db } from "../db/database.ts";
import { openTestDb } from "../../tests/support/db.ts";
import { type Authority, loadAuthority } from "./authority.ts";
import {
  administratorPermissions,
  editorPermissions,
} from "./default_roles.ts";
import {
  MODEL_ACTIONS,
  type Permissions,
  SYSTEM_PERMISSIONS,
} from "./permissions.ts";
import {
  createRole,
  deleteRole,
  getRole,
  listRoles,
  type RoleContext,
  seedDefaultRoles,
  updateRole,
} from "./roles.ts";
import {
  insertCredential,
  insertMember,
  insertRole,
  insertSite,
} from "./_testing.ts";

const writer: Permissions = {
  models: { article: ["read", "update"] },
  system: [],
};

async function withSite(
  run: (ctx: RoleContext & { adminRoleId: string }) => Promise<void>,
  options: { seed?: boolean } = {},
) {
  const { db, close } = await openTestDb();
  try {
    const clock = new ManualClock();
    const siteId = await insertSite(db, clock);
    const adminRoleId = options.seed === false
      ? await insertRole(db, siteId, administratorPermissions(), clock)
      : (await seedDefaultRoles(db, siteId, clock)).administrator.id;
    const userId = await insertMember(db, siteId, {
      roleId: adminRoleId,
      clock,
    });
    const authority = await authorityOf(db, siteId, userId);
    await run({ db, clock, siteId, authority, adminRoleId });
  } finally {
    await close();
  }
}

async function authorityOf(
  db: Db,
  siteId: string,
  userId: string,
): Promise<Authority> {
  const result = await loadAuthority(db, {
    siteId,
    actor: { kind: "person", userId },
  });
  if (!result.ok) throw new Error(`No authority: ${result.code}`);
  return result.authority;
}

Deno.test("seedDefaultRoles() seeds Administrator with everything and Editor, once", async () => {
  await withSite(async ({ db, clock, siteId }) => {
    const first = await seedDefaultRoles(db, siteId, clock);
    deepEqual(first.administrator.permissions, {
      models: { "*": [...MODEL_ACTIONS] },
      system: [...SYSTEM_PERMISSIONS],
    });
    equal(first.administrator.seeded, true);
    deepEqual(first.editor.permissions, editorPermissions());
    equal(first.editor.seeded, true);
    const again = await seedDefaultRoles(db, siteId, clock);
    equal(again.administrator.id, first.administrator.id);
    const rows = await db.selectFrom("roles").select("id")
      .where("site_id", "=", siteId).execute();
    equal(rows.length, 2);
  });
});

Deno.test("createRole() stores a role and getRole()/listRoles() answer its structure (SET-009, SET-010)", async () => {
  await withSite(async (ctx) => {
    const created = await createRole(ctx, {
      name: "  Writer ",
      permissions: { ...writer, languages: { update: ["en"] } },
    });
    ok(created.ok);
    equal(created.role.name, "Writer");
    equal(created.role.seeded, false);
    equal(created.role.createdAt.toISOString(), ctx.clock.now().toISOString());
    const read = await getRole(ctx, created.role.id);
    deepEqual(read, created);
    const list = await listRoles(ctx);
    ok(list.ok);
    deepEqual(list.roles.map((r) => r.name).sort(), [
      "Administrator",
      "Editor",
      "Writer",
    ]);
    deepEqual(await getRole(ctx, crypto.randomUUID()), {
      ok: false,
      code: "not_found",
    });
  });
});

Deno.test("createRole() refuses invalid permissions listing every reason, and stores nothing (SET-012)", async () => {
  await withSite(async (ctx) => {
    await ctx.db.insertInto("site_languages").values([
      { site_id: ctx.siteId, code: "en", position: 0, is_default: true },
    ]).execute();
    const result = await createRole(ctx, {
      name: "Bad",
      permissions: {
        models: { "*": ["reed"] },
        system: ["root"],
        languages: { read: ["fr"] },
      },
    });
    equal(result.ok, false);
    if (result.ok || result.code !== "invalid_permissions") {
      throw new Error("Expected refusal");
    }
    deepEqual(result.reasons.map((r) => r.path), [
      "models.*[0]",
      "system[0]",
      "languages.read[0]",
    ]);
    const unknownLanguage = await createRole(ctx, {
      name: "Bad",
      permissions: { models: {}, languages: { read: ["fr"] } },
    });
    equal(unknownLanguage.ok, false);
    const list = await listRoles(ctx);
    ok(list.ok);
    equal(list.roles.length, 2);
  });
});

Deno.test("createRole() refuses a taken name, a bad name and a caller without role:manage", async () => {
  await withSite(async (ctx) => {
    deepEqual(await createRole(ctx, { name: "Editor", permissions: writer }), {
      ok: false,
      code: "role_name_taken",
    });
    equal(
      (await createRole(ctx, { name: "x".repeat(80), permissions: writer })).ok,
      true,
    );
    const long = await createRole(ctx, {
      name: "x".repeat(81),
      permissions: writer,
    });
    equal(long.ok === false && long.code, "invalid_request");
    const blank = await createRole(ctx, { name: "   ", permissions: writer });
    equal(blank.ok === false && blank.code, "invalid_request");
    const editorRole =
      (await seedDefaultRoles(ctx.db, ctx.siteId, ctx.clock)).editor;
    const editorId = await insertMember(ctx.db, ctx.siteId, {
      roleId: editorRole.id,
      clock: ctx.clock,
    });
    const asEditor = {
      ...ctx,
      authority: await authorityOf(ctx.db, ctx.siteId, editorId),
    };
    deepEqual(
      await createRole(asEditor, { name: "Mine", permissions: writer }),
      {
        ok: false,
        code: "missing_permission",
        missing: ["role:manage"],
      },
    );
  });
});

Deno.test("createRole() through a credential refuses a model wildcard with escalation_refused (SET-013)", async () => {
  await withSite(async (ctx) => {
    const creatorId = ctx.authority.personId;
    const actor = await insertCredential(ctx.db, ctx.siteId, {
      creatorId,
      scopes: ["roles:write", "content:write"],
      clock: ctx.clock,
    });
    const loaded = await loadAuthority(ctx.db, { siteId: ctx.siteId, actor });
    ok(loaded.ok);
    const asCredential = { ...ctx, authority: loaded.authority };
    deepEqual(
      await createRole(asCredential, {
        name: "All",
        permissions: { models: { "*": ["read"] } },
      }),
      { ok: false, code: "escalation_refused", exceeds: ["models.*.read"] },
    );
    const narrow = await createRole(asCredential, {
      name: "Narrow",
      permissions: writer,
    });
    ok(narrow.ok);
  });
});

Deno.test("updateRole() changes only the fields it names; permissions replace the whole set (SET-011)", async () => {
  await withSite(async (ctx) => {
    const created = await createRole(ctx, {
      name: "Writer",
      permissions: writer,
    });
    ok(created.ok);
    const renamed = await updateRole(ctx, created.role.id, { name: "Author" });
    ok(renamed.ok);
    equal(renamed.role.name, "Author");
    deepEqual(renamed.role.permissions, writer);
    const replaced = await updateRole(ctx, created.role.id, {
      permissions: { system: ["media:upload"] },
    });
    ok(replaced.ok);
    deepEqual(replaced.role.permissions, {
      models: {},
      system: ["media:upload"],
    });
    equal(replaced.role.name, "Author");
    deepEqual(await updateRole(ctx, created.role.id, { name: "Editor" }), {
      ok: false,
      code: "role_name_taken",
    });
    deepEqual(await updateRole(ctx, crypto.randomUUID(), { name: "Nobody" }), {
      ok: false,
      code: "not_found",
    });
    const unchanged = await updateRole(ctx, created.role.id, {});
    ok(unchanged.ok);
    equal(unchanged.role.name, "Author");
  });
});

Deno.test("deleteRole() refuses a seeded role and a role someone holds, and deletes an unheld one (SET-014)", async () => {
  await withSite(async (ctx) => {
    deepEqual(await deleteRole(ctx, ctx.adminRoleId), {
      ok: false,
      code: "role_seeded",
    });
    const created = await createRole(ctx, {
      name: "Writer",
      permissions: writer,
    });
    ok(created.ok);
    await insertMember(ctx.db, ctx.siteId, {
      roleId: created.role.id,
      clock: ctx.clock,
    });
    deepEqual(await deleteRole(ctx, created.role.id), {
      ok: false,
      code: "role_in_use",
      members: 1,
    });
    const spare = await createRole(ctx, { name: "Spare", permissions: writer });
    ok(spare.ok);
    deepEqual(await deleteRole(ctx, spare.role.id), {
      ok: true,
      id: spare.role.id,
    });
    deepEqual(await getRole(ctx, spare.role.id), {
      ok: false,
      code: "not_found",
    });
    deepEqual(await deleteRole(ctx, spare.role.id), {
      ok: false,
      code: "not_found",
    });
  });
});

Deno.test("deleteRole() refuses the last role that can grant access (SET-014)", async () => {
  await withSite(async (ctx) => {
    // Unseeded site: the held Administrator role and one spare role:manage role.
    const manager = await createRole(ctx, {
      name: "Manager",
      permissions: { system: ["role:manage"] },
    });
    ok(manager.ok);
    // Another role still grants access, so the spare one may go.
    const second = await createRole(ctx, {
      name: "Second manager",
      permissions: { system: ["role:manage"] },
    });
    ok(second.ok);
    deepEqual(await deleteRole(ctx, second.role.id), {
      ok: true,
      id: second.role.id,
    });
    // Move the administrator's holder away so only Manager grants access, unheld.
    await ctx.db.updateTable("roles").set({
      permissions: JSON.stringify(writer),
    })
      .where("id", "=", ctx.adminRoleId).execute();
    deepEqual(await deleteRole(ctx, manager.role.id), {
      ok: false,
      code: "role_last_access_granter",
    });
  }, { seed: false });
});
