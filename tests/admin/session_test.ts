// Admin sessions over HTTP: the home page, expiry, deactivation, lost access, sign-out.
import { equal, match, ok } from "node:assert/strict";
import { SESSION_LIFETIME_MS } from "../../core/auth/session_store.ts";
import { insertSite } from "../support/sites.ts";
import {
  addMember,
  CookieJar,
  csrfField,
  lastSetCookie,
  PASSWORD,
  request,
  setupAdmin,
  signInAs,
} from "./helpers.ts";

function assertSentToSignIn(res: Response): void {
  equal(res.status, 303);
  equal(res.headers.get("location"), "/admin/sign-in");
}

Deno.test("GET /admin sends a signed-out person to /admin/sign-in", async () => {
  const { t } = await setupAdmin();
  try {
    const res = await request(t, new CookieJar(), "/admin");
    assertSentToSignIn(res);
    equal(res.headers.get("cache-control"), "no-store");
  } finally {
    await t.close();
  }
});

Deno.test("GET /admin shows the dashboard inside the shell: site, signed-in person, sign-out form, no script", async () => {
  const { t } = await setupAdmin();
  try {
    const jar = new CookieJar();
    await signInAs(t, jar, { email: "ada@example.com", password: PASSWORD });
    const res = await request(t, jar, "/admin");
    equal(res.status, 200);
    equal(res.headers.get("cache-control"), "no-store");
    const html = await res.text();
    match(html, /<title>Dashboard · Stave<\/title>/);
    match(html, /<h1>Dashboard<\/h1>/);
    match(html, /<span class="muted">admin-example<\/span>/);
    match(
      html,
      /Signed in as <strong>Ada Lovelace<\/strong><br\/>ada@example\.com/,
    );
    match(html, /<h2 id="in-review">Waiting for review<\/h2>/);
    match(html, /No drafts are waiting for review\./);
    // The sign-out form carries the CSRF token.
    equal(csrfField(html), jar.cookies.get("stave_csrf"));
    // A page without islands ships no JavaScript.
    equal(/<script/.test(html), false);
  } finally {
    await t.close();
  }
});

Deno.test("a session works until 1 ms before its expiry and not at it", async () => {
  const { t } = await setupAdmin();
  try {
    const jar = new CookieJar();
    const token = await signInAs(t, jar, {
      email: "ada@example.com",
      password: PASSWORD,
    });
    t.clock.advance(SESSION_LIFETIME_MS - 1);
    equal((await request(t, jar, "/admin")).status, 200);
    t.clock.advance(1);
    const res = await request(t, jar, "/admin");
    assertSentToSignIn(res);
    // The dead cookie is cleared, with the same scope it was set with.
    const cleared = lastSetCookie(res, "stave_session");
    ok(cleared);
    equal(cleared.value, "");
    equal(cleared.attributes["max-age"], "0");
    equal(cleared.attributes.path, "/");
    equal(jar.cookies.has("stave_session"), false);
    // Even a browser that ignores Max-Age gets nothing for the old token.
    const stubborn = new CookieJar();
    stubborn.cookies.set("stave_session", token);
    assertSentToSignIn(await request(t, stubborn, "/admin"));
  } finally {
    await t.close();
  }
});

Deno.test("a deactivated person's session stops working on the next request", async () => {
  const { t, userId } = await setupAdmin();
  try {
    const jar = new CookieJar();
    await signInAs(t, jar, { email: "ada@example.com", password: PASSWORD });
    equal((await request(t, jar, "/admin")).status, 200);
    await t.services.db.updateTable("users").set({ status: "deactivated" })
      .where("id", "=", userId).execute();
    assertSentToSignIn(await request(t, jar, "/admin"));
  } finally {
    await t.close();
  }
});

Deno.test("a session stops working when the person loses access to the site", async () => {
  const { t, userId, siteId } = await setupAdmin();
  try {
    const jar = new CookieJar();
    await signInAs(t, jar, { email: "ada@example.com", password: PASSWORD });
    await t.services.db.deleteFrom("site_members")
      .where("site_id", "=", siteId).where("user_id", "=", userId).execute();
    assertSentToSignIn(await request(t, jar, "/admin"));
  } finally {
    await t.close();
  }
});

