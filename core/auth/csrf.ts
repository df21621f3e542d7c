// CSRF protection: a double-submit token on every form post, and on any cookie-carrying write.
import type { Context, Next } from "hono";
import { getCookie, setCookie } from "hono/cookie";
import type { Config } from "../config.ts";
import type { AppEnv } from "../web/env.ts";
import type { RouteStep } from "../web/app.ts";
import { HttpError } from "../web/errors.ts";
import { formParts } from "../web/streamed_form.ts";
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
        const sent = isForm
          ? await formToken(c, type)
          : c.req.header(CSRF_HEADER);
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

/**
 * The token of a form post: the `X-CSRF-Token` header when the page's script sent one (another
 * site's form cannot set a header), else the `_csrf` field. A multipart body is read only up to
 * that field, which the service's forms put first, and handed on to the route whole, so a file
 * behind it streams on instead of being gathered here. Other forms are small and go through
 * Hono's cached body parse, so the route can parse them again.
 */
async function formToken(
  c: Context,
  type: string,
): Promise<string | undefined> {
  const header = c.req.header(CSRF_HEADER);
  if (header) return header;
  if (type === "multipart/form-data") return await multipartToken(c);
  try {
    const value = (await c.req.parseBody())[CSRF_FIELD];
    return typeof value === "string" ? value : undefined;
  } catch {
    return undefined;
  }
}

async function multipartToken(c: Context): Promise<string | undefined> {
  const body = c.req.raw.body;
  if (!body) return undefined;
  const reader = body.getReader();
  // Every chunk taken from the body, to give the route the body from its first byte.
  const taken: Uint8Array[] = [];
  let ended = false;
  const watched = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const { done, value } = await reader.read();
      if (done) {
        ended = true;
        controller.close();
        return;
      }
      taken.push(value);
      controller.enqueue(value);
    },
    // Stopping at the token must not cancel the body: the route reads on.
  });
  let token: string | undefined;
  try {
    for await (
      const part of formParts(watched, c.req.header("content-type") ?? "")
    ) {
      if (part.kind === "field" && part.name === CSRF_FIELD) {
        token = part.value;
        break;
      }
      // A file before the token is skipped (and held in `taken`): forms put the token first.
      if (part.kind === "file") await part.stream.cancel();
    }
  } catch {
    // An unreadable form carries no token; the route is never reached.
  }
  let next = 0;
  c.req.raw = new Request(c.req.raw, {
    body: new ReadableStream<Uint8Array>({
      async pull(controller) {
        if (next < taken.length) {
          controller.enqueue(taken[next]);
          taken[next++] = EMPTY;
          return;
        }
        const { done, value } = ended
          ? { done: true, value: undefined }
          : await reader.read();
        if (done) controller.close();
        else controller.enqueue(value);
      },
      cancel(reason) {
        return reader.cancel(reason);
      },
    }),
  });
  return token;
}

const EMPTY = new Uint8Array(0);

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
