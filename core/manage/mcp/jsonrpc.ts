// JSON-RPC 2.0 as the MCP endpoint reads it: one message per POST, its kind, and the standard error codes.
// This module is browser compatible.

/** JSON-RPC's standard error codes. */
export const PARSE_ERROR = -32700;
export const INVALID_REQUEST = -32600;
export const METHOD_NOT_FOUND = -32601;
export const INVALID_PARAMS = -32602;
export const INTERNAL_ERROR = -32603;

/** A request id: a string or an integer (0 included). */
export type RequestId = string | number;

/** What one POSTed message turned out to be. */
export type Message =
  | {
    kind: "request";
    id: RequestId;
    method: string;
    params: Record<string, unknown>;
  }
  | { kind: "notification"; method: string }
  | { kind: "response" }
  | { kind: "invalid"; code: number; message: string; id: RequestId | null };

function isId(value: unknown): value is RequestId {
  return typeof value === "string" ||
    (typeof value === "number" && Number.isInteger(value));
}

/** Reads the text of one POST as a single JSON-RPC message; a batch is refused. */
export function readMessage(text: string): Message {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return {
      kind: "invalid",
      code: PARSE_ERROR,
      message: "Parse error: the body is not JSON",
      id: null,
    };
  }
  if (Array.isArray(value)) {
    return {
      kind: "invalid",
      code: INVALID_REQUEST,
      message:
        "Invalid request: batches are not accepted; send one message per POST",
      id: null,
    };
  }
  if (value === null || typeof value !== "object") {
    return invalid("the message must be a JSON object", null);
  }
  const m = value as Record<string, unknown>;
  const id = isId(m.id) ? m.id : null;
  if (m.jsonrpc !== "2.0") return invalid('"jsonrpc" must be "2.0"', id);
  if (typeof m.method !== "string") {
    // A client answering a request of ours; this endpoint sends none, so it is only accepted.
    if ("id" in m && ("result" in m || "error" in m)) {
      return { kind: "response" };
    }
    return invalid('"method" must be a string', id);
  }
  if (
    m.params !== undefined &&
    (m.params === null || typeof m.params !== "object" ||
      Array.isArray(m.params))
  ) {
    return invalid('"params" must be an object', id);
  }
  const params = (m.params ?? {}) as Record<string, unknown>;
  if (!("id" in m)) return { kind: "notification", method: m.method };
  if (id === null) {
    return invalid("a request id must be a string or an integer", null);
  }
  return { kind: "request", id, method: m.method, params };
}

function invalid(detail: string, id: RequestId | null): Message {
  return {
    kind: "invalid",
    code: INVALID_REQUEST,
    message: `Invalid request: ${detail}`,
    id,
  };
}

/** A JSON-RPC result message. */
export function result(id: RequestId, value: unknown): unknown {
  return { jsonrpc: "2.0", id, result: value };
}

/** A JSON-RPC error message. */
export function rpcError(
  id: RequestId | null,
  code: number,
  message: string,
  data?: unknown,
): unknown {
  return {
    jsonrpc: "2.0",
    id,
    error: data === undefined ? { code, message } : { code, message, data },
  };
}
