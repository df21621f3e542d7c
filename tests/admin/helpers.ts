// Test helpers for the admin pages: people with passwords, a cookie jar and a sign-in through the form.
import { equal, ok } from "node:assert/strict";
import { hashPassword } from "../../core/auth/password.ts";
import type { Db } from "../../core/db/database.ts";
import { openTestApp, type TestApp } from "../support/app.ts";
import { insertSite } from "../support/sites.ts";

/** Cheap scrypt parameters, so tests do not spend a second per hash. */
export const FAST_SCRYPT = { N: 2 ** 10, r: 8, p: 1 };

/** The Host every admin test speaks to. */
export const HOST = "admin.example.com";

/** Options of {@link insertPerson}. */
export interface InsertPersonOptions {
  email: string;
  password: string;
  displayName?: string;
  status?: "active" | "deactivated";
  /** Sites the person is a member of. */
  siteIds?: string[];
}

/** Creates a person with a password and memberships; answers their id. */
export async function insertPerson(
  db: Db,
  options: InsertPersonOptions,
): Promise<string> {
  const id = crypto.randomUUID();
  const now = new Date("2026-01-01T00:00:00.000Z");
  await db.insertInto("users").values({
    id,
    email: options.email.toLowerCase(),
    display_name: options.displayName ?? options.email.split("@")[0],
    password_hash: await hashPassword(options.password, FAST_SCRYPT),
    status: options.status ?? "active",
    created_at: now,
  }).execute();
  for (const siteId of options.siteIds ?? []) {
    await addMember(db, { siteId, userId: id });
  }
  return id;
}

/** Makes a person a member of a site with an (empty) role of its own. */
export async function addMember(
  db: Db,
  options: { siteId: string; userId: string },
): Promise<void> {
  const now = new Date("2026-01-01T00:00:00.000Z");
  const roleId = crypto.randomUUID();
  await db.insertInto("roles").values({
    id: roleId,
    site_id: options.siteId,
    name: `role-${roleId}`,
    permissions: JSON.stringify({ models: {}, system: [] }),
    created_at: now,
  }).execute();
  await db.insertInto("site_members").values({
    site_id: options.siteId,
    user_id: options.userId,
    role_id: roleId,
    created_at: now,
  }).execute();
}

/** One parsed `Set-Cookie` line. */
export interface SetCookie {
  name: string;
  value: string;
  /** Attribute names lowercased; flags map to "". */
  attributes: Record<string, string>;
}

/** Parses every `Set-Cookie` of a response. */
export function setCookies(res: Response): SetCookie[] {
  return res.headers.getSetCookie().map((line) => {
    const [pair, ...attrs] = line.split(";").map((part) => part.trim());
    const eq = pair.indexOf("=");
    const attributes: Record<string, string> = {};
    for (const attr of attrs) {
      const i = attr.indexOf("=");
      if (i === -1) attributes[attr.toLowerCase()] = "";
      else attributes[attr.slice(0, i).toLowerCase()] = attr.slice(i + 1);
    }
    return {
      name: pair.slice(0, eq),
      value: decodeURIComponent(pair.slice(eq + 1)),
      attributes,
    };
  });
}

/** The last `Set-Cookie` of `name` in a response, the one a browser keeps. */
export function lastSetCookie(
  res: Response,
  name: string,
): SetCookie | undefined {
  return setCookies(res).filter((c) => c.name === name).at(-1);
}

/** A browser's cookie store for one host, fed from answers and sent with requests. */
export class CookieJar {
  readonly cookies = new Map<string, string>();

  /** Takes in the cookies of an answer; Max-Age=0 removes one. */
  store(res: Response): void {
    for (const cookie of setCookies(res)) {
      if (cookie.attributes["max-age"] === "0" || cookie.value === "") {
        this.cookies.delete(cookie.name);
      } else {
        this.cookies.set(cookie.name, cookie.value);
      }
    }
  }

  /** The `Cookie` header value, or undefined when empty. */
  header(): string | undefined {
    if (this.cookies.size === 0) return undefined;
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join("; ");
  }
}

/** Options of {@link request}. */
export interface RequestOptions {
  method?: string;
  /** Sent as an urlencoded form; a list sends the name once per value. */
  form?: Record<string, string | string[]>;
  /** Sent as is (set its content-type in `headers`); ignored when `form` is given. */
  body?: string;
  host?: string;
  headers?: Record<string, string>;
  /** What Deno.serve would pass as the handler info (the client's address). */
  remoteAddr?: string;
}

