// Parses an operation's path params, query and closed JSON body, refusing with `invalid_request` naming the problem.
import type { z } from "zod";
import { refuse } from "../web/errors.ts";
import { decodeJsonBody, requireContentType } from "../web/json_body.ts";
import { type DocumentProblem, unknownKeys } from "../web/zod_issues.ts";
import type { AnyOperation } from "./contract/mod.ts";

/** One problem of a request, by where it is (`body.code`, `query.limit`). */
export interface RequestIssue {
  path: string;
  message: string;
}

/**
 * Fields that would name a site or database. The site comes from the credential only
 * (spec 2 part 4.1 item 1), so a query or body naming one is refused before anything else.
 */
export const SITE_NAMING_FIELDS: readonly string[] = [
  "site",
  "site_id",
  "siteId",
  "site_slug",
  "database",
  "database_id",
  "databaseId",
  "database_url",
  "db",
];

/** Headers that would name a site or database. */
export const SITE_NAMING_HEADERS: readonly string[] = [
  "x-site-id",
  "x-site",
  "x-database",
  "x-database-id",
];

/** Refuses a query or top-level body field that names a site or database. */
export function refuseSiteNaming(
  where: "query" | "body",
  value: unknown,
): void {
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    return;
  }
  const named = Object.keys(value).find((k) => SITE_NAMING_FIELDS.includes(k));
  if (named !== undefined) {
    refuse(
      400,
      "invalid_request",
      `Cannot choose the site with ${where} field "${named}": the site comes from the credential`,
      { issues: [{ path: `${where}.${named}`, message: "not accepted" }] },
    );
  }
}

/** Path params as the operation's schema reads them; a value it refuses is `404 not_found`. */
export function parseParams<O extends AnyOperation>(
  operation: O,
  raw: Record<string, string>,
): z.output<O["params"]> {
  const parsed = operation.params.safeParse(raw);
  if (!parsed.success) refuse(404, "not_found", "Not found");
  return parsed.data as z.output<O["params"]>;
}

/** The query string as one value per name; a name given twice is refused. */
export function queryObject(url: URL): Record<string, string> {
  const query: Record<string, string> = {};
  for (const [name, value] of url.searchParams) {
    if (Object.hasOwn(query, name)) {
      refuse(
        400,
        "invalid_request",
        `Query parameter "${name}" is given twice`,
        {
          issues: [{ path: `query.${name}`, message: "given twice" }],
        },
      );
    }
    query[name] = value;
  }
  return query;
}

/** The query as the operation's closed schema reads it. */
export function parseQuery<O extends AnyOperation>(
  operation: O,
  query: Record<string, string>,
): z.output<O["query"]> {
  return check(operation.query, query, "query") as z.output<O["query"]>;
}

/**
 * Decodes the raw body: a route without a body refuses any; otherwise the content type must
 * be one the route accepts (415), and JSON goes through the shared edge reader (depth, NUL,
 * lone surrogates: core/web/json_body.ts). Other accepted types are left to the handler.
 */
export function decodeBody(
  operation: AnyOperation,
  raw: Uint8Array,
  headers: Headers,
): unknown {
  if (operation.body === null) {
    if (raw.length > 0) {
      refuse(400, "invalid_request", "This route takes no request body");
    }
    return undefined;
  }
  const type = requireContentType(headers, operation.accepts);
  if (type !== "application/json") return undefined;
  // Field values (`fields` of entries, proposals, drafts and their components) are checked
  // against the model, which refuses `__proto__` as `unknown_field` like any other key.
  return decodeJsonBody(raw, { keysCheckedLater: /^body\.fields(\.|$)/ });
}

/** The body as the operation's closed schema reads it. */
export function parseBody<O extends AnyOperation>(
  operation: O,
  value: unknown,
): O["body"] extends z.ZodType ? z.output<O["body"]> : undefined {
  if (operation.body === null) return undefined as never;
  return check(operation.body, value, "body") as never;
}

function check(schema: z.ZodType, value: unknown, where: string): unknown {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issues: RequestIssue[] = [];
  for (const issue of parsed.error.issues) {
    const at = [where, ...issue.path.map(String)].join(".");
    if (issue.code === "unrecognized_keys") {
      for (const key of issue.keys) {
        issues.push({ path: `${at}.${key}`, message: "unknown key" });
      }
    } else {
      issues.push({ path: at, message: issue.message });
    }
  }
  const first = issues[0];
  const message = first.message === "unknown key"
    ? `Unknown key "${first.path.slice(first.path.lastIndexOf(".") + 1)}" in ${
      first.path.slice(0, first.path.lastIndexOf("."))
    }`
    : `Invalid ${first.path}: ${first.message}`;
  return refuse(400, "invalid_request", message, { issues });
}

/**
 * JSON bodies are closed at every depth (MAPI-003): an unknown key inside a nested document
 * (settings, menus) is `400 invalid_request` naming it, like one at the top, not the
 * document's own `input_invalid`.
 */
export function refuseUnknownKeys(
  problems: readonly DocumentProblem[],
  prefix: string,
): void {
  const unknown = unknownKeys(problems);
  if (unknown.length === 0) return;
  const issues = unknown.map((p) => ({
    path: `${prefix}${p.path}`,
    message: "unknown key",
  }));
  refuse(
    400,
    "invalid_request",
    `Unknown key "${
      issues[0].path.slice(issues[0].path.lastIndexOf(".") + 1)
    }" in ${issues[0].path.slice(0, issues[0].path.lastIndexOf("."))}`,
    { issues },
  );
}
