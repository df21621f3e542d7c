// /admin/sign-in: the form, who may sign in, the cookie it sets, the rate window.
import { deepEqual, equal, match, notEqual, ok } from "node:assert/strict";
import { sha256Hex } from "../../core/auth/secrets.ts";
import { SIGN_IN_LIMIT, SIGN_IN_WINDOW_MS } from "../../core/auth/sign_in.ts";
import { insertSite } from "../support/sites.ts";
import {
  alertText,
  CookieJar,
  csrfField,
  HOST,
  insertPerson,
  lastSetCookie,
  PASSWORD,
  postSignIn,
  request,
  setupAdmin,
  signInAs,
} from "./helpers.ts";

const FAILED =
  "The email or password is not right, or this account cannot sign in here";

Deno.test("GET /admin/sign-in renders a labelled form with a hidden _csrf equal to the CSRF cookie", async () => {
  const { t } = await setupAdmin();
  try {
    const jar = new CookieJar();
    const res = await request(t, jar, "/admin/sign-in");
    equal(res.status, 200);
    equal(res.headers.get("cache-control"), "no-store");
    const html = await res.text();
    equal(csrfField(html), jar.cookies.get("stave_csrf"));
    match(html, /<h1>Sign in<\/h1>/);
    match(html, /<label for="email">Email<\/label>/);
    match(html, /<input id="email" name="email" type="email"/);
    match(html, /<label for="password">Password<\/label>/);
    match(html, /<input id="password" name="password" type="password"/);
    match(html, /<form method="post" action="\/admin\/sign-in"/);
    match(html, /href="\/_static\/admin.css\?v=[0-9a-f]+"/);
    // A page without islands ships no script.
    equal(html.includes("<script"), false);
  } finally {
    await t.close();
  }
});

Deno.test("GET /admin/sign-in refuses an unknown host with 404", async () => {
  const { t } = await setupAdmin();
  try {
    const res = await request(t, new CookieJar(), "/admin/sign-in", {
      host: "other.example.com",
    });
    equal(res.status, 404);
    match(await res.text(), /No site answers this host/);
  } finally {
    await t.close();
  }
});

Deno.test("POST /admin/sign-in with the right password sets the session cookie and redirects to /admin", async () => {
  const { t, userId } = await setupAdmin();
  try {
    const jar = new CookieJar();
    const res = await postSignIn(t, jar, {
      email: "ada@example.com",
      password: PASSWORD,
    });
    equal(res.status, 303);
    equal(res.headers.get("location"), "/admin");
    const cookie = lastSetCookie(res, "stave_session");
    ok(cookie);
    match(cookie.value, /^[A-Za-z0-9_-]{43}$/);
    deepEqual(cookie.attributes, {
      "max-age": "43200",
      path: "/",
      httponly: "",
      samesite: "Lax",
    });
    const rows = await t.services.db.selectFrom("sessions").selectAll()
      .execute();
    equal(rows.length, 1);
    equal(rows[0].user_id, userId);
    // Only the digest is stored, never the token itself.
    equal(rows[0].token_digest, await sha256Hex(cookie.value));
    equal(JSON.stringify(rows).includes(cookie.value), false);
    equal(
      new Date(rows[0].expires_at).toISOString(),
      "2026-11-23T22:00:00.000Z",
    );
  } finally {
    await t.close();
  }
});

Deno.test("POST /admin/sign-in marks the session cookie Secure when the public URL is https", async () => {
  const { t } = await setupAdmin({
    env: { PUBLIC_URL: "https://admin.example.com" },
  });
  try {
    const res = await postSignIn(t, new CookieJar(), {
      email: "ada@example.com",
      password: PASSWORD,
    });
    equal(res.status, 303);
    const cookie = lastSetCookie(res, "stave_session");
    ok(cookie);
    equal(cookie.attributes.secure, "");
    equal(cookie.attributes.httponly, "");
    equal(cookie.attributes.samesite, "Lax");
  } finally {
    await t.close();
  }
});

Deno.test("POST /admin/sign-in matches the email whatever its case and spaces", async () => {
  const { t } = await setupAdmin();
  try {
    await signInAs(t, new CookieJar(), {
      email: "  Ada@Example.COM ",
      password: PASSWORD,
    });
  } finally {
    await t.close();
  }
});