/** Sends a request through `app.request()` with the jar's cookies, and stores what comes back. */
export async function request(
  t: TestApp,
  jar: CookieJar,
  path: string,
  options: RequestOptions = {},
): Promise<Response> {
  const headers: Record<string, string> = {
    host: options.host ?? HOST,
    accept: "text/html",
    ...options.headers,
  };
  const cookie = jar.header();
  if (cookie) headers.cookie = cookie;
  let body: string | undefined = options.body;
  if (options.form) {
    headers["content-type"] = "application/x-www-form-urlencoded";
    body = new URLSearchParams(
      Object.entries(options.form).flatMap(([name, value]) =>
        Array.isArray(value) ? value.map((v) => [name, v]) : [[name, value]]
      ),
    ).toString();
  }
  const env = options.remoteAddr
    ? {
      remoteAddr: { transport: "tcp", hostname: options.remoteAddr, port: 1 },
    }
    : undefined;
  const res = await t.app.request(
    path,
    {
      method: options.method ?? (options.form ? "POST" : "GET"),
      headers,
      body,
    },
    env,
  );
  jar.store(res);
  return res;
}

/** The value of the hidden `_csrf` field of a page. */
export function csrfField(html: string): string {
  const match = /name="_csrf" value="([^"]+)"/.exec(html);
  ok(match, "expected a hidden _csrf field in the page");
  return match[1];
}

/** Loads the sign-in form and answers its CSRF token (the jar now holds the CSRF cookie). */
export async function openSignInForm(
  t: TestApp,
  jar: CookieJar,
  host = HOST,
): Promise<string> {
  const res = await request(t, jar, "/admin/sign-in", { host });
  equal(res.status, 200);
  return csrfField(await res.text());
}

/** Posts the sign-in form the way a browser would; answers the response. */
export async function postSignIn(
  t: TestApp,
  jar: CookieJar,
  options: {
    email: string;
    password: string;
    host?: string;
    remoteAddr?: string;
  },
): Promise<Response> {
  const csrf = await openSignInForm(t, jar, options.host);
  return await request(t, jar, "/admin/sign-in", {
    host: options.host,
    remoteAddr: options.remoteAddr,
    form: { _csrf: csrf, email: options.email, password: options.password },
  });
}

/** Signs in and checks it worked; answers the session token the jar now holds. */
export async function signInAs(
  t: TestApp,
  jar: CookieJar,
  options: {
    email: string;
    password: string;
    host?: string;
    remoteAddr?: string;
  },
): Promise<string> {
  const res = await postSignIn(t, jar, options);
  equal(res.status, 303, "sign-in should redirect");
  equal(res.headers.get("location"), "/admin");
  const token = jar.cookies.get("stave_session");
  ok(token, "expected a session cookie");
  return token;
}

/** The text of a page's `role="alert"` message, or null. */
export function alertText(html: string): string | null {
  return /role="alert"[^>]*>([^<]*)</.exec(html)?.[1] ?? null;
}

/** The password of {@link setupAdmin}'s person. */
export const PASSWORD = "correct horse battery staple";

/** An app with one site on {@link HOST} (languages en, de) and one active member, Ada. */
export async function setupAdmin(
  options: { env?: Record<string, string> } = {},
): Promise<{ t: TestApp; siteId: string; userId: string; email: string }> {
  const t = await openTestApp({ env: options.env });
  try {
    const siteId = await insertSite(t.services.db, {
      domain: HOST,
      slug: "admin-example",
      languages: ["en", "de"],
    });
    const email = "ada@example.com";
    const userId = await insertPerson(t.services.db, {
      email,
      password: PASSWORD,
      displayName: "Ada Lovelace",
      siteIds: [siteId],
    });
    return { t, siteId, userId, email };
  } catch (error) {
    await t.close();
    throw error;
  }
}

/** Replaces the permissions of the role a member holds (each member of {@link addMember} has their own). */
export async function setMemberPermissions(
  db: Db,
  userId: string,
  permissions: unknown,
): Promise<void> {
  const member = await db.selectFrom("site_members").select("role_id")
    .where("user_id", "=", userId).executeTakeFirstOrThrow();
  await db.updateTable("roles").set({
    permissions: JSON.stringify(permissions),
  })
    .where("id", "=", member.role_id).execute();
}
