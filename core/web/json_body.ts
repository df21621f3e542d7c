// The one reader of JSON request bodies: content type, UTF-8, nesting depth, NUL and lone surrogates, a closed object.
import { refuse } from "./errors.ts";
import {
  checkJsonDepth,
  checkJsonText,
  type JsonTextOptions,
} from "./request_text.ts";

export { MAX_JSON_DEPTH } from "./request_text.ts";

/** Body types a route may accept. */
export type BodyType =
  | "application/json"
  | "multipart/form-data"
  | "application/octet-stream";

/**
 * The media type of a request body among `accepted`, or `415 unsupported_content_type`
 * naming what the route takes. A missing `Content-Type` is refused like a wrong one: a
 * body sent as `text/plain` (the type a cross-site form or a careless client sends) must
 * not be read as JSON.
 */
export function requireContentType(
  headers: Headers,
  accepted: readonly BodyType[] = ["application/json"],
): BodyType {
  const sent = (headers.get("content-type") ?? "").split(";")[0].trim()
    .toLowerCase();
  const match = accepted.find((type) => type === sent);
  if (match) return match;
  return refuse(
    415,
    "unsupported_content_type",
    `Request body must be sent as ${accepted.join(" or ")}`,
    { accepted: [...accepted] },
  );
}

/** Options of {@link decodeJsonBody}. */
export interface DecodeJsonOptions extends JsonTextOptions {
  /** Deepest nesting allowed; defaults to {@link MAX_JSON_DEPTH}. */
  maxDepth?: number;
  /** Where the body is, for issue paths; defaults to `body`. */
  where?: string;
}

/**
 * Decodes bytes as a JSON object, refusing with `400 invalid_request` (naming the path):
 * bytes that are not UTF-8, nesting deeper than the limit (checked before parsing), text
 * that is not JSON or not an object, any key or string holding NUL or a lone surrogate, and
 * any `__proto__` key (outside `keysCheckedLater`).
 * The value still has to pass the route's closed zod object.
 */
export function decodeJsonBody(
  raw: Uint8Array,
  options: DecodeJsonOptions = {},
): Record<string, unknown> {
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(raw);
  } catch {
    return refuse(400, "invalid_request", "Request body must be UTF-8 JSON");
  }
  checkJsonDepth(text, options.maxDepth);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    refuse(400, "invalid_request", "Request body must be a JSON object");
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    refuse(400, "invalid_request", "Request body must be a JSON object");
  }
  checkJsonText(value, options.where ?? "body", options);
  return value as Record<string, unknown>;
}

/**
 * Reads a request's JSON body for a route: the content type must be `application/json`
 * (415 otherwise), then {@link decodeJsonBody}. Routes outside the Management API (plugin
 * API, forms, MCP) call this and then `schema.safeParse()` with a closed zod object.
 */
export async function readJsonBody(
  request: Request,
  options: DecodeJsonOptions = {},
): Promise<Record<string, unknown>> {
  requireContentType(request.headers);
  return decodeJsonBody(new Uint8Array(await request.arrayBuffer()), options);
}
