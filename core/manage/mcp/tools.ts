// The MCP tools of the Management API, derived from the contract: one tool per operation, named in snake case.
import { z } from "zod";
import { type AnyOperation, errorBody, pathParams } from "../contract/mod.ts";
import { answerSchemaOf, type Json, jsonSchemaOf } from "../openapi.ts";
import { CONTENT_ARGUMENT, FILE_NAME_ARGUMENT } from "./upload.ts";

/** Argument naming the `Idempotency-Key` of a write tool. */
export const IDEMPOTENCY_ARGUMENT = "idempotency_key";
/** Argument holding the JSON body of a tool whose operation takes one. */
export const BODY_ARGUMENT = "body";

/** One tool as `tools/list` answers it, plus the operation it runs. */
export interface ManageTool {
  name: string;
  title: string;
  description: string;
  inputSchema: Json;
  outputSchema: Json;
  annotations: {
    readOnlyHint: boolean;
    destructiveHint: boolean;
    idempotentHint: boolean;
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
    shape[IDEMPOTENCY_ARGUMENT] = z.string().regex(
      /^[\x21-\x7E]{1,128}$/,
      "expected 1 to 128 visible ASCII characters",
    ).optional().describe(
      "Idempotency-Key of this write; sent again with the same arguments it answers the first result. Left out, one is made and returned",
    );
  }
  return z.strictObject(shape);
}

/** What every tool call answers as `structuredContent`, around the operation's own answer. */
export function outputSchemaOf(operation: AnyOperation): Json {
  const properties: Json = {
    status: {
      type: "integer",
      description: "HTTP status the Management API answered",
    },
  };
  if (operation.key) {
    properties[IDEMPOTENCY_ARGUMENT] = {
      type: "string",
      description: "The Idempotency-Key this call used; send it again to retry",
    };
  }
  properties.body = {
    anyOf: [answerSchemaOf(operation), jsonSchemaOf(errorBody, "output")],
    description:
      "The answer on success, else the error body { error: { code, message } }",
  };
  return {
    type: "object",
    properties,
    required: operation.key
      ? ["status", IDEMPOTENCY_ARGUMENT, "body"]
      : ["status", "body"],
    additionalProperties: false,
  };
}

function describe(operation: AnyOperation): string {
  const parts = [
    `${operation.summary}.`,
    `${operation.method} ${operation.path}; scope ${operation.scope}.`,
  ];
  if (operation.key) {
    parts.push(
      "A write: pass idempotency_key to retry safely (one is made when left out).",
    );
  }
  return parts.join(" ");
}

/** The tool of one operation. */
export function toolOf(operation: AnyOperation): ManageTool {
  const inputSchema = jsonSchemaOf(argumentSchemaOf(operation), "input");
  // A path parameter is always required, whatever its schema says about emptiness.
  const required = new Set(
    (inputSchema.required as string[] | undefined) ?? [],
  );
  for (const name of pathParams(operation.path)) required.add(name);
  inputSchema.required = [...required];
  const write = operation.method !== "GET";
  return {
    name: toolName(operation),
    title: operation.summary,
    description: describe(operation),
    inputSchema,
    outputSchema: outputSchemaOf(operation),
    annotations: {
      readOnlyHint: !write,
      destructiveHint: operation.method === "DELETE" ||
        /(^|-)(remove|purge|trash|delete)(-|$)/.test(operation.name),
      idempotentHint: !write || operation.key !== null,
      openWorldHint: false,
    },
    operation,
  };
}

/** Every tool of `operations`, in contract order; a clash of names is a contract bug. */
export function buildTools(
  operations: readonly AnyOperation[],
): ManageTool[] {
  const tools = operations.map(toolOf);
  const seen = new Set<string>();
  for (const tool of tools) {
    if (seen.has(tool.name)) {
      throw new Error(
        `Cannot list MCP tool "${tool.name}": two operations share the name`,
      );
    }
    seen.add(tool.name);
  }
  return tools;
}

/** A tool as `tools/list` answers it (without the operation). */
export function listedTool(tool: ManageTool): Json {
  return {
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: tool.inputSchema,
    outputSchema: tool.outputSchema,
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
