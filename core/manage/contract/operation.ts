// The shape of one Management API operation as data: the single source of routes, OpenAPI and client types.
import { z } from "zod";
import type { Scope } from "../../access/scopes.ts";
import type { BodyType } from "../../web/json_body.ts";
import {
  IDEMPOTENCY_RETENTION_LONG_MS,
  IDEMPOTENCY_RETENTION_MS,
} from "../../kv/idempotency_key.ts";
import type { ErrorCode } from "./errors.ts";

/** HTTP methods the Management API uses. */
export type HttpMethod = "GET" | "POST" | "PUT" | "DELETE";

/** How long a key is kept: `long` 30 days (publish, unpublish, move), `short` 24 hours (spec 2 part 8). */
export type KeyRetention = "short" | "long";

/**
 * What a retry does with a claim that never got its answer (spec 2, 4.3):
 * - `rerun`: the command keeps its own record or is safe to repeat; it runs again.
 * - `prove`: the command writes its effect and a record of it in one batch; the handler's
 *   `prove` answers from what was written (`replayed: true`), else it runs again.
 * - `hold`: nothing can be proved and a rerun is unsafe; `409 idempotency_in_progress`
 *   without `Retry-After` until the key expires.
 */
export type KeySettlement = "rerun" | "prove" | "hold";

/** The `Idempotency-Key` rule of a write. */
export interface KeyRule {
  retention: KeyRetention;
  settle: KeySettlement;
  /** Top-level answer keys that only the first answer carries; a replay leaves them out. */
  omitOnReplay?: readonly string[];
  /** Top-level answer values a replay states instead (pages: `created: false`, spec 2 part 4.1). */
  replayAs?: Readonly<Record<string, unknown>>;
}

/** Any zod object schema (params, query and bodies are closed objects). */
// deno-lint-ignore no-explicit-any
export type ObjectSchema = z.ZodObject<any>;

/** One operation, declared once. */
export interface Operation<
  N extends string = string,
  P extends ObjectSchema = ObjectSchema,
  Q extends ObjectSchema = ObjectSchema,
  B extends ObjectSchema | null = ObjectSchema | null,
  A extends z.ZodType = z.ZodType,
> {
  /** Kebab-case operation name; the handler export is its camel-case form. */
  name: N;
  method: HttpMethod;
  /** Path below `/api/manage/v1`, parameters as `{name}` segments. */
  path: string;
  /** One sentence for OpenAPI and the docs. */
  summary: string;
  /**
   * What a caller should know beyond the summary (Markdown). The OpenAPI description adds the
   * scope, key rule and refusals from the rest of the declaration.
   */
  description?: string;
  /**
   * A request body and a success answer taken from the demo site, shown in the OpenAPI
   * document; a test parses each with the operation's schemas so they cannot drift.
   */
  examples?: { request?: unknown; response?: unknown };
  /** OpenAPI tag, the route family. */
  tag: string;
  /** The scope a credential must hold (spec 2 part 4.2). */
  scope: Scope;
  /** The `Idempotency-Key` rule, or null when the route takes no key. */
  key: KeyRule | null;
  /** Status of a successful answer. */
  status: 200 | 201;
  /**
   * A second success status with the same answer, and when it is given: an upload that finds
   * the same bytes already stored answers 200 with `reused: true` instead of 201.
   */
  alsoStatus?: { status: 200; when: string };
  params: P;
  query: Q;
  /** Closed JSON body, or null when the route takes none. */
  body: B;
  answer: A;
  /** Route-specific refusal codes (the common ones are added for every route). */
  errors: readonly ErrorCode[];
  /** Largest body in bytes; defaults to {@link DEFAULT_BODY_LIMIT}. */
  bodyLimit?: number;
  /**
   * Body types the route takes (anything else is `415 unsupported_content_type`); defaults
   * to JSON only. Raw-byte routes say so with `binary`, multipart routes with `multipart`.
   */
  accepts?: readonly BodyType[];
  /**
   * The route takes `multipart/form-data` instead of JSON: `file` names the file part and
   * `body` (when set) describes the other form fields, read as strings (an unknown, missing
   * or doubled part is `invalid_request`). Its MCP tool takes the file as `content_base64`
   * and `file_name` (spec 2 part 4.5).
   */
  multipart?: { file: string };
  /**
   * The body is raw bytes (`application/octet-stream`), handed to the handler as
   * `input.bytes`: import parts. Its MCP tool takes them as `content_base64`.
   */
  binary?: true;
  /** The code of a body over `bodyLimit` (default `payload_too_large`); 413 either way. */
  tooLargeCode?: ErrorCode;
}

/** Any operation. */
export type AnyOperation = Operation<
  string,
  ObjectSchema,
  ObjectSchema,
  ObjectSchema | null,
  z.ZodType
>;

/** Largest JSON body of a route that says nothing else. */
export const DEFAULT_BODY_LIMIT = 1024 * 1024;

/** The closed empty object: a route without params or query. */
export const NO_FIELDS: z.ZodObject<Record<never, never>> = z.strictObject({});

/** What {@link operation} takes: params, query, body and errors may be left out. */
export interface OperationSpec<
  N extends string,
  P extends ObjectSchema,
  Q extends ObjectSchema,
  B extends ObjectSchema | null,
  A extends z.ZodType,
> extends
  Omit<Operation<N, P, Q, B, A>, "params" | "query" | "body" | "errors"> {
  params?: P;
  query?: Q;
  body?: B;
  errors?: readonly ErrorCode[];
}

/** Declares one operation; fills the empty params, query and body. Pure data in, data out. */
export function operation<
  const N extends string,
  A extends z.ZodType,
  P extends ObjectSchema = typeof NO_FIELDS,
  Q extends ObjectSchema = typeof NO_FIELDS,
  B extends ObjectSchema | null = null,
>(spec: OperationSpec<N, P, Q, B, A>): Operation<N, P, Q, B, A> {
  return {
    ...spec,
    params: spec.params ?? (NO_FIELDS as unknown as P),
    query: spec.query ?? (NO_FIELDS as unknown as Q),
    body: spec.body ?? (null as B),
    // Every route with a body refuses one sent as another type (core/web/json_body.ts).
    errors: spec.body
      ? [...(spec.errors ?? []), "unsupported_content_type"]
      : spec.errors ?? [],
  };
}

/** Milliseconds a key of `retention` is kept. */
export function retentionMs(retention: KeyRetention): number {
  return retention === "long"
    ? IDEMPOTENCY_RETENTION_LONG_MS
    : IDEMPOTENCY_RETENTION_MS;
}

/** The names of a path template's `{param}` segments, in order. */
export function pathParams(path: string): string[] {
  return [...path.matchAll(/\{([A-Za-z][A-Za-z0-9_]*)\}/g)].map((m) => m[1]);
}

/** The Hono pattern of a path template: `{id}` -> `:id`. */
export function honoPattern(path: string): string {
  return path.replace(/\{([A-Za-z][A-Za-z0-9_]*)\}/g, ":$1");
}

/** Camel-case form of a kebab-case name: `get-site` -> `getSite`. */
export type CamelCase<S extends string> = S extends `${infer H}-${infer T}`
  ? `${H}${Capitalize<CamelCase<T>>}`
  : S;

/** Camel-case form of a kebab-case operation name, the name of its handler export. */
export function camelCase(name: string): string {
  return name.replace(/-([a-z0-9])/g, (_, ch: string) => ch.toUpperCase());
}
