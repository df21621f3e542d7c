// Reads the session cookie into `c.var.user`, guards signed-in routes, and writes or clears the cookie.
import type { Context, MiddlewareHandler } from "hono";
import { getCookie, setCookie } from "hono/cookie";
import type { AppEnv } from "../web/env.ts";
import { HttpError } from "../web/errors.ts";
import { SESSION_COOKIE } from "./cookies.ts";
import { findSessionUser, SESSION_LIFETIME_MS } from "./session_store.ts";

/** Where signed-out people are sent from admin pages. */
export const SIGN_IN_PATH = "/admin/sign-in";

/**
 * Sets `c.var.user` from the session cookie, re-checking expiry, the person's status and
 * their access to `c.var.site` on every request; runs after the site is resolved. A cookie
 * that names no usable session is cleared on the answer, and the request goes on signed out.
 */
export const loadSession: MiddlewareHandler<AppEnv> =
  async function loadSession(
    c,
    next,
  ) {
    c.set("user", undefined);
    const token = readSessionToken(c);
    if (token !== undefined) {
      const user = await findSessionUser(c.var.services, {
        token,
        siteId: c.var.site.id,
      });
      if (user) c.set("user", user);
      else clearSessionCookie(c);
    }
    await next();
  };

/**
 * Lets only signed-in people through: pages send others to the sign-in page (303), other
 * routes refuse `401 unauthenticated`. Runs after {@link loadSession}.
 */
export const requireSignedIn: MiddlewareHandler<AppEnv> =
  async function requireSignedIn(c, next) {
    if (!c.var.user) {
      if (c.var.responseKind === "html") return c.redirect(SIGN_IN_PATH, 303);
      throw new HttpError(401, "unauthenticated", "Sign in first");
    }
    await next();
  };

/** The session token the request carries, if any. */
export function readSessionToken(c: Context<AppEnv>): string | undefined {
  return getCookie(c, SESSION_COOKIE);
}

function cookieOptions(c: Context<AppEnv>) {
  return {
    path: "/",
    httpOnly: true,
    sameSite: "Lax",
    secure: c.var.services.config.secureCookies,
  } as const;
}

/**
 * Sends the session token in an HttpOnly, SameSite=Lax cookie for the whole site, Secure when
 * the service is served over https. Max-Age matches the session's lifetime; the server
 * re-checks expiry on every read whatever the browser keeps.
 */
export function setSessionCookie(c: Context<AppEnv>, token: string): void {
  setCookie(c, SESSION_COOKIE, token, {
    ...cookieOptions(c),
    maxAge: Math.floor(SESSION_LIFETIME_MS / 1000),
  });
}

/** Tells the browser to drop the session cookie. */
export function clearSessionCookie(c: Context<AppEnv>): void {
  setCookie(c, SESSION_COOKIE, "", {
    ...cookieOptions(c),
    maxAge: 0,
    expires: new Date(0),
  });
}

/**
 * The client's address for rate windows: the socket's peer when served by `Deno.serve`,
 * `"unknown"` otherwise. Forwarding headers are not trusted, as any client can send them.
 */
export function clientAddress(c: Context<AppEnv>): string {
  const info = c.env as { remoteAddr?: { hostname?: unknown } } | undefined;
  const hostname = info?.remoteAddr?.hostname;
  return typeof hostname === "string" && hostname !== "" ? hostname : "unknown";
}
