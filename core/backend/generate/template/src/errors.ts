// Refusals as `{ code, ... }` answers, and the protection that keeps SQL, driver calls and local
// paths out of every error body: such errors answer `request_refused` (status kept) or
// `request_failed` (500). Customisation cannot remove it: app.ts installs it last.
import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";

/** A refusal with the status and code the API names, and optional details. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    readonly details: Record<string, unknown> = {},
  ) {
    super(code);
  }
}

/** Shorthand for `throw new ApiError(...)`. */
export function refuse(
  status: number,
  code: string,
  details: Record<string, unknown> = {},
): never {
  throw new ApiError(status, code, details);
}

/** What a PostgreSQL error carries that decides the answer. */
interface PgError {
  code?: string;
  constraint?: string;
  detail?: string;
  message?: string;
}

/** Maps a constraint name to the refusal it stands for; filled from the schema at start. */
export type ConstraintRefusals = Map<
  string,
  { status: number; code: string; details: Record<string, unknown> }
>;

/**
 * Turns a database error into the refusal the API names: constraints the migrations declared,
 * the hierarchy trigger (SQLSTATE SV001), or null when nothing names it.
 */
export function refusalOfDbError(
  error: unknown,
  constraints: ConstraintRefusals,
): ApiError | null {
  const e = error as PgError;
  if (!e || typeof e !== "object" || typeof e.code !== "string") return null;
  if (e.code === "SV001") {
    // The trigger puts `{ field, targets }` in the detail; it holds ids only.
    const details = JSON.parse(e.detail ?? "{}") as Record<string, unknown>;
    return new ApiError(422, "relation_hierarchy_cycle", details);
  }
  const known = e.constraint ? constraints.get(e.constraint) : undefined;
  if (e.code === "23503" && known) {
    return new ApiError(known.status, known.code, known.details);
  }
  if (e.code === "23505") {
    return known
      ? new ApiError(known.status, known.code, known.details)
      : new ApiError(409, "write_conflict");
  }
  if (e.code === "40001" || e.code === "40P01") {
    return new ApiError(409, "write_conflict");
  }
  return null;
}

/** The answer of an ApiError. */
export function answerOf(c: Context, error: ApiError): Response {
  return c.json(
    { code: error.code, ...error.details },
    error.status as 400,
  );
}

/**
 * The one error handler: named refusals pass; a database error the schema names becomes its
 * refusal; an HTTP error keeps its status as `request_refused`; anything else is
 * `request_failed`. The cause is logged on the server, never answered.
 */
export function protectErrors(constraints: ConstraintRefusals) {
  return function onError(error: Error, c: Context): Response {
    if (error instanceof ApiError) return answerOf(c, error);
    const mapped = refusalOfDbError(error, constraints);
    if (mapped) return answerOf(c, mapped);
    if (error instanceof HTTPException) {
      return c.json({ code: "request_refused" }, error.status);
    }
    // A value the database could not take (class 22): the caller's, so the status says so.
    if (String((error as PgError).code ?? "").startsWith("22")) {
      return c.json({ code: "request_refused" }, 400);
    }
    console.error(`request failed: ${c.req.method} ${c.req.path}`, error);
    return c.json({ code: "request_failed" }, 500);
  };
}
