// /admin/settings/source-delivery: deployed API read tokens over HTTP, for people holding
// site:infra; the forms work without JavaScript (plain posts, 303 after each change).
import { deepEqual, equal, match, ok } from "node:assert/strict";
import { administratorPermissions } from "../../core/access/default_roles.ts";
import { sha256Hex } from "../../core/auth/secrets.ts";
import { createModel } from "../../core/models/mod.ts";
import {
  CookieJar,
  csrfField,
  PASSWORD,
  request,
  setMemberPermissions,
  setupAdmin,
  signInAs,
} from "./helpers.ts";

const PAGE = "/admin/settings/source-delivery";

async function tokenRows(t: Awaited<ReturnType<typeof setupAdmin>>["t"]) {
  return await t.services.db.selectFrom("deployed_read_tokens").selectAll()
    .orderBy("created_at").orderBy("id").execute();
}

Deno.test("GACC-010 GACC-012: an administrator issues a read token shown once, rotates it, then revokes the old one", async () => {
  const { t, siteId, userId, email } = await setupAdmin();
  try {
    const { db } = t.services;
    await setMemberPermissions(db, userId, administratorPermissions());
    const made = await createModel({ db, clock: t.clock, siteId }, {
      model: { name: "Articles", slug: "articles" },
      fields: [{ key: "title", label: "Title", type: "text" }],
    });
    if (!made.ok) throw new Error(JSON.stringify(made));
    const jar = new CookieJar();
    await signInAs(t, jar, { email, password: PASSWORD });
    const index = await (await request(t, jar, "/admin/settings")).text();
    match(index, /href="\/admin\/settings\/source-delivery"/);
    const html = await (await request(t, jar, PAGE)).text();
    match(html, /<label for="token-name">Name<\/label>/);
    match(html, new RegExp(`name="model" value="${made.model_id}"`));
    const csrf = csrfField(html);

    // GACC-011: no model chosen is refused and nothing is stored.
    const empty = await request(t, jar, PAGE, {
      form: { _csrf: csrf, action: "issue", name: "App" },
    });
    equal(empty.status, 400);
    match(await empty.text(), /Choose 1 to 100 models/);
    equal((await tokenRows(t)).length, 0);

    const issued = await request(t, jar, PAGE, {
      form: { _csrf: csrf, action: "issue", name: "App", model: made.model_id },
    });
    equal(issued.status, 201);
    const token = /<code id="created-token">(sv_art_[A-Za-z0-9_-]{43})<\/code>/
      .exec(await issued.text())?.[1];
    ok(token);
    const [row] = await tokenRows(t);
    equal(row.digest, await sha256Hex(token));
    deepEqual(row.model_ids, [made.model_id]);
    // Shown once: the listing never shows the secret again.
    const listing = await (await request(t, jar, PAGE)).text();
    equal(listing.includes(token), false);
    match(listing, /<td>App/);
    match(listing, /<td>Articles<\/td>/);

    t.clock.advance(1_000);
    const rotated = await request(t, jar, PAGE, {
      form: { _csrf: csrf, action: "rotate", id: row.id },
    });
    equal(rotated.status, 201);
    const rotatedHtml = await rotated.text();
    const next = /<code id="created-token">(sv_art_[A-Za-z0-9_-]{43})<\/code>/
      .exec(rotatedHtml)?.[1];
    ok(next && next !== token);
    match(rotatedHtml, /The old token keeps working/);
    const [old, fresh] = await tokenRows(t);
    equal(old.revoked_at, null);
    equal(fresh.replaces, old.id);

    const revoked = await request(t, jar, PAGE, {
      form: { _csrf: csrf, action: "revoke", id: old.id },
    });
    equal(revoked.status, 303);
    equal(revoked.headers.get("location"), PAGE);
    ok((await tokenRows(t))[0].revoked_at);
    const again = await request(t, jar, PAGE, {
      form: { _csrf: csrf, action: "revoke", id: old.id },
    });
    equal(again.status, 404);
    match(await again.text(), /already revoked/);
  } finally {
    await t.close();
  }
});

Deno.test("GACC-010: the Source & delivery page and its forms refuse a person without site:infra, and a post without the CSRF field", async () => {
  const { t, siteId, userId, email } = await setupAdmin();
  try {
    const { db } = t.services;
    const made = await createModel({ db, clock: t.clock, siteId }, {
      model: { name: "Articles", slug: "articles" },
      fields: [{ key: "title", label: "Title", type: "text" }],
    });
    if (!made.ok) throw new Error(JSON.stringify(made));
    await setMemberPermissions(db, userId, administratorPermissions());
    const jar = new CookieJar();
    await signInAs(t, jar, { email, password: PASSWORD });
    const csrf = csrfField(await (await request(t, jar, PAGE)).text());
    const forged = await request(t, jar, PAGE, {
      form: { action: "issue", name: "App", model: made.model_id },
    });
    equal(forged.status, 403);
    equal((await tokenRows(t)).length, 0);

    await setMemberPermissions(db, userId, {
      models: { "*": ["read"] },
      system: ["site:settings", "site:deploy"],
    });
    equal((await request(t, jar, PAGE)).status, 403);
    const refused = await request(t, jar, PAGE, {
      form: { _csrf: csrf, action: "issue", name: "App", model: made.model_id },
    });
    equal(refused.status, 403);
    match(await refused.text(), /site:infra/);
    equal((await tokenRows(t)).length, 0);
  } finally {
    await t.close();
  }
});
