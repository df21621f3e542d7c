// The role editor over HTTP: create a role, tick its matrix, limits and languages, save; refusals
// (escalation, a held role, a seeded role, a role backend access names) keep what was typed and change nothing (SET-009..SET-014).
import { deepEqual, equal, match, ok } from "node:assert/strict";
import { insertRole } from "../../core/access/_testing.ts";
import { putModelAccess } from "../../core/backend/access.ts";
import { addPersonWith, setupDemo } from "./demo_helpers.ts";
import {
  alertText,
  CookieJar,
  csrfField,
  PASSWORD,
  request,
  signInAs,
} from "./helpers.ts";

async function roleRow(
  t: Awaited<ReturnType<typeof setupDemo>>["t"],
  id: string,
) {
  return await t.services.db.selectFrom("roles").select(["name", "permissions"])
    .where("id", "=", id).executeTakeFirstOrThrow();
}

Deno.test("the role editor creates a role, saves its matrix, field and language limits, and deletes it when nobody holds it", async () => {
  const demo = await setupDemo();
  const { t } = demo;
  try {
    const jar = new CookieJar();
    await signInAs(t, jar, { email: demo.email, password: PASSWORD });
    const people = await (await request(t, jar, "/admin/people")).text();
    match(people, /href="\/admin\/people\/roles"/);
    const list = await (await request(t, jar, "/admin/people/roles")).text();
    match(list, /Administrator/);
    const csrf = csrfField(list);
    const created = await request(t, jar, "/admin/people/roles", {
      form: { _csrf: csrf, name: "Writer", from: "" },
    });
    equal(created.status, 303);
    const location = created.headers.get("location")!;
    const id = /\/admin\/people\/roles\/([0-9a-f-]{36})/.exec(location)![1];
    const editor = await (await request(t, jar, location)).text();
    match(editor, /Role created/);
    match(editor, /aria-label="Posts: publish"/);
    const posts = await t.services.db.selectFrom("models").select("id")
      .where("site_id", "=", demo.siteId).where("slug", "=", "posts")
      .executeTakeFirstOrThrow();
    const saved = await request(t, jar, `/admin/people/roles/${id}`, {
      form: {
        _csrf: csrfField(editor),
        name: "Writer",
        "m.*": "read",
        [`m.${posts.id}`]: ["create", "update"],
        [`fw.${posts.id}`]: "title, body",
        s: ["media:upload"],
        "l.update": ["en"],
      },
    });
    equal(saved.status, 303);
    const stored = await roleRow(t, id);
    deepEqual(stored.permissions, {
      models: { "*": ["read"], [posts.id]: ["create", "update"] },
      system: ["media:upload"],
      fields: { [posts.id]: { write: ["title", "body"] } },
      languages: { update: ["en"] },
    });
    const shown =
      await (await request(t, jar, `/admin/people/roles/${id}?done=saved`))
        .text();
    match(shown, new RegExp(`name="m.${posts.id}" value="create" checked`));
    match(shown, /value="title, body"/);

    // A language the site lacks: refused, nothing saved, the typed name kept.
    const bad = await request(t, jar, `/admin/people/roles/${id}`, {
      form: {
        _csrf: csrfField(shown),
        name: "Writer 2",
        "l.update": ["xx"],
      },
    });
    equal(bad.status, 422);
    const badHtml = await bad.text();
    ok(alertText(badHtml));
    match(badHtml, /value="Writer 2"/);
    equal((await roleRow(t, id)).name, "Writer");

    const deleted = await request(t, jar, `/admin/people/roles/${id}`, {
      form: { _csrf: csrfField(shown), action: "delete" },
    });
    equal(deleted.status, 303);
    const gone = await t.services.db.selectFrom("roles").select("id")
      .where("id", "=", id).execute();
    deepEqual(gone, []);
  } finally {
    await t.close();
  }
});

