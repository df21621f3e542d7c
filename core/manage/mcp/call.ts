// Runs one MCP tool call as the Management API request it stands for, through the whole app in-process.
import { BASE_PATH, pathParams } from "../contract/mod.ts";
import { operationNames } from "../route_names.ts";
import {
  BODY_ARGUMENT,
  IDEMPOTENCY_ARGUMENT,
  type ManageTool,
} from "./tools.ts";
import {
  CONTENT_ARGUMENT,
  decodeUpload,
  FILE_NAME_ARGUMENT,
} from "./upload.ts";

/** Sends a request through the service's own app: auth, idempotency, rate limits and audit as over HTTP. */
export type Dispatch = (request: Request) => Promise<Response>;

/** `structuredContent` of every tool call. */
export interface ToolAnswer {
  status: number;
  idempotency_key?: string;
  body: unknown;
}

/** What {@link callTool} needs. */
export interface CallToolOptions {
  dispatch: Dispatch;
  /** The service's public origin; the request is made as if sent there. */
  origin: string;
  /** The caller's `Authorization` header, passed on unchanged. */
  authorization: string;
  /** Makes a key for a write called without one. */
  newKey?: () => string;
}

/**
 * Calls `tool` with arguments already checked by its argument schema: path and query
 * parameters from the top level, the JSON body from `body`, and the `Idempotency-Key`
 * from `idempotency_key` (made when a write leaves it out, and returned).
 */
export async function callTool(
  tool: ManageTool,
  args: Record<string, unknown>,
  options: CallToolOptions,
): Promise<ToolAnswer> {
  const operation = tool.operation;
  const params = new Set(pathParams(operation.path));
  const path = operation.path.replace(
    /\{([A-Za-z][A-Za-z0-9_]*)\}/g,
    (_, name: string) => encodeURIComponent(String(args[name])),
  );
  const url = new URL(`${options.origin}${BASE_PATH}${path}`);
  for (const name of Object.keys(operation.query.shape)) {
    const value = args[name];
    if (value === undefined || params.has(name)) continue;
    url.searchParams.set(
      name,
      typeof value === "string" ? value : JSON.stringify(value),
    );
  }
  const headers = new Headers({
    authorization: options.authorization,
    accept: "application/json",
  });
  let key: string | undefined;
  if (operation.key) {
    key = typeof args[IDEMPOTENCY_ARGUMENT] === "string"
      ? args[IDEMPOTENCY_ARGUMENT] as string
      : (options.newKey ?? (() => crypto.randomUUID()))();
    headers.set("idempotency-key", key);
  }
  let body: string | FormData | Uint8Array<ArrayBuffer> | undefined;
  if (operation.binary) {
    const decoded = decodeUpload(
      String(args[CONTENT_ARGUMENT]),
      operation.bodyLimit,
    );
    if (!decoded.ok) {
      const { ok: _, code, message, ...details } = decoded;
      const tooLarge = code === "media_too_large";
      const error = {
        error: {
          code: tooLarge ? "payload_too_large" : code,
          message,
          ...details,
        },
      };
      const status = tooLarge ? 413 : 400;
      return key === undefined
        ? { status, body: error }
        : { status, idempotency_key: key, body: error };
    }
    body = decoded.bytes as Uint8Array<ArrayBuffer>;
    headers.set("content-type", "application/octet-stream");
  } else if (operation.multipart) {
    const decoded = decodeUpload(String(args[CONTENT_ARGUMENT]));
    if (!decoded.ok) {
      const { ok: _, code, message, ...details } = decoded;
      const status = code === "media_too_large" ? 413 : 400;
      const error = { error: { code, message, ...details } };
      return key === undefined
        ? { status, body: error }
        : { status, idempotency_key: key, body: error };
    }
    const form = new FormData();
    form.set(
      operation.multipart.file,
      new Blob([decoded.bytes as Uint8Array<ArrayBuffer>]),
      String(args[FILE_NAME_ARGUMENT]),
    );
    const fields = (args[BODY_ARGUMENT] ?? {}) as Record<string, unknown>;
    for (const [name, value] of Object.entries(fields)) {
      form.set(name, typeof value === "string" ? value : JSON.stringify(value));
    }
    body = form;
  } else if (operation.body) {
    body = JSON.stringify(args[BODY_ARGUMENT] ?? {});
    headers.set("content-type", "application/json");
  }
  const response = await options.dispatch(
    new Request(url, { method: operation.method, headers, body }),
  );
  const text = await response.text();
  let answer: unknown;
  try {
    answer = text === "" ? null : JSON.parse(text);
  } catch {
    answer = {
      error: { code: "internal_error", message: "The answer was not JSON" },
    };
  }
  // A refusal's hint names routes; an agent reads tool names ("list_models").
  const error = (answer as { error?: { message?: unknown } } | null)?.error;
  if (response.status >= 400 && typeof error?.message === "string") {
    error.message = operationNames(error.message, "snake");
  }
  return key === undefined
    ? { status: response.status, body: answer }
    : { status: response.status, idempotency_key: key, body: answer };
}