Deno.test("a session cookie from one site signs nobody in on a site the person cannot use", async () => {
  const { t, userId } = await setupAdmin();
  try {
    const jar = new CookieJar();
    const token = await signInAs(t, jar, {
      email: "ada@example.com",
      password: PASSWORD,
    });
    const other = await insertSite(t.services.db, {
      domain: "other.example.com",
    });
    const copied = new CookieJar();
    copied.cookies.set("stave_session", token);
    assertSentToSignIn(
      await request(t, copied, "/admin", { host: "other.example.com" }),
    );
    // Once a member there, the same person is the same person there too.
    await addMember(t.services.db, { siteId: other, userId });
    copied.cookies.set("stave_session", token);
    equal(
      (await request(t, copied, "/admin", { host: "other.example.com" }))
        .status,
      200,
    );
  } finally {
    await t.close();
  }
});

Deno.test("a malformed or unknown session cookie is cleared and the person is signed out", async () => {
  const { t } = await setupAdmin();
  try {
    for (const value of ["garbage", "A".repeat(43)]) {
      const jar = new CookieJar();
      jar.cookies.set("stave_session", value);
      const res = await request(t, jar, "/admin");
      assertSentToSignIn(res);
      equal(lastSetCookie(res, "stave_session")?.attributes["max-age"], "0");
    }
  } finally {
    await t.close();
  }
});

Deno.test("POST /admin/sign-out deletes the session, clears the cookie and sends to sign-in", async () => {
  const { t } = await setupAdmin();
  try {
    const jar = new CookieJar();
    const token = await signInAs(t, jar, {
      email: "ada@example.com",
      password: PASSWORD,
    });
    const home = await (await request(t, jar, "/admin")).text();
    const res = await request(t, jar, "/admin/sign-out", {
      form: { _csrf: csrfField(home) },
    });
    assertSentToSignIn(res);
    const cleared = lastSetCookie(res, "stave_session");
    equal(cleared?.attributes["max-age"], "0");
    equal(cleared?.attributes.httponly, "");
    equal(
      (await t.services.db.selectFrom("sessions").selectAll().execute())
        .length,
      0,
    );
    // Replaying the old cookie gets nothing.
    const replay = new CookieJar();
    replay.cookies.set("stave_session", token);
    assertSentToSignIn(await request(t, replay, "/admin"));
  } finally {
    await t.close();
  }
});

Deno.test("GET /admin/sign-out asks for confirmation with a form; signed out it sends to sign-in", async () => {
  const { t } = await setupAdmin();
  try {
    assertSentToSignIn(
      await request(t, new CookieJar(), "/admin/sign-out"),
    );
    const jar = new CookieJar();
    await signInAs(t, jar, { email: "ada@example.com", password: PASSWORD });
    const res = await request(t, jar, "/admin/sign-out");
    equal(res.status, 200);
    const html = await res.text();
    match(html, /<h1>Sign out<\/h1>/);
    match(html, /<form method="post" action="\/admin\/sign-out">/);
    equal(csrfField(html), jar.cookies.get("stave_csrf"));
    // Looking at the form signs nobody out.
    equal((await request(t, jar, "/admin")).status, 200);
  } finally {
    await t.close();
  }
});

Deno.test("POST /admin/sign-out without a session still answers the sign-in page redirect", async () => {
  const { t } = await setupAdmin();
  try {
    const jar = new CookieJar();
    await request(t, jar, "/admin/sign-in");
    const res = await request(t, jar, "/admin/sign-out", {
      form: { _csrf: jar.cookies.get("stave_csrf")! },
    });
    assertSentToSignIn(res);
  } finally {
    await t.close();
  }
});

Deno.test("PUT /admin answers 405 with Allow", async () => {
  const { t } = await setupAdmin();
  try {
    const jar = new CookieJar();
    await signInAs(t, jar, { email: "ada@example.com", password: PASSWORD });
    const res = await request(t, jar, "/admin", {
      method: "PUT",
      headers: { "x-csrf-token": jar.cookies.get("stave_csrf")! },
    });
    equal(res.status, 405);
    equal(res.headers.get("allow"), "GET");
  } finally {
    await t.close();
  }
});