Deno.test("POST /admin/sign-in refuses a wrong password, an unknown email, a deactivated person and a non-member alike with 401", async () => {
  const { t } = await setupAdmin();
  try {
    const otherSite = await insertSite(t.services.db, {
      domain: "other.example.com",
    });
    await insertPerson(t.services.db, {
      email: "gone@example.com",
      password: PASSWORD,
      status: "deactivated",
    });
    await insertPerson(t.services.db, {
      email: "elsewhere@example.com",
      password: PASSWORD,
      siteIds: [otherSite],
    });
    const attempts = [
      { email: "ada@example.com", password: "wrong password entirely" },
      { email: "nobody@example.com", password: PASSWORD },
      { email: "gone@example.com", password: PASSWORD },
      { email: "elsewhere@example.com", password: PASSWORD },
    ];
    for (const attempt of attempts) {
      const jar = new CookieJar();
      const res = await postSignIn(t, jar, attempt);
      equal(res.status, 401, attempt.email);
      equal(lastSetCookie(res, "stave_session"), undefined, attempt.email);
      const html = await res.text();
      equal(alertText(html), FAILED, attempt.email);
      // The email stays in the form; the password never comes back.
      match(html, new RegExp(`value="${attempt.email}"`));
      equal(html.includes(attempt.password), false, attempt.email);
    }
    const sessions = await t.services.db.selectFrom("sessions").selectAll()
      .execute();
    equal(sessions.length, 0);
    const reasons = t.logs.filter((l) => l.msg === "sign_in_failed").map((
      l,
    ) => l.reason);
    deepEqual(reasons, [
      "wrong_password",
      "unknown_email",
      "deactivated",
      "no_site_access",
    ]);
  } finally {
    await t.close();
  }
});

Deno.test("POST /admin/sign-in lets a member of the other site in there but not here", async () => {
  const { t } = await setupAdmin();
  try {
    const otherSite = await insertSite(t.services.db, {
      domain: "other.example.com",
    });
    await insertPerson(t.services.db, {
      email: "elsewhere@example.com",
      password: PASSWORD,
      siteIds: [otherSite],
    });
    await signInAs(t, new CookieJar(), {
      email: "elsewhere@example.com",
      password: PASSWORD,
      host: "other.example.com",
    });
    const res = await postSignIn(t, new CookieJar(), {
      email: "elsewhere@example.com",
      password: PASSWORD,
    });
    equal(res.status, 401);
  } finally {
    await t.close();
  }
});

Deno.test("POST /admin/sign-in answers 400 when the email or password is missing or too long", async () => {
  const { t } = await setupAdmin();
  try {
    const cases = [
      { email: "", password: PASSWORD },
      { email: "ada@example.com", password: "" },
      { email: "a".repeat(243) + "@example.com", password: PASSWORD },
      { email: "ada@example.com", password: "x".repeat(1025) },
    ];
    for (const attempt of cases) {
      const res = await postSignIn(t, new CookieJar(), attempt);
      equal(res.status, 400);
      equal(alertText(await res.text()), "Enter your email and your password");
    }
    // The longest accepted password is checked, not refused as malformed.
    const edge = await postSignIn(t, new CookieJar(), {
      email: "ada@example.com",
      password: "x".repeat(1024),
    });
    equal(edge.status, 401);
    equal(
      (await t.services.db.selectFrom("sessions").selectAll().execute()).length,
      0,
    );
  } finally {
    await t.close();
  }
});

