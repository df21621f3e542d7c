// Edge validation of request text: NUL and lone surrogates in paths, query values and JSON, and JSON nesting depth.
import type { Context, Next } from "hono";
import { refuse } from "./errors.ts";
import { requestUrl } from "./request_url.ts";

/** Deepest JSON nesting (objects and arrays) a request body may have. */
export const MAX_JSON_DEPTH = 64;

/** What is wrong with a piece of text, or null when PostgreSQL can store it as sent. */
export type TextProblem = "contains NUL" | "contains a lone surrogate";

/**
 * Finds text PostgreSQL cannot store (`text` and `jsonb` refuse U+0000) or that is not
 * valid Unicode (a UTF-16 surrogate without its pair cannot be encoded as UTF-8).
 */
export function textProblem(value: string): TextProblem | null {
  for (let i = 0; i < value.length; i++) {
    const unit = value.charCodeAt(i);
    if (unit === 0) return "contains NUL";
    if (unit >= 0xd800 && unit <= 0xdbff) {
      const next = value.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        i++;
        continue;
      }
      return "contains a lone surrogate";
    }
    if (unit >= 0xdc00 && unit <= 0xdfff) return "contains a lone surrogate";
  }
  return null;
}

/** A refusal naming where the bad text is (`query.tag`, `path`, `body.fields.title`). */
function refuseText(where: string, problem: string): never {
  refuse(400, "invalid_request", `Invalid ${where}: ${problem}`, {
    issues: [{ path: where, message: problem }],
  });
}

/** Decodes one percent-encoded URL component strictly; malformed UTF-8 is refused. */
function decodeComponent(raw: string, where: string, plusIsSpace: boolean) {
  try {
    return decodeURIComponent(plusIsSpace ? raw.replaceAll("+", " ") : raw);
  } catch {
    return refuseText(where, "not valid percent-encoded UTF-8");
  }
}

/**
 * Refuses a URL whose path or any query name or value holds NUL, a lone surrogate or
 * malformed percent-encoding, naming the part (`path`, `query.filter[category]`).
 * The one check of public parameters: every route behind it sees clean text.
 */
export function checkUrlText(url: URL): void {
  // A parsed URL percent-encodes controls and every non-ASCII character: without a `%`, no
  // component can decode to NUL or a surrogate (and the walk below cost 5% of a cached read).
  if (!url.pathname.includes("%") && !url.search.includes("%")) return;
  for (const segment of url.pathname.split("/")) {
    const text = decodeComponent(segment, "path", false);
    const problem = textProblem(text);
    if (problem) refuseText("path", problem);
  }
  if (url.search.length <= 1) return;
  for (const pair of url.search.slice(1).split("&")) {
    if (pair === "") continue;
    const eq = pair.indexOf("=");
    const rawName = eq === -1 ? pair : pair.slice(0, eq);
    const name = decodeComponent(rawName, "query", true);
    const nameProblem = textProblem(name);
    const where = nameProblem ? "query" : `query.${name}`;
    if (nameProblem) refuseText(where, nameProblem);
    const value = decodeComponent(
      eq === -1 ? "" : pair.slice(eq + 1),
      where,
      true,
    );
    const problem = textProblem(value);
    if (problem) refuseText(where, problem);
  }
}

/** App-wide middleware running {@link checkUrlText} before any route. */
export async function refuseUnsafeUrlText(c: Context, next: Next) {
  checkUrlText(requestUrl(c));
  await next();
}

/**
 * Refuses JSON text nested deeper than `maxDepth` before `JSON.parse` recurses into it
 * (a 100,000-deep body would otherwise be parsed, then walked, then overflow a validator).
 */
export function checkJsonDepth(text: string, maxDepth = MAX_JSON_DEPTH): void {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    if (inString) {
      if (ch === 0x5c) i++; // backslash: skip the escaped character
      else if (ch === 0x22) inString = false;
      continue;
    }
    if (ch === 0x22) inString = true;
    else if (ch === 0x7b || ch === 0x5b) {
      if (++depth > maxDepth) {
        refuse(
          400,
          "invalid_request",
          `Request body is nested deeper than ${maxDepth} levels`,
          { issues: [{ path: "body", message: "nested too deep" }] },
        );
      }
    } else if (ch === 0x7d || ch === 0x5d) depth--;
  }
}

/** Options of {@link checkJsonText}. */
export interface JsonTextOptions {
  /**
   * Parent paths (`body.fields`) whose keys are data checked by a later validator that
   * reports unknown keys itself (a model's field values answer `unknown_field`). Anywhere
   * else a `__proto__` key is refused here: zod drops it silently from records and loose
   * objects, so no closed schema would ever see it.
   */
  keysCheckedLater?: RegExp;
}

/**
 * Walks a parsed JSON value and refuses the first key or string holding NUL or a lone
 * surrogate, naming its path from `where` (`body.fields.title`, `body.items.2`), and any
 * `__proto__` key as an unknown key.
 */
export function checkJsonText(
  value: unknown,
  where = "body",
  options: JsonTextOptions = {},
): void {
  if (typeof value === "string") {
    const problem = textProblem(value);
    if (problem) refuseText(where, problem);
    return;
  }
  if (value === null || typeof value !== "object") return;
  if (Array.isArray(value)) {
    value.forEach((item, i) => checkJsonText(item, `${where}.${i}`, options));
    return;
  }
  for (const [key, item] of Object.entries(value)) {
    const problem = textProblem(key);
    if (problem) refuseText(`${where} key`, problem);
    if (key === "__proto__" && !options.keysCheckedLater?.test(where)) {
      refuse(400, "invalid_request", `Unknown key "__proto__" in ${where}`, {
        issues: [{ path: `${where}.__proto__`, message: "unknown key" }],
      });
    }
    checkJsonText(item, `${where}.${key}`, options);
  }
}
