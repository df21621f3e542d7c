// Builds the OpenAPI 3.1 document of the Management API from the contract.
import { z } from "zod";
import {
  type AnyOperation,
  BASE_PATH,
  COMMON_ERRORS,
  CONTRACT_VERSION,
  ERROR_STATUS,
  errorBody,
  type ErrorCode,
  KEY_ERRORS,
  pathParams,
  retentionMs,
} from "./contract/mod.ts";

/** A JSON Schema or OpenAPI object, as plain JSON. */
export type Json = Record<string, unknown>;

/** JSON Schema 2020-12 of a zod schema, without its `$schema` line. */
export function jsonSchemaOf(
  schema: z.ZodType,
  io: "input" | "output",
): Json {
  const { $schema: _, ...rest } = z.toJSONSchema(schema, {
    target: "draft-2020-12",
    io,
    unrepresentable: "any",
  }) as Json;
  return rest;
}

/**
 * JSON Schema of an operation's answer; a keyed write's answer may carry `replayed: true`
 * (a retry answered with the first result).
 */
export function answerSchemaOf(operation: AnyOperation): Json {
  const schema = jsonSchemaOf(operation.answer, "output");
  if (!operation.key || schema.type !== "object") return schema;
  return {
    ...schema,
    properties: {
      ...(schema.properties as Json),
      replayed: {
        const: true,
        description:
          "Present on a retry with the same Idempotency-Key: this is the first answer",
      },
    },
  };
}

const ERROR_REF = { $ref: "#/components/schemas/Error" };

/** The OpenAPI 3.1 document of `operations`. */
export function buildOpenApi(operations: readonly AnyOperation[]): Json {
  const paths: Record<string, Record<string, Json>> = {};
  for (const operation of operations) {
    paths[operation.path] ??= {};
    paths[operation.path][operation.method.toLowerCase()] = operationObject(
      operation,
    );
  }
  const tags = [...new Set(operations.map((o) => o.tag))].map((name) => ({
    name,
  }));
  return {
    openapi: "3.1.0",
    info: {
      title: "Stave Management API",
      version: CONTRACT_VERSION,
      description:
        "Manage one site's content, models and settings with a management credential. Generated from core/manage/contract; see docs/management-api.md.",
    },
    servers: [{ url: BASE_PATH }],
    security: [{ credential: [] }],
    tags,
    paths,
    components: {
      securitySchemes: {
        credential: {
          type: "http",
          scheme: "bearer",
          description:
            "A management credential: svm_ followed by 43 base64url characters",
        },
      },
      parameters: {
        IdempotencyKey: {
          name: "Idempotency-Key",
          in: "header",
          required: true,
          description:
            "1 to 128 visible ASCII characters (0x21 to 0x7E). A retry with the same key and body answers the first result with replayed: true",
          schema: { type: "string", pattern: "^[\\x21-\\x7E]{1,128}$" },
        },
      },
      headers: {
        RetryAfter: {
          description: "Seconds to wait before retrying",
          schema: { type: "integer", minimum: 1 },
        },
      },
      schemas: { Error: jsonSchemaOf(errorBody, "output") },
    },
  };
}

function operationObject(operation: AnyOperation): Json {
  const parameters: Json[] = [];
  const pathSchema = jsonSchemaOf(operation.params, "input");
  for (const name of pathParams(operation.path)) {
    parameters.push({
      name,
      in: "path",
      required: true,
      schema: propertyOf(pathSchema, name, operation, "path"),
    });
  }
  const querySchema = jsonSchemaOf(operation.query, "input");
  const required = (querySchema.required as string[] | undefined) ?? [];
  for (const name of Object.keys(querySchema.properties ?? {})) {
    parameters.push({
      name,
      in: "query",
      required: required.includes(name),
      schema: propertyOf(querySchema, name, operation, "query"),
    });
  }
  if (operation.key) {
    parameters.push({ $ref: "#/components/parameters/IdempotencyKey" });
  }
  const object: Json = {
    operationId: operation.name,
    summary: operation.summary,
    tags: [operation.tag],
    "x-scope": operation.scope,
  };
  if (operation.key) {
    object["x-idempotency"] = {
      retention_seconds: retentionMs(operation.key.retention) / 1000,
      settle: operation.key.settle,
    };
  }
  if (parameters.length > 0) object.parameters = parameters;
  if (operation.body && operation.multipart) {
    const parts = jsonSchemaOf(operation.body, "input");
    object.requestBody = {
      required: true,
      content: {
        "multipart/form-data": {
          schema: {
            ...parts,
            properties: {
              [operation.multipart.file]: {
                type: "string",
                contentMediaType: "application/octet-stream",
              },
              ...(parts.properties as Json ?? {}),
            },
            required: [operation.multipart.file, ...(parts.required as string[] ?? [])],
          },
        },
      },
    };
  } else if (operation.body) {
    object.requestBody = {
      required: true,
      content: {
        "application/json": { schema: jsonSchemaOf(operation.body, "input") },
      },
    };
  }
  object.responses = {
    [String(operation.status)]: {
      description: operation.summary,
      content: {
        "application/json": {
          schema: answerSchemaOf(operation),
        },
      },
    },
    ...errorResponses(operation),
  };
  return object;
}

function propertyOf(
  schema: Json,
  name: string,
  operation: AnyOperation,
  where: string,
): Json {
  const property = (schema.properties as Record<string, Json> | undefined)
    ?.[name];
  if (!property) {
    throw new Error(
      `Cannot describe operation "${operation.name}": ${where} parameter "${name}" has no schema`,
    );
  }
  return property;
}

function errorResponses(operation: AnyOperation): Record<string, Json> {
  const codes: ErrorCode[] = [
    ...COMMON_ERRORS,
    ...(operation.key ? KEY_ERRORS : []),
    ...operation.errors,
  ];
  if (pathParams(operation.path).length > 0) codes.push("not_found");
  const byStatus = new Map<number, Set<string>>();
  for (const code of codes) {
    const status = ERROR_STATUS[code];
    if (!byStatus.has(status)) byStatus.set(status, new Set());
    byStatus.get(status)!.add(code);
  }
  const responses: Record<string, Json> = {};
  for (const [status, set] of [...byStatus].sort((a, b) => a[0] - b[0])) {
    const response: Json = {
      description: [...set].join(", "),
      content: { "application/json": { schema: ERROR_REF } },
    };
    if (status === 429 || set.has("idempotency_in_progress")) {
      response.headers = {
        "Retry-After": { $ref: "#/components/headers/RetryAfter" },
      };
    }
    responses[String(status)] = response;
  }
  return responses;
}
