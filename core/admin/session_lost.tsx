// An expired session while editing: the posted values are kept on a page that asks the person to sign in again.
import type { MiddlewareHandler } from "hono";
import { renderToString } from "preact-render-to-string";
import { SIGN_IN_PATH } from "../auth/session_middleware.ts";
import type { AppEnv } from "../web/env.ts";
import { HttpError } from "../web/errors.ts";
import { adminStylesheetHref } from "../web/static_files.ts";

function SessionLost(
  props: { action: string; csrf: string; fields: [string, string][] },
) {
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>Sign in again · Stave</title>
        <link rel="stylesheet" href={adminStylesheetHref()} />
      </head>
      <body>
        <main class="error-page">
          <h1>Your session has ended</h1>
          <p role="alert" class="warning">
            Nothing was saved, and nothing you typed is lost: it is kept on this
            page.
          </p>
          <ol class="stack" style="text-align: left">
            <li>
              <a href={SIGN_IN_PATH} target="_blank" rel="noopener">
                Sign in again in a new tab
              </a>
            </li>
            <li>Come back to this tab and send your changes again.</li>
          </ol>
          <form method="post" action={props.action}>
            <input type="hidden" name="_csrf" value={props.csrf} />
            {props.fields.map(([name, value], i) => (
              <input key={i} type="hidden" name={name} value={value} />
            ))}
            <button type="submit">Send my changes again</button>
          </form>
        </main>
      </body>
    </html>
  );
}

/**
 * Like `requireSignedIn`, but a form post that arrives without a live session is answered
 * `401` with a page holding every posted value, so signing in again loses no work.
 */
export const requireSignedInKeepingEdits: MiddlewareHandler<AppEnv> =
  async function requireSignedInKeepingEdits(c, next) {
    if (c.var.user) return await next();
    if (c.var.responseKind !== "html") {
      throw new HttpError(401, "unauthenticated", "Sign in first");
    }
    if (c.req.method !== "POST") return c.redirect(SIGN_IN_PATH, 303);
    const form = await c.req.parseBody({ all: true });
    const fields: [string, string][] = [];
    for (const [name, value] of Object.entries(form)) {
      if (name === "_csrf") continue;
      for (const item of Array.isArray(value) ? value : [value]) {
        if (typeof item === "string") fields.push([name, item]);
      }
    }
    const url = new URL(c.req.url);
    const html = renderToString(
      <SessionLost
        action={url.pathname + url.search}
        csrf={c.var.csrfToken}
        fields={fields}
      />,
    );
    return c.html(`<!DOCTYPE html>${html}`, 401);
  };
