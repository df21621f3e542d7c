// Refusals with the spec's codes, and the one place that maps them and failures to answers.
import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { AppEnv } from "./env.ts";
import { isConnectionError } from "../../plugins/sdk/pg_faults.ts";
import { adminStylesheetHref } from "./static_files.ts";

/** A refusal the spec names: an HTTP status, a code and the details a client may see. */
export class HttpError extends Error {
  override name = "HttpError";
  constructor(
    readonly status: ContentfulStatusCode,
    readonly code: string,
    message: string,
    readonly details: Record<string, unknown> = {},
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

/** Throws a refusal; routes use it to stop with the spec's status and code. */
export function refuse(
  status: ContentfulStatusCode,
  code: string,
  message: string,
  details?: Record<string, unknown>,
  headers?: Record<string, string>,
): never {
  throw new HttpError(status, code, message, details, headers);
}

/** The one JSON error body: `{ error: { code, message, ...details } }`. */
export function errorJson(c: Context, error: HttpError): Response {
  return c.json(
    { error: { code: error.code, message: error.message, ...error.details } },
    error.status,
    error.headers,
  );
}

/** Maps whatever a route threw to an answer, never leaking stacks, SQL or paths. */
export function handleError(error: unknown, c: Context<AppEnv>): Response {
  let known = toHttpError(error);
  if (!known && isConnectionError(error)) {
    // Nothing was acknowledged on a connection that dropped: the client may retry as it is told.
    known = databaseUnavailable(c.req.path);
    c.var.log?.({
      level: "warn",
      msg: "database unavailable",
      error: describe(error),
      path: c.req.path,
    });
  } else if (!known) {
    c.var.log?.({
      level: "error",
      msg: "unhandled",
      error: describe(error),
      path: c.req.path,
    });
  }
  const answer = known ??
    new HttpError(500, "internal_error", "Internal error");
  if (c.var.responseKind === "html") return errorPage(c, answer);
  if (c.var.responseKind === "text" && !known) {
    return c.text("Internal error", 500);
  }
  return errorJson(c, answer);
}

/** Seconds a client waits before retrying after the database dropped its connection. */
export const DATABASE_RETRY_AFTER_SECONDS = 2;
const DEPENDENCY_RETRY_AFTER_SECONDS = 5;

/**
 * The 503 of a request whose database connection was lost (the pool reconnects on the next
 * query): `temporary_failure` (spec 1's code for a temporary outage), or the dependency code
 * the public search and sync contracts name for their own paths. Never stored by a cache.
 */
export function databaseUnavailable(path: string): HttpError {
  const code = path.startsWith("/v1/_sync")
    ? "sync_dependency_unavailable"
    : path.startsWith("/v1/_search")
    ? "search_unavailable"
    : "temporary_failure";
  // Search and sync routes answer their own 503s with 5 s: the same wait whatever failed.
  const seconds = code === "temporary_failure"
    ? DATABASE_RETRY_AFTER_SECONDS
    : DEPENDENCY_RETRY_AFTER_SECONDS;
  return new HttpError(
    503,
    code,
    "The database is unavailable for a moment: retry shortly",
    {},
    {
      "Retry-After": String(seconds),
      "Cache-Control": "no-store",
    },
  );
}

function toHttpError(error: unknown): HttpError | null {
  if (error instanceof HttpError) return error;
  if (error instanceof HTTPException) {
    if (error.status === 413) {
      return new HttpError(
        413,
        "payload_too_large",
        "Request body is larger than this route accepts",
      );
    }
    if (error.status < 500) {
      return new HttpError(
        error.status,
        "invalid_request",
        error.message || "Invalid request",
      );
    }
  }
  return null;
}

/** Errors are logged by class and message only: a message never holds a token by our rules. */
function describe(error: unknown): string {
  return error instanceof Error
    ? `${error.name}: ${error.message}`.slice(0, 500)
    : String(error).slice(0, 500);
}

/** The styled error page of HTML routes: the admin's stylesheet, the status, a way back. */
export function errorPage(c: Context, error: HttpError): Response {
  const title = error.status === 404
    ? "Page not found"
    : error.status >= 500
    ? "Something went wrong"
    : error.message;
  const detail = error.status === 404
    ? error.code === "not_found"
      ? "There is nothing at this address. It may have moved, or the link may be mistyped."
      : error.message
    : error.status >= 500
    ? "The service could not answer this request. Nothing you typed was lost on our side; try again in a moment."
    : "";
  // A way back must lead somewhere else: never to the page that just failed. When no site
  // answers this host, every page here fails alike, so the page says where to go instead.
  const path = c.req.path.replace(/\/+$/, "") || "/";
  const back = error.code === "unknown_host"
    ? `Open the address the service printed when it started: its “Host names” line lists the host names that answer (this request named ${
      escapeHtml(hostOf(c))
    }).`
    : path.startsWith("/admin/")
    ? `<a class="button" href="/admin">Back to the admin</a>`
    : path !== "/"
    ? `<a class="button" href="/">Go to the home page</a>`
    : "";
  const html = [
    `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">`,
    `<meta name="viewport" content="width=device-width, initial-scale=1">`,
    `<title>${escapeHtml(title)} · Stave</title>`,
    `<link rel="stylesheet" href="${adminStylesheetHref()}"></head><body>`,
    `<main class="error-page"><p class="status">${error.status}</p>`,
    `<h1>${escapeHtml(title)}</h1>`,
    detail ? `<p>${escapeHtml(detail)}</p>` : "",
    `<p class="muted">Code: <code>${escapeHtml(error.code)}</code></p>`,
    back ? `<p>${back}</p>` : "",
    `</main></body></html>`,
  ].join("");
  return c.html(html, error.status, error.headers);
}

function hostOf(c: Context): string {
  return (c.req.header("host") ?? new URL(c.req.url).host).slice(0, 255);
}

/** Escapes text for HTML element content and attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
}
