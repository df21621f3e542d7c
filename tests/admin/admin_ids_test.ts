// Malformed ids the issue names: a URL answers the styled 404 page, a form field is shown again with its error, and nothing changes.
import assert from "node:assert/strict";
import {
  ADMIN_PARAM_KINDS,
  checkIdParams,
  formId,
  isId,
} from "../../core/admin/ids.ts";
import { manifest } from "../../routes.gen.ts";
import { type DemoAdmin, setupDemo } from "./demo_helpers.ts";
import {
  CookieJar,
  csrfField,
  PASSWORD,
  request,
  signInAs,
} from "./helpers.ts";
import { adminPatterns } from "./admin_routes.ts";

async function signedIn(demo: DemoAdmin): Promise<CookieJar> {
  const jar = new CookieJar();
  await signInAs(demo.t, jar, { email: demo.email, password: PASSWORD });
  return jar;
}

async function members(demo: DemoAdmin) {
  return await demo.t.services.db.selectFrom("site_members")
    .select(["user_id", "role_id"]).where("site_id", "=", demo.siteId)
    .orderBy("user_id").execute();
}

async function roleCount(demo: DemoAdmin): Promise<number> {
  const rows = await demo.t.services.db.selectFrom("roles").select("id")
    .where("site_id", "=", demo.siteId).execute();
  return rows.length;
}

Deno.test("every route parameter of an admin route is declared, and each admin folder checks ids in the URL", () => {
  for (const pattern of adminPatterns()) {
    for (const [, name] of pattern.matchAll(/:([A-Za-z_]+)/g)) {
      assert.ok(
        name in ADMIN_PARAM_KINDS,
        `${pattern}: declare ":${name}" in ADMIN_PARAM_KINDS`,
      );
    }
  }
  // The folders whose middleware admin routes share all run the check.
  for (const folder of ["admin", "api/plugins", "api/forms"]) {
    const entry = manifest.middlewares.find((m) => m.folder === folder);
    const list = [entry?.module.middleware].flat();
    assert.ok(list.includes(checkIdParams), folder);
  }
  assert.ok(isId("2f1c3c1e-6a1b-4c1d-9e2f-0a1b2c3d4e5f"));
  for (
    const bad of ["zzz", "editor", "", "00000000-0000-0000-0000-00000000000g"]
  ) {
    assert.equal(isId(bad), false, bad);
    assert.equal(formId({ role: bad }, "role", "Choose").ok, false);
  }
});

Deno.test("/admin/people/roles/zzz answers the admin's styled 404 page for GET and POST, and changes nothing", async () => {
  const demo = await setupDemo();
  try {
    const jar = await signedIn(demo);
    const people = await request(demo.t, jar, "/admin/people");
    const csrf = csrfField(await people.text());
    const before = await roleCount(demo);
    for (const path of ["/admin/people/roles/zzz", "/admin/models/editor"]) {
      const get = await request(demo.t, jar, path);
      assert.equal(get.status, 404, path);
      const html = await get.text();
      assert.match(
        html,
        /<link rel="stylesheet" href="\/_static\/admin\.css\?v=[0-9a-f]+">/,
      );
      assert.match(html, /<h1>Page not found<\/h1>/);
      assert.match(html, /href="\/admin">Back to the admin</);
    }
    const post = await request(demo.t, jar, "/admin/people/roles/zzz", {
      form: { _csrf: csrf, action: "delete" },
    });
    assert.equal(post.status, 404);
    assert.match(await post.text(), /Page not found/);
    assert.equal(await roleCount(demo), before);
    // A JSON helper answers its JSON 404.
    const json = await request(demo.t, jar, "/api/plugins/zzz", {
      headers: { accept: "application/json" },
    });
    assert.equal(json.status, 404);
    assert.equal((await json.json()).error.code, "not_found");
  } finally {
    await demo.t.close();
  }
});

Deno.test("the invite form with role=editor is shown again with the role's field error; nobody is invited", async () => {
  const demo = await setupDemo();
  try {
    const jar = await signedIn(demo);
    const page = await request(demo.t, jar, "/admin/people");
    const csrf = csrfField(await page.text());
    const before = await members(demo);
    const answer = await request(demo.t, jar, "/admin/people", {
      form: {
        _csrf: csrf,
        action: "invite",
        email: "grace@example.com",
        name: "Grace",
        role: "editor",
      },
    });
    assert.equal(answer.status, 422);
    const html = await answer.text();
    assert.match(html, /role="alert"[^>]*>Choose a role from the list</);
    assert.match(
      html,
      /<select id="invite-role" name="role" aria-invalid="true" aria-describedby="invite-role-error">/,
    );
    assert.match(
      html,
      /<p class="field-error" id="invite-role-error">Choose a role from the list<\/p>/,
    );
    // What was typed is kept.
    assert.match(
      html,
      /name="email" type="email" required value="grace@example.com"/,
    );
    assert.deepEqual(await members(demo), before);
    const user = await demo.t.services.db.selectFrom("users").select("id")
      .where("email", "=", "grace@example.com").executeTakeFirst();
    assert.equal(user, undefined);
  } finally {
    await demo.t.close();
  }
});

