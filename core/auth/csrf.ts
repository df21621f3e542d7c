// CSRF protection: a double-submit token on every form post, and on any cookie-carrying write.
import type { Context, Next } from "hono";
import { getCookie, setCookie } from "hono/cookie";
import type { Config } from "../config.ts";
import type { AppEnv } from "../web/env.ts";
import type { RouteStep } from "../web/app.ts";
import { HttpError } from "../web/errors.ts";
import { randomToken, secretsEqual } from "./secrets.ts";
import { SESSION_COOKIE } from "./cookies.ts";

/** Cookie holding the CSRF token; forms echo it in a hidden `_csrf` field. */
export const CSRF_COOKIE = "stave_csrf";
/** Form field and header names that carry the token back. */
export const CSRF_FIELD = "_csrf";
export const CSRF_HEADER = "x-csrf-token";

const UNSAFE = new Set(["POST", "PUT", "PATCH", "DELETE"]);
/**
 * Routes with no CSRF step. The public API (/v1) is cookie-free: its reads mint no token (the
 * Set-Cookie would keep shared caches from storing public answers) and its visitor interactions
 * post from the site's own front end, never with the session's authority. The plugin API reads
 * only its bearer token and refuses a session cookie outright, so there is no ambient credential
 * to forge; its middleware answers before any body is read.
 */
const CSRF_FREE = /^\/(v1|api\/plugin\/v1)(\/|$)/;
const FORM_TYPES = [
  "application/x-www-form-urlencoded",
  "multipart/form-data",
  "text/plain",
];

/**
 * Refuses a form post, or a write that carries the session cookie, unless it echoes the
 * CSRF cookie's token and (when the browser names one) comes from this service's own origin.
 */
export function csrfProtection(config: Config): RouteStep {
  return {
    appliesTo: (pattern) => !CSRF_FREE.test(pattern),
    handler: checkCsrf,
  };
  async function checkCsrf(c: Context<AppEnv>, next: Next) {
    // Public media (/media/) is read-only and cookie-free.
    if (!UNSAFE.has(c.req.method) && /^\/media\//.test(c.req.path)) {
      return await next();
    }
    let token = getCookie(c, CSRF_COOKIE);
    if (!token || !/^[A-Za-z0-9_-]{43}$/.test(token)) {
      token = randomToken();
      setCookie(c, CSRF_COOKIE, token, {
        path: "/",
        httpOnly: true,
        sameSite: "Strict",
        secure: config.secureCookies,
      });
    }
    c.set("csrfToken", token);
    if (UNSAFE.has(c.req.method)) {
      const type = (c.req.header("content-type") ?? "").split(";")[0].trim()
        .toLowerCase();
      const isForm = FORM_TYPES.includes(type);
      if (isForm || getCookie(c, SESSION_COOKIE) !== undefined) {
        await assertSameOrigin(
          c.req.header("origin"),
          c.req.url,
          config.publicUrl,
        );
        const sent = isForm ? await formToken(c) : c.req.header(CSRF_HEADER);
        const cookie = getCookie(c, CSRF_COOKIE);
        if (!sent || !cookie || !(await secretsEqual(sent, cookie))) {
          throw new HttpError(
            403,
            "csrf_failed",
            "The form is out of date: reload the page and try again",
          );
        }
      }
    }
    await next();
  }
}

/** Reads the token through Hono's cached body parse, so the route can parse the form again. */
async function formToken(c: Context): Promise<string | undefined> {
  try {
    const value = (await c.req.parseBody())[CSRF_FIELD];
    return typeof value === "string" ? value : undefined;
  } catch {
    return undefined;
  }
}

function assertSameOrigin(
  origin: string | undefined,
  requestUrl: string,
  publicUrl: string,
): void {
  if (origin === undefined) return;
  if (
    origin === new URL(requestUrl).origin ||
    origin === new URL(publicUrl).origin
  ) return;
  throw new HttpError(403, "csrf_failed", "Cross-site form posts are refused");
}
