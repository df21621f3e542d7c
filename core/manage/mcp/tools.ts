// The MCP tools of the Management API, derived from the contract: one tool per operation, named in snake case.
import { z } from "zod";
import { type AnyOperation, pathParams } from "../contract/mod.ts";
import { type Json, jsonSchemaOf } from "../openapi.ts";
import { CONTENT_ARGUMENT, FILE_NAME_ARGUMENT } from "./upload.ts";
import { operationNames } from "../route_names.ts";

/** Argument naming the `Idempotency-Key` of a write tool. */
export const IDEMPOTENCY_ARGUMENT = "idempotency_key";
/** What an `idempotency_key` may hold: 1 to 128 visible ASCII characters. */
const IDEMPOTENCY_KEY_PATTERN = /^[\x21-\x7E]+$/;
/** Argument holding the JSON body of a tool whose operation takes one. */
export const BODY_ARGUMENT = "body";

/** One tool as `tools/list` answers it, plus the operation it runs. */
export interface ManageTool {
  name: string;
  title: string;
  description: string;
  inputSchema: Json;
  outputSchema: Json;
  /** Hints a client reads; the MCP defaults stand for what is left out (a read is never destructive). */
  annotations: {
    readOnlyHint?: boolean;
    destructiveHint?: boolean;
    idempotentHint?: boolean;
    openWorldHint: false;
  };
  operation: AnyOperation;
}

/** The tool name of an operation: its kebab-case name in snake case. */
export function toolName(operation: AnyOperation): string {
  return operation.name.replaceAll("-", "_");
}

/**
 * The arguments of an operation's tool as one closed zod object: path parameters and query
 * parameters at the top level, the JSON body under `body`, and an optional
 * `idempotency_key` on writes. Wrong argument types are refused by it, never by the route.
 */
export function argumentSchemaOf(operation: AnyOperation): z.ZodObject {
  const shape: Record<string, z.ZodType> = {};
  const reserved = [
    BODY_ARGUMENT,
    IDEMPOTENCY_ARGUMENT,
    CONTENT_ARGUMENT,
    FILE_NAME_ARGUMENT,
  ];
  for (
    const name of [
      ...Object.keys(operation.params.shape),
      ...Object.keys(operation.query.shape),
    ]
  ) {
    if (reserved.includes(name)) {
      throw new Error(
        `Cannot make a tool of operation "${operation.name}": parameter "${name}" is a tool argument of its own; rename it`,
      );
    }
  }
  for (const [name, schema] of Object.entries(operation.params.shape)) {
    shape[name] = schema as z.ZodType;
  }
  for (const [name, schema] of Object.entries(operation.query.shape)) {
    shape[name] = schema as z.ZodType;
  }
  if (operation.body) shape[BODY_ARGUMENT] = operation.body;
  if (operation.multipart) {
    // The size rule is applied while decoding, so a too-large file gets its own named refusal.
    shape[CONTENT_ARGUMENT] = z.string().describe(
      "The file's bytes in standard base64; at most 8 MiB decoded",
    );
    shape[FILE_NAME_ARGUMENT] = z.string().min(1).max(255).refine(
      (name) => ![...name].some((ch) => ch === "/" || ch === "\\" || ch < " "),
      "expected a file name without slashes or control characters",
    ).describe("The file's name, e.g. photo.jpg");
  }
  if (operation.binary) {
    shape[CONTENT_ARGUMENT] = z.string().describe(
      `The bytes in standard base64; at most ${
        (operation.bodyLimit ?? 0) / 1024 / 1024
      } MiB decoded`,
    );
  }
  if (operation.key) {
    // Its rule (1 to 128 visible ASCII characters) is stated once in `initialize`'s
    // instructions, not on each of the 59 tools; `compactSchema` leaves it out of the listing.
    shape[IDEMPOTENCY_ARGUMENT] = z.string().max(128).regex(
      IDEMPOTENCY_KEY_PATTERN,
      "expected visible ASCII characters",
    ).optional();
  }
  return z.strictObject(shape);
}

/**
 * What every tool call answers as `structuredContent`, shared by all tools: the operation's own
 * answer shape is in the Management API's OpenAPI document, and repeating it per tool made
 * `tools/list` about 370 KB, more than most agents can afford to read.
 */
export const OUTPUT_SCHEMA: Json = {
  type: "object",
  properties: {
    status: { type: "integer" },
    idempotency_key: { type: "string" },
    body: { type: "object" },
  },
  required: ["status", "body"],
};

/** The shared `structuredContent` schema of `operation`'s tool (kept as a function for callers). */
export function outputSchemaOf(_operation: AnyOperation): Json {
  return OUTPUT_SCHEMA;
}

// Patterns longer than this are left out of listed schemas when a `format` or the description
// already says what is expected: the argument schema still checks them on every call, and an
// agent gets a readable refusal naming the argument.
const LONG_PATTERN = 32;

/**
 * A listed input schema without what costs an agent tokens and buys it nothing: long patterns
 * beside a `format`, nested `additionalProperties: false`, `propertyNames` (not every client
 * reads it), titles, extensions and the `default`s the route applies itself; type lists
 * become `anyOf`. Never changes what a call accepts: the full schema checks every call.
 */