Deno.test("POST /admin/sign-in allows 10 attempts per email and address in 15 minutes, then 429 until the window ends", async () => {
  const { t } = await setupAdmin();
  try {
    const ip = "203.0.113.7";
    // The clock starts on a window boundary (10:00), so the window ends at 10:15.
    for (let i = 1; i <= SIGN_IN_LIMIT; i++) {
      const res = await postSignIn(t, new CookieJar(), {
        email: "ada@example.com",
        password: `wrong ${i}`,
        remoteAddr: ip,
      });
      equal(res.status, 401, `attempt ${i}`);
    }
    t.clock.advance(SIGN_IN_WINDOW_MS - 60_001);
    const refused = await postSignIn(t, new CookieJar(), {
      email: "ADA@example.com",
      password: PASSWORD,
      remoteAddr: ip,
    });
    equal(refused.status, 429);
    equal(refused.headers.get("retry-after"), "61");
    equal(
      alertText(await refused.text()),
      "Too many sign-in attempts: try again in 2 minutes",
    );
    equal(lastSetCookie(refused, "stave_session"), undefined);
    // Another address, or another email from this address, has its own window.
    await signInAs(t, new CookieJar(), {
      email: "ada@example.com",
      password: PASSWORD,
      remoteAddr: "198.51.100.1",
    });
    const otherEmail = await postSignIn(t, new CookieJar(), {
      email: "nobody@example.com",
      password: PASSWORD,
      remoteAddr: ip,
    });
    equal(otherEmail.status, 401);
    // The next window starts afresh.
    t.clock.advance(60_001);
    const again = await postSignIn(t, new CookieJar(), {
      email: "ada@example.com",
      password: PASSWORD,
      remoteAddr: ip,
    });
    equal(again.status, 303);
  } finally {
    await t.close();
  }
});

Deno.test("POST /admin/sign-in ends the session the browser held before and issues a new token", async () => {
  const { t } = await setupAdmin();
  try {
    const jar = new CookieJar();
    const first = await signInAs(t, jar, {
      email: "ada@example.com",
      password: PASSWORD,
    });
    // The form redirects a signed-in person, so post with the token the CSRF cookie holds.
    const second = await request(t, jar, "/admin/sign-in", {
      form: {
        _csrf: jar.cookies.get("stave_csrf")!,
        email: "ada@example.com",
        password: PASSWORD,
      },
    });
    equal(second.status, 303);
    notEqual(jar.cookies.get("stave_session"), first);
    const rows = await t.services.db.selectFrom("sessions").select(
      "token_digest",
    ).execute();
    deepEqual(rows.map((r) => r.token_digest), [
      await sha256Hex(jar.cookies.get("stave_session")!),
    ]);
  } finally {
    await t.close();
  }
});

Deno.test("GET /admin/sign-in sends a signed-in person to /admin", async () => {
  const { t } = await setupAdmin();
  try {
    const jar = new CookieJar();
    await signInAs(t, jar, { email: "ada@example.com", password: PASSWORD });
    const res = await request(t, jar, "/admin/sign-in");
    equal(res.status, 303);
    equal(res.headers.get("location"), "/admin");
  } finally {
    await t.close();
  }
});

Deno.test("sign-in never logs the session token or the password", async () => {
  const { t } = await setupAdmin();
  try {
    const jar = new CookieJar();
    await postSignIn(t, jar, {
      email: "ada@example.com",
      password: "a wrong password",
    });
    const token = await signInAs(t, jar, {
      email: "ada@example.com",
      password: PASSWORD,
    });
    await request(t, jar, "/admin");
    const csrf = jar.cookies.get("stave_csrf")!;
    await request(t, jar, "/admin/sign-out", { form: { _csrf: csrf } });
    const logged = JSON.stringify(t.logs);
    ok(t.logs.some((l) => l.msg === "signed_in"));
    ok(t.logs.some((l) => l.msg === "signed_out"));
    equal(logged.includes(token), false);
    equal(logged.includes(await sha256Hex(token)), false);
    equal(logged.includes(PASSWORD), false);
    equal(logged.includes("a wrong password"), false);
    equal(logged.includes(csrf), false);
  } finally {
    await t.close();
  }
});

Deno.test("POST /admin/sign-in needs a form: another body type answers 400", async () => {
  const { t } = await setupAdmin();
  try {
    const res = await t.app.request("/admin/sign-in", {
      method: "POST",
      headers: {
        host: HOST,
        "content-type": "application/json",
        accept: "text/html",
      },
      body: JSON.stringify({ email: "ada@example.com", password: PASSWORD }),
    });
    equal(res.status, 400);
    equal(lastSetCookie(res, "stave_session"), undefined);
  } finally {
    await t.close();
  }
});
