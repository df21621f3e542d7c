// GET/POST /admin/sign-in: the sign-in form of the site named by the Host header.
import type { Context } from "hono";
import {
  clientAddress,
  readSessionToken,
  setSessionCookie,
} from "../../core/auth/session_middleware.ts";
import { deleteSessionByToken } from "../../core/auth/session_store.ts";
import {
  MAX_EMAIL_LENGTH,
  MAX_PASSWORD_LENGTH,
  signIn,
} from "../../core/auth/sign_in.ts";
import type { AppEnv } from "../../core/web/env.ts";
import { page, type PageProps } from "../../core/web/manifest.ts";

/** What the sign-in page shows. */
interface SignInData {
  siteName: string;
  title: string;
  csrfToken: string;
  /** The email typed last time, so a failed attempt does not make the person retype it. */
  email: string;
  error: string | null;
  /** Where to go after signing in (an admin path, e.g. the connect page of a login). */
  next: string | null;
}

/** An admin path to return to after signing in; anything else (another host, a scheme) is dropped. */
function safeNext(value: unknown): string | null {
  if (typeof value !== "string" || value.length > 4000) return null;
  return /^\/admin(\/|\?|$)/.test(value) && !/[\\\s]/.test(value)
    ? value
    : null;
}

/** The one message every failed attempt gets, whatever the reason. */
const FAILED =
  "The email or password is not right, or this account cannot sign in here";

function signInPage(
  c: Context<AppEnv>,
  options: {
    email?: string;
    error?: string;
    status?: number;
    headers?: HeadersInit;
    next?: string | null;
  } = {},
) {
  const data: SignInData = {
    title: "Sign in",
    siteName: c.var.site.name,
    csrfToken: c.var.csrfToken,
    email: options.email ?? "",
    error: options.error ?? null,
    next: options.next ?? null,
  };
  return page(data, { status: options.status, headers: options.headers });
}

export const handler = {
  GET(c: Context<AppEnv>) {
    const next = safeNext(c.req.query("next"));
    if (c.var.user) return c.redirect(next ?? "/admin", 303);
    return signInPage(c, { next });
  },

  async POST(c: Context<AppEnv>) {
    const form = await c.req.parseBody();
    const email = typeof form.email === "string" ? form.email.trim() : "";
    const password = typeof form.password === "string" ? form.password : "";
    const next = safeNext(form.next);
    if (
      email === "" || password === "" || email.length > MAX_EMAIL_LENGTH ||
      password.length > MAX_PASSWORD_LENGTH
    ) {
      return signInPage(c, {
        email: email.slice(0, MAX_EMAIL_LENGTH),
        error: "Enter your email and your password",
        status: 400,
        next,
      });
    }
    const result = await signIn(c.var.services, {
      siteId: c.var.site.id,
      email,
      password,
      clientAddress: clientAddress(c),
    });
    if (!result.ok) {
      c.var.log({
        level: "warn",
        msg: "sign_in_failed",
        site_id: c.var.site.id,
        reason: result.code === "rate_limited" ? result.code : result.reason,
      });
      if (result.code === "rate_limited") {
        const minutes = Math.ceil(result.retryAfterSeconds / 60);
        return signInPage(c, {
          email,
          error: `Too many sign-in attempts: try again in ${minutes} ${
            minutes === 1 ? "minute" : "minutes"
          }`,
          status: 429,
          headers: { "Retry-After": String(result.retryAfterSeconds) },
          next,
        });
      }
      return signInPage(c, { email, error: FAILED, status: 401, next });
    }
    // A fresh token on every sign-in; the session the browser held before (if any) ends.
    const previous = readSessionToken(c);
    if (previous !== undefined) {
      await deleteSessionByToken(c.var.services.db, previous);
    }
    setSessionCookie(c, result.session.token);
    c.var.log({
      level: "info",
      msg: "signed_in",
      site_id: c.var.site.id,
      user_id: result.user.id,
      session_id: result.session.id,
    });
    return c.redirect(next ?? "/admin", 303);
  },
};

export default function SignInPage({ data }: PageProps<SignInData>) {
  return (
    <main class="narrow">
      <h1>Sign in</h1>
      <p class="muted">to {data.siteName}</p>
      {data.error && (
        <p class="alert" role="alert" id="sign-in-error">{data.error}</p>
      )}
      <form
        method="post"
        action="/admin/sign-in"
        class="stack"
        aria-describedby={data.error ? "sign-in-error" : undefined}
      >
        <input type="hidden" name="_csrf" value={data.csrfToken} />
        {data.next && <input type="hidden" name="next" value={data.next} />}
        <label for="email">Email</label>
        <input
          id="email"
          name="email"
          type="email"
          autocomplete="username"
          required
          maxLength={MAX_EMAIL_LENGTH}
          value={data.email}
          aria-invalid={data.error ? "true" : undefined}
        />
        <label for="password">Password</label>
        <input
          id="password"
          name="password"
          type="password"
          autocomplete="current-password"
          required
          maxLength={MAX_PASSWORD_LENGTH}
          aria-invalid={data.error ? "true" : undefined}
        />
        <button type="submit">Sign in</button>
      </form>
    </main>
  );
}
