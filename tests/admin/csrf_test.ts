// CSRF on the admin forms: a missing or wrong token refuses with 403 and changes nothing.
import { equal, match } from "node:assert/strict";
import { randomToken } from "../../core/auth/secrets.ts";
import {
  CookieJar,
  HOST,
  lastSetCookie,
  openSignInForm,
  PASSWORD,
  request,
  setupAdmin,
  signInAs,
} from "./helpers.ts";

const CSRF_MESSAGE = "The form is out of date: reload the page and try again";

async function sessionCount(
  t: Awaited<ReturnType<typeof setupAdmin>>["t"],
): Promise<number> {
  return (await t.services.db.selectFrom("sessions").selectAll().execute())
    .length;
}

Deno.test("POST /admin/sign-in without or with a wrong _csrf answers 403 csrf_failed and signs nobody in", async () => {
  const { t } = await setupAdmin();
  try {
    const cases: [string, Record<string, string>][] = [
      ["missing", {}],
      ["empty", { _csrf: "" }],
      ["wrong", { _csrf: randomToken() }],
    ];
    for (const [label, extra] of cases) {
      const jar = new CookieJar();
      await openSignInForm(t, jar);
      const res = await request(t, jar, "/admin/sign-in", {
        form: { ...extra, email: "ada@example.com", password: PASSWORD },
      });
      equal(res.status, 403, label);
      match(await res.text(), new RegExp(CSRF_MESSAGE), label);
      equal(lastSetCookie(res, "stave_session"), undefined, label);
    }
    equal(await sessionCount(t), 0);
    // The refusal happens before any sign-in attempt is made or counted.
    equal(t.logs.some((l) => l.msg === "sign_in_failed"), false);
  } finally {
    await t.close();
  }
});

Deno.test("POST /admin/sign-in with a token but no CSRF cookie answers 403", async () => {
  const { t } = await setupAdmin();
  try {
    const jar = new CookieJar();
    const token = await openSignInForm(t, jar);
    jar.cookies.delete("stave_csrf");
    const res = await request(t, jar, "/admin/sign-in", {
      form: { _csrf: token, email: "ada@example.com", password: PASSWORD },
    });
    equal(res.status, 403);
    equal(await sessionCount(t), 0);
  } finally {
    await t.close();
  }
});

Deno.test("POST /admin/sign-in from another origin answers 403 even with the right token", async () => {
  const { t } = await setupAdmin();
  try {
    const jar = new CookieJar();
    const token = await openSignInForm(t, jar);
    const res = await request(t, jar, "/admin/sign-in", {
      headers: { origin: "https://evil.example.net" },
      form: { _csrf: token, email: "ada@example.com", password: PASSWORD },
    });
    equal(res.status, 403);
    equal(await sessionCount(t), 0);
  } finally {
    await t.close();
  }
});

Deno.test("POST /admin/sign-out without or with a wrong _csrf answers 403 and the session lives on", async () => {
  const { t } = await setupAdmin();
  try {
    const jar = new CookieJar();
    await signInAs(t, jar, { email: "ada@example.com", password: PASSWORD });
    const forms: Record<string, string>[] = [{}, { _csrf: randomToken() }];
    for (const form of forms) {
      const res = await request(t, jar, "/admin/sign-out", { form });
      equal(res.status, 403);
      match(await res.text(), new RegExp(CSRF_MESSAGE));
      equal(lastSetCookie(res, "stave_session"), undefined);
    }
    equal(await sessionCount(t), 1);
    equal((await request(t, jar, "/admin")).status, 200);
  } finally {
    await t.close();
  }
});

Deno.test("a script write carrying the session cookie needs the x-csrf-token header (JSON 403 csrf_failed)", async () => {
  const { t } = await setupAdmin();
  try {
    const jar = new CookieJar();
    const session = await signInAs(t, jar, {
      email: "ada@example.com",
      password: PASSWORD,
    });
    // /health is a JSON route; the CSRF check runs before its 405.
    const res = await t.app.request("/health", {
      method: "POST",
      headers: {
        host: HOST,
        cookie: `stave_session=${session}; stave_csrf=${
          jar.cookies.get("stave_csrf")
        }`,
        "content-type": "application/json",
      },
      body: "{}",
    });
    equal(res.status, 403);
    equal((await res.json()).error.code, "csrf_failed");
  } finally {
    await t.close();
  }
});