Deno.test("the member role form with user=zzz or role=zzz is shown again with an error; no role changes", async () => {
  const demo = await setupDemo();
  try {
    const jar = await signedIn(demo);
    const page = await request(demo.t, jar, "/admin/people");
    const csrf = csrfField(await page.text());
    const before = await members(demo);
    const role = before[0].role_id;
    const badUser = await request(demo.t, jar, "/admin/people", {
      form: { _csrf: csrf, action: "role", user: "zzz", role },
    });
    assert.equal(badUser.status, 422);
    assert.match(
      await badUser.text(),
      /role="alert"[^>]*>Choose a member from the list</,
    );
    const badRole = await request(demo.t, jar, "/admin/people", {
      form: { _csrf: csrf, action: "role", user: demo.adminId, role: "zzz" },
    });
    assert.equal(badRole.status, 422);
    const html = await badRole.text();
    assert.match(
      html,
      new RegExp(
        `<p class="field-error" id="role-error-${demo.adminId}">Choose a role from the list</p>`,
      ),
    );
    assert.deepEqual(await members(demo), before);
  } finally {
    await demo.t.close();
  }
});

Deno.test("the new role form with from=zzz is shown again with the field's error; no role is created", async () => {
  const demo = await setupDemo();
  try {
    const jar = await signedIn(demo);
    const page = await request(demo.t, jar, "/admin/people/roles");
    const csrf = csrfField(await page.text());
    const before = await roleCount(demo);
    for (const from of ["zzz", crypto.randomUUID()]) {
      const answer = await request(demo.t, jar, "/admin/people/roles", {
        form: { _csrf: csrf, name: "Reviewers", from },
      });
      assert.equal(answer.status, 422, from);
      assert.match(
        await answer.text(),
        /<p class="field-error" id="role-from-error">Choose a role to start from, or no permissions<\/p>/,
      );
    }
    assert.equal(await roleCount(demo), before);
  } finally {
    await demo.t.close();
  }
});

Deno.test("a new entry posted without a slug (no script to fill it in) is shown again asking for one; nothing is created", async () => {
  const demo = await setupDemo();
  try {
    const jar = await signedIn(demo);
    const page = await request(demo.t, jar, "/admin/content/tags/new");
    const csrf = csrfField(await page.text());
    const before = await demo.t.services.db.selectFrom("entry_groups")
      .select("id").execute();
    const answer = await request(demo.t, jar, "/admin/content/tags/new", {
      form: { _csrf: csrf, lang: "en", slug: "", "f.name": "Gardening" },
    });
    assert.equal(answer.status, 422);
    assert.match(await answer.text(), /Give this entry a slug/);
    const after = await demo.t.services.db.selectFrom("entry_groups")
      .select("id").execute();
    assert.equal(after.length, before.length);
  } finally {
    await demo.t.close();
  }
});

Deno.test("the admin's plugin JSON routes refuse a malformed id in the body with 400 invalid_request naming the field, before any lookup", async () => {
  const demo = await setupDemo();
  try {
    const jar = await signedIn(demo);
    const page = await request(demo.t, jar, "/admin/people");
    const csrf = csrfField(await page.text());
    const before = await demo.t.services.db.selectFrom("plugin_installations")
      .select("id").execute();
    // Shaped like an id to a loose check, but not one.
    const almost = "a".repeat(36);
    const cases: [string, unknown, string][] = [
      [
        `/api/plugins/${crypto.randomUUID()}/grant`,
        { capabilities: [], model_ids: [almost] },
        "model_ids.0",
      ],
      [
        `/api/plugins/${crypto.randomUUID()}/launch`,
        { kind: "content_action", action: "schedule", instance_id: "zzz" },
        "instance_id",
      ],
      [
        "/api/plugins",
        {
          manifest_url: "https://plugin.example/manifest.json",
          activation_code: "code",
          grant: { capabilities: [], model_ids: ["-".repeat(36)] },
        },
        "grant.model_ids.0",
      ],
    ];
    for (const [path, body, field] of cases) {
      const answer = await request(demo.t, jar, path, {
        method: "POST",
        headers: {
          accept: "application/json",
          "content-type": "application/json",
          "x-csrf-token": csrf,
        },
        body: JSON.stringify(body),
      });
      assert.equal(answer.status, 400, path);
      const error = (await answer.json()).error;
      assert.equal(error.code, "invalid_request");
      assert.equal(error.message, `${field}: must be an id`);
    }
    assert.deepEqual(
      await demo.t.services.db.selectFrom("plugin_installations").select("id")
        .execute(),
      before,
    );
  } finally {
    await demo.t.close();
  }
});
