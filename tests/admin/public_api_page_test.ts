// /admin/settings/public-api: browser origins and site API tokens, for people holding site:infra (AUTH rows).
import { equal, match, ok } from "node:assert/strict";
import { administratorPermissions } from "../../core/access/default_roles.ts";
import { verifySiteToken } from "../../core/public/site_tokens.ts";
import { getBrowserOrigins } from "../../core/public/browser_origins.ts";
import { insertRole } from "../../core/access/_testing.ts";
import { createModel } from "../../core/models/mod.ts";
import { insertSite } from "../support/sites.ts";
import {
  CookieJar,
  csrfField,
  PASSWORD,
  request,
  setMemberPermissions,
  setupAdmin,
  signInAs,
} from "./helpers.ts";

Deno.test("an administrator sets browser origins and issues a site token shown once, then revokes it", async () => {
  const { t, siteId, userId, email } = await setupAdmin();
  try {
    await setMemberPermissions(
      t.services.db,
      userId,
      administratorPermissions(),
    );
    const jar = new CookieJar();
    await signInAs(t, jar, { email, password: PASSWORD });
    const csrf = csrfField(
      await (await request(t, jar, "/admin/settings/public-api")).text(),
    );
    const saved = await request(t, jar, "/admin/settings/public-api", {
      form: {
        _csrf: csrf,
        action: "origins",
        origins: "https://www.example.com\nhttps://app.example.com",
      },
    });
    equal(saved.status, 303);
    equal(
      (await getBrowserOrigins(t.services.db, siteId)).join(" "),
      "https://www.example.com https://app.example.com",
    );
    const bad = await request(t, jar, "/admin/settings/public-api", {
      form: {
        _csrf: csrf,
        action: "origins",
        origins: "https://www.example.com/path",
      },
    });
    // AUTH-005: an origin with a path is refused and the stored list is unchanged.
    equal(bad.status, 400);
    equal((await getBrowserOrigins(t.services.db, siteId)).length, 2);

    const issued = await request(t, jar, "/admin/settings/public-api", {
      form: { _csrf: csrf, action: "issue", name: "build" },
    });
    equal(issued.status, 201);
    const token = /<code id="created-token">(sv_site_[A-Za-z0-9_-]{43})<\/code>/
      .exec(await issued.text())?.[1];
    ok(token);
    const scope = await verifySiteToken(t.services, siteId, token);
    ok(scope);
    const listing = await (await request(t, jar, "/admin/settings/public-api"))
      .text();
    equal(listing.includes(token), false);
    match(listing, /build/);
    const revoked = await request(t, jar, "/admin/settings/public-api", {
      form: { _csrf: csrf, action: "revoke", id: scope.id },
    });
    equal(revoked.status, 303);
    equal(await verifySiteToken(t.services, siteId, token), null);
  } finally {
    await t.close();
  }
});

Deno.test("the public API page, browser origins included, refuses a person without site:infra (AUTH-005)", async () => {
  const { t, siteId, userId, email } = await setupAdmin();
  try {
    await setMemberPermissions(t.services.db, userId, {
      models: { "*": ["read"] },
      system: ["site:settings"],
    });
    const jar = new CookieJar();
    await signInAs(t, jar, { email, password: PASSWORD });
    equal((await request(t, jar, "/admin/settings/public-api")).status, 403);
    const csrf = csrfField(
      await (await request(t, jar, "/admin/settings/seo")).text(),
    );
    const saved = await request(t, jar, "/admin/settings/public-api", {
      form: { _csrf: csrf, action: "origins", origins: "https://a.example" },
    });
    equal(saved.status, 403);
    match(await saved.text(), /site:infra/);
    equal((await getBrowserOrigins(t.services.db, siteId)).length, 0);
  } finally {
    await t.close();
  }
});

Deno.test("Shared content: an administrator shares a public type with another site they belong to, is refused a second time, then stops sharing (AUTH-014)", async () => {
  const { t, siteId, userId, email } = await setupAdmin();
  try {
    const { db } = t.services;
    await setMemberPermissions(db, userId, administratorPermissions());
    const made = await createModel({ db, clock: t.clock, siteId }, {
      model: { name: "Articles", slug: "articles" },
      fields: [{ key: "title", label: "Title", type: "text" }],
    });
    if (!made.ok) throw new Error(JSON.stringify(made));
    const reader = await insertSite(db, {
      domain: "reader.example.com",
      slug: "reader",
    });
    await db.insertInto("site_members").values({
      site_id: reader,
      user_id: userId,
      role_id: await insertRole(
        db,
        reader,
        administratorPermissions(),
        t.clock,
      ),
      created_at: t.clock.now(),
    }).execute();
    const jar = new CookieJar();
    await signInAs(t, jar, { email, password: PASSWORD });
    const html = await (await request(t, jar, "/admin/settings/public-api"))
      .text();
    match(html, /<h2 id="shared-content-heading">Shared content<\/h2>/);
    match(html, /<option value="[0-9a-f-]{36}">reader<\/option>/);
    const csrf = csrfField(html);
    const form = {
      _csrf: csrf,
      action: "share",
      model: made.model_id,
      site: reader,
    };
    const shared = await request(t, jar, "/admin/settings/public-api", {
      form,
    });
    equal(shared.status, 303);
    const twice = await request(t, jar, "/admin/settings/public-api", {
      form,
    });
    equal(twice.status, 409);
    match(await twice.text(), /already shared with that site/);
    const grants = await db.selectFrom("shared_content_grants")
      .select(["id", "revoked_at"]).execute();
    equal(grants.length, 1);
    const listing = await (await request(t, jar, "/admin/settings/public-api"))
      .text();
    match(listing, /Stop sharing/);
    const stopped = await request(t, jar, "/admin/settings/public-api", {
      form: { _csrf: csrf, action: "unshare", id: grants[0].id },
    });
    equal(stopped.status, 303);
    const after = await db.selectFrom("shared_content_grants")
      .select("revoked_at").executeTakeFirstOrThrow();
    ok(after.revoked_at);
  } finally {
    await t.close();
  }
});