export function compactSchema(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map((s) => compactSchema(s));
  if (typeof schema !== "object" || schema === null) return schema;
  const out: Json = {};
  for (const [key, value] of Object.entries(schema as Json)) {
    if (key === "propertyNames" || key === "default" || key === "title") {
      continue;
    }
    // Closed objects are refused naming the unknown key; `initialize`'s instructions say once
    // that every argument object is closed (111 roots saying it cost 3 KB of every list).
    if (key === "additionalProperties" && value === false) continue;
    if (key === "maximum" && value === Number.MAX_SAFE_INTEGER) continue;
    // Extensions (`x-model-ref`) are for the service's own readers, not for agents.
    if (key.startsWith("x-")) continue;
    // An agent calls tools, not routes: "GET /models" reads "list_models".
    if (key === "description" && typeof value === "string") {
      out.description = operationNames(value, "snake");
      continue;
    }
    // A type list is an anyOf of types to every client; several do not take the list form.
    if (key === "type" && Array.isArray(value)) {
      out.anyOf = value.map((type) => ({ type }));
      continue;
    }
    // `{}` is what an absent keyword means already.
    if (
      key === "additionalProperties" && typeof value === "object" &&
      value !== null && Object.keys(value).length === 0
    ) continue;
    if (
      key === "pattern" && typeof value === "string" &&
      (value.length > LONG_PATTERN || "format" in (schema as Json))
    ) continue;
    // An empty `required` is what its absence means.
    if (key === "required" && Array.isArray(value) && value.length === 0) {
      continue;
    }
    // A union tagged by one constant key (Site Chrome's region blocks) is listed as one object:
    // the tag's values, every branch's keys once, and which keys each tag needs.
    if ((key === "anyOf" || key === "oneOf") && Array.isArray(value)) {
      const tagged = mergedTaggedUnion(compactSchema(value) as Json[]);
      if (tagged) {
        Object.assign(out, tagged);
        continue;
      }
    }
    // Branches of a `oneOf` that no value can match twice are an `anyOf` to a client; several
    // clients take only the latter.
    if (key === "oneOf" && Array.isArray(value)) {
      out.anyOf = compactSchema(value);
      continue;
    }
    if (key === "anyOf" && Array.isArray(value)) {
      const merged = mergedAnyOf(compactSchema(value) as Json[]);
      if (merged) {
        Object.assign(out, merged);
        continue;
      }
    }
    out[key] = key === "properties"
      ? Object.fromEntries(
        Object.entries(value as Json).map((
          [k, v],
        ) => [k, compactSchema(v)]),
      )
      : compactSchema(value);
  }
  return out;
}

/**
 * One object for a union of objects told apart by a key whose value is a constant in every
 * branch: that key as an `enum`, the other keys of all branches (the first branch's schema of a
 * key wins), and a description naming the keys each value requires. Wider than the union, so
 * only for listing: the full schema checks every call. Null when the branches are not so tagged.
 */
function mergedTaggedUnion(branches: Json[]): Json | null {
  if (branches.length < 2 || branches.some((b) => b.type !== "object")) {
    return null;
  }
  const propertiesOf = (b: Json) =>
    (b.properties ?? {}) as Record<string, Json>;
  const tag = Object.keys(propertiesOf(branches[0])).find((name) =>
    branches.every((b) => typeof propertiesOf(b)[name]?.const === "string")
  );
  if (!tag) return null;
  const properties: Record<string, Json> = {
    [tag]: {
      type: "string",
      enum: branches.map((b) => propertiesOf(b)[tag].const),
    },
  };
  for (const branch of branches) {
    for (const [name, schema] of Object.entries(propertiesOf(branch))) {
      if (!(name in properties)) properties[name] = schema;
    }
  }
  const needs = branches.map((b) => {
    const keys = ((b.required ?? []) as string[]).filter((k) => k !== tag);
    return `${propertiesOf(b)[tag].const}: ${keys.join(", ") || "-"}`;
  });
  return {
    type: "object",
    description: `Keys each ${tag} needs: ${needs.join("; ")}`,
    properties,
    required: [tag],
  };
}

/**
 * The one schema an `anyOf` means, when it has a simpler exact form: constants of one type
 * become an `enum` (a redirect status is one of six numbers), and branches of one type beside
 * that type unconstrained become the type (a model id or any api key is a string). Null
 * otherwise; never widens or narrows what is accepted.
 */
function mergedAnyOf(branches: Json[]): Json | null {
  const types = new Set(branches.map((b) => b.type));
  if (types.size !== 1 || typeof branches[0]?.type !== "string") return null;
  const type = branches[0].type;
  if (branches.every((b) => Object.keys(b).sort().join() === "const,type")) {
    return {
      type: branches.every((b) => Number.isInteger(b.const)) ? "integer" : type,
      enum: branches.map((b) => b.const),
    };
  }
  if (branches.some((b) => Object.keys(b).length === 1)) return { type };
  return null;
}

