// /admin/settings/api: a person holding site:settings creates and revokes management credentials (MCR-001, MCR-005).
import { equal, match, ok } from "node:assert/strict";
import { administratorPermissions } from "../../core/access/default_roles.ts";
import { findCredentialBySecret } from "../../core/credentials/credential_store.ts";
import {
  CookieJar,
  csrfField,
  PASSWORD,
  request,
  setMemberPermissions,
  setupAdmin,
  signInAs,
} from "./helpers.ts";

Deno.test("an administrator creates a credential, sees its secret once, and revokes it (MCR-002)", async () => {
  const { t, userId, email } = await setupAdmin();
  try {
    await setMemberPermissions(
      t.services.db,
      userId,
      administratorPermissions(),
    );
    const jar = new CookieJar();
    await signInAs(t, jar, { email, password: PASSWORD });
    const form = await request(t, jar, "/admin/settings/api");
    equal(form.status, 200);
    const csrf = csrfField(await form.text());
    const created = await request(t, jar, "/admin/settings/api", {
      form: {
        _csrf: csrf,
        action: "create",
        name: "deploy bot",
        scope: "content:read",
      },
    });
    equal(created.status, 201);
    equal(created.headers.get("cache-control"), "no-store");
    const html = await created.text();
    const secret = /<code id="created-secret">(svm_[A-Za-z0-9_-]{43})<\/code>/
      .exec(html)?.[1];
    ok(secret, "the page shows the new secret");
    const credential = await findCredentialBySecret(t.services.db, secret);
    equal(credential?.name, "deploy bot");
    equal(credential?.creatorId, userId);

    const again = await request(t, jar, "/admin/settings/api");
    const listing = await again.text();
    equal(listing.includes(secret), false, "the secret is never shown again");
    match(listing, /deploy bot/);

    const revoked = await request(t, jar, "/admin/settings/api", {
      form: { _csrf: csrf, action: "revoke", id: credential!.id },
    });
    equal(revoked.status, 303);
    equal(await findCredentialBySecret(t.services.db, secret), null);
    equal(JSON.stringify(t.logs).includes(secret), false);
  } finally {
    await t.close();
  }
});

Deno.test("the credentials page refuses a person without site:settings, and a grant beyond what the creator holds (MCR-004)", async () => {
  const { t, userId, email } = await setupAdmin();
  try {
    const jar = new CookieJar();
    await signInAs(t, jar, { email, password: PASSWORD });
    equal((await request(t, jar, "/admin/settings/api")).status, 403);

    await setMemberPermissions(t.services.db, userId, {
      models: { "*": ["read"] },
      system: ["site:settings"],
    });
    const csrf = csrfField(
      await (await request(t, jar, "/admin/settings/api")).text(),
    );
    const refused = await request(t, jar, "/admin/settings/api", {
      form: {
        _csrf: csrf,
        action: "create",
        name: "too much",
        scope: "lifecycle:publish",
      },
    });
    equal(refused.status, 422);
    match(await refused.text(), /not held: lifecycle:publish/);
    equal(
      (await t.services.db.selectFrom("management_credentials").selectAll()
        .execute()).length,
      0,
    );
  } finally {
    await t.close();
  }
});
