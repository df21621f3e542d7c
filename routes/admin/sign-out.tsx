// GET/POST /admin/sign-out: a confirmation form, and the post that ends the session.
import type { Context } from "hono";
import {
  clearSessionCookie,
  readSessionToken,
  SIGN_IN_PATH,
} from "../../core/auth/session_middleware.ts";
import { deleteSessionByToken } from "../../core/auth/session_store.ts";
import type { AppEnv } from "../../core/web/env.ts";
import { page, type PageProps } from "../../core/web/manifest.ts";

/** What the confirmation page shows. */
interface SignOutData {
  siteName: string;
  title: string;
  displayName: string;
  csrfToken: string;
}

export const handler = {
  GET(c: Context<AppEnv>) {
    const user = c.var.user;
    if (!user) return c.redirect(SIGN_IN_PATH, 303);
    const data: SignOutData = {
      title: "Sign out",
      siteName: c.var.site.name,
      displayName: user.displayName,
      csrfToken: c.var.csrfToken,
    };
    return page(data);
  },

  async POST(c: Context<AppEnv>) {
    // Whatever session the cookie names ends, even one no longer valid for this site.
    const token = readSessionToken(c);
    if (token !== undefined) {
      await deleteSessionByToken(c.var.services.db, token);
      clearSessionCookie(c);
    }
    if (c.var.user) {
      c.var.log({
        level: "info",
        msg: "signed_out",
        site_id: c.var.site.id,
        user_id: c.var.user.id,
        session_id: c.var.user.sessionId,
      });
    }
    return c.redirect(SIGN_IN_PATH, 303);
  },
};

export default function SignOutPage({ data }: PageProps<SignOutData>) {
  return (
    <main class="narrow">
      <h1>Sign out</h1>
      <p>
        You are signed in to {data.siteName} as {data.displayName}.
      </p>
      <form method="post" action="/admin/sign-out">
        <input type="hidden" name="_csrf" value={data.csrfToken} />
        <button type="submit">Sign out</button>
      </form>
      <p>
        <a href="/admin">Back to the admin</a>
      </p>
    </main>
  );
}