/**
 * A sub-schema listed again is written out at its first place only; later places keep their
 * type and point to the first: within one tool (relate_entries' four target lists), or in an
 * earlier tool of the same scope (update_role's permissions are create_role's), which a
 * credential sees whenever it sees this one. The server checks every place in full; clients
 * get the same rule for a fraction of the bytes. `seen` carries the first places across tools.
 */
export function shareRepeats(
  inputSchema: Json,
  tool: { name: string; scope: string },
  seen: Map<string, { tool: string; path: string }>,
): Json {
  const visit = (schema: unknown, path: string): unknown => {
    if (
      typeof schema !== "object" || schema === null || Array.isArray(schema)
    ) {
      return schema;
    }
    const text = JSON.stringify(schema);
    const key = `${tool.scope}\n${text}`;
    const first = seen.get(key);
    const type = (schema as Json).type;
    // A pointer keeps the type, so it still constrains something (a schema with no keyword
    // accepts anything, which clients flag); a shape without one type is written out again.
    if (first !== undefined && path && typeof type === "string") {
      return {
        type,
        description: `Same shape as ${
          first.tool === tool.name ? "" : `${first.tool} `
        }${first.path}`,
      };
    }
    if (path && text.length >= REPEAT_WORTH_SHARING) {
      seen.set(key, { tool: tool.name, path });
    }
    const out: Json = {};
    for (const [k, value] of Object.entries(schema as Json)) {
      out[k] = k === "properties"
        ? Object.fromEntries(
          Object.entries(value as Json).map((
            [name, sub],
          ) => [name, visit(sub, path ? `${path}.${name}` : name)]),
        )
        : value;
    }
    return out;
  };
  return visit(inputSchema, "") as Json;
}

// Shorter repeats cost less than the pointer that would replace them.
const REPEAT_WORTH_SHARING = 100;

function describe(operation: AnyOperation): string {
  // A tool takes a file as base64 arguments, never as multipart: the route's wording would mislead.
  return operationNames(operation.summary, "snake").replace(
    / \(multipart: [^)]*\)/,
    "",
  );
}

/** The tool of one operation. */
export function toolOf(
  operation: AnyOperation,
  seen: Map<string, { tool: string; path: string }> = new Map(),
): ManageTool {
  const inputSchema = shareRepeats(
    compactSchema(jsonSchemaOf(argumentSchemaOf(operation), "input")) as Json,
    { name: toolName(operation), scope: operation.scope },
    seen,
  );
  const properties = inputSchema.properties as Json;
  if (properties[IDEMPOTENCY_ARGUMENT]) {
    properties[IDEMPOTENCY_ARGUMENT] = { type: "string" };
  }
  // A path parameter is always required, whatever its schema says about emptiness.
  const required = new Set(
    (inputSchema.required as string[] | undefined) ?? [],
  );
  for (const name of pathParams(operation.path)) required.add(name);
  if (required.size > 0) inputSchema.required = [...required];
  else delete inputSchema.required;
  const write = operation.method !== "GET";
  return {
    name: toolName(operation),
    title: operation.summary,
    description: describe(operation),
    inputSchema,
    outputSchema: outputSchemaOf(operation),
    annotations: write
      ? {
        destructiveHint: operation.method === "DELETE" ||
          /(^|-)(remove|purge|trash|delete)(-|$)/.test(operation.name),
        // Left out when false: that is the MCP default.
        ...(operation.key !== null ? { idempotentHint: true } : {}),
        openWorldHint: false,
      }
      : { readOnlyHint: true, openWorldHint: false },
    operation,
  };
}

/** Every tool of `operations`, in contract order; a clash of names is a contract bug. */
export function buildTools(
  operations: readonly AnyOperation[],
): ManageTool[] {
  // Contract order decides which tool writes a shared shape out in full.
  const seen = new Map<string, { tool: string; path: string }>();
  const tools = operations.map((operation) => toolOf(operation, seen));
  const names = new Set<string>();
  for (const tool of tools) {
    if (names.has(tool.name)) {
      throw new Error(
        `Cannot list MCP tool "${tool.name}": two operations share the name`,
      );
    }
    names.add(tool.name);
  }
  return tools;
}

/**
 * A tool as `tools/list` answers it: without the operation, the title (it would repeat the
 * description) and the output schema (one shape for every tool, `{ status, idempotency_key?,
 * body }`, which `initialize`'s instructions state once instead of 111 times).
 */
export function listedTool(tool: ManageTool): Json {
  return {
    name: tool.name,
    description: tool.description,
    inputSchema: tool.inputSchema,
    annotations: tool.annotations,
  };
}

/** The generated, committed tool list (`mcp-tools-v1.json`): each tool with its scope. */
export function toolListDocument(operations: readonly AnyOperation[]): Json {
  return {
    description:
      "The MCP tools of POST /api/manage/mcp, generated from core/manage/contract. tools/list answers those the credential's scopes allow",
    tools: buildTools(operations).map((tool) => ({
      ...listedTool(tool),
      "x-scope": tool.operation.scope,
    })),
  };
}