Deno.test("the role editor refuses to grant more than the person holds, and to delete a held or seeded role", async () => {
  const demo = await setupDemo();
  const { t } = demo;
  try {
    const managerId = await addPersonWith(demo, {
      email: "mira@example.com",
      displayName: "Mira",
      permissions: {
        models: { "*": ["read", "update"] },
        system: ["role:manage"],
      },
    });
    const jar = new CookieJar();
    await signInAs(t, jar, { email: "mira@example.com", password: PASSWORD });
    const member = await t.services.db.selectFrom("site_members").select(
      "role_id",
    )
      .where("user_id", "=", managerId).executeTakeFirstOrThrow();
    const page =
      await (await request(t, jar, `/admin/people/roles/${member.role_id}`))
        .text();
    const before = await roleRow(t, member.role_id);
    const escalate = await request(
      t,
      jar,
      `/admin/people/roles/${member.role_id}`,
      {
        form: {
          _csrf: csrfField(page),
          name: before.name,
          "m.*": ["read", "update", "publish"],
          s: ["role:manage"],
        },
      },
    );
    equal(escalate.status, 403);
    match(alertText(await escalate.text()) ?? "", /does not hold/);
    deepEqual(
      (await roleRow(t, member.role_id)).permissions,
      before.permissions,
    );
    const held = await request(
      t,
      jar,
      `/admin/people/roles/${member.role_id}`,
      {
        form: { _csrf: csrfField(page), action: "delete" },
      },
    );
    equal(held.status, 409);
    match(alertText(await held.text()) ?? "", /hold this role/);
    const seeded = await t.services.db.selectFrom("roles").select("id")
      .where("site_id", "=", demo.siteId).where("seeded", "=", true)
      .executeTakeFirst();
    if (seeded) {
      const seededPage =
        await (await request(t, jar, `/admin/people/roles/${seeded.id}`))
          .text();
      equal(/Delete role/.test(seededPage), false);
    }
    // Someone without role:manage does not get the pages.
    await addPersonWith(demo, {
      email: "ed@example.com",
      displayName: "Ed",
      permissions: { models: { "*": ["read"] }, system: [] },
    });
    const other = new CookieJar();
    await signInAs(t, other, { email: "ed@example.com", password: PASSWORD });
    equal((await request(t, other, "/admin/people/roles")).status, 403);
  } finally {
    await t.close();
  }
});

Deno.test("the role editor refuses to delete a role a backend access rule names, saying where, and deletes it once the rule is gone (SET-014)", async () => {
  const demo = await setupDemo();
  const { t } = demo;
  try {
    const ctx = { db: t.services.db, clock: t.clock, siteId: demo.siteId };
    const roleId = await insertRole(
      t.services.db,
      demo.siteId,
      { models: {}, system: [] },
      t.clock,
    );
    const model = await t.services.db.selectFrom("models").select("id")
      .where("site_id", "=", demo.siteId).where("deleted_at", "is", null)
      .executeTakeFirstOrThrow();
    const put = await putModelAccess(ctx, model.id, {
      operations: { create: { audience: "session", roles: [roleId] } },
    });
    ok(put.ok);
    const jar = new CookieJar();
    await signInAs(t, jar, { email: demo.email, password: PASSWORD });
    const page = await (await request(t, jar, `/admin/people/roles/${roleId}`))
      .text();
    const refused = await request(t, jar, `/admin/people/roles/${roleId}`, {
      form: { _csrf: csrfField(page), action: "delete" },
    });
    equal(refused.status, 409);
    match(
      alertText(await refused.text()) ?? "",
      /Backend access names this role/,
    );
    ok(await roleRow(t, roleId));
    ok((await putModelAccess(ctx, model.id, { operations: {} })).ok);
    const deleted = await request(t, jar, `/admin/people/roles/${roleId}`, {
      form: { _csrf: csrfField(page), action: "delete" },
    });
    equal(deleted.status, 303);
  } finally {
    await t.close();
  }
});
