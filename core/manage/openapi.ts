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
import {
  IDEMPOTENCY_KEY_MAX_LENGTH,
  IDEMPOTENCY_KEY_MIN_LENGTH,
} from "../kv/idempotency_key.ts";
import { MANAGE_EXAMPLES } from "./examples.ts";
import {
  type BodySchema,
  extractComponents,
  pascalCase,
  type SchemaNames,
} from "../openapi/components.ts";

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

/** What each route family is for; a tag not listed here gets a generic line. */
export const TAG_DESCRIPTIONS: Record<string, string> = {
  site: "The site the credential belongs to",
  languages: "The site's languages: list them and add one",
  settings:
    "Settings documents (editorial, language fallback, media files, search, chrome, SEO, comments), each replaced whole at its revision",
  models: "Content models: their definitions, folders and removal",
  "model proposals":
    "Model changes proposed by scripts and agents for a person to apply",
  roles: "Roles and the permissions they grant",
  entries: "Entries and their languages, versions, dependents and publication",
  workflow: "Review stages and who acts next",
  trash: "Trash: move entries in, bring them back, delete them for good",
  relations: "Relation fields written from either side",
  proposals: "Field values proposed for a person to apply",
  editing: "Working drafts: one person's unsaved edit of one language",
  menus: "Navigation menus with labels by language",
  comments: "Visitors' comments: the moderation queue and decisions",
  plugins:
    "Installed plugins: their views, actions and operations, launch links and runs",
};

/** Options of {@link buildOpenApi}. */
export interface BuildOpenApiOptions {
  /** Names of shapes by their JSON text (`schemaNamesOf` over the contract modules). */
  schemaNames?: SchemaNames;
}

/** The OpenAPI 3.1 document of `operations`. */
export function buildOpenApi(
  operations: readonly AnyOperation[],
  options: BuildOpenApiOptions = {},
): Json {
  const paths: Record<string, Record<string, Json>> = {};
  const bodies: BodySchema[] = [];
  for (const operation of operations) {
    paths[operation.path] ??= {};
    const object = operationObject(operation);
    paths[operation.path][operation.method.toLowerCase()] = object;
    bodies.push(...bodySchemasOf(operation, object));
  }
  const schemas = {
    Error: jsonSchemaOf(errorBody, "output"),
    ...extractComponents(bodies, options.schemaNames ?? new Map()),
  };
  const tags = [...new Set(operations.map((o) => o.tag))].map((name) => ({
    name,
    description: TAG_DESCRIPTIONS[name] ?? `Operations on ${name}`,
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
            `${IDEMPOTENCY_KEY_MIN_LENGTH} to ${IDEMPOTENCY_KEY_MAX_LENGTH} visible ASCII characters (0x21 to 0x7E). A retry with the same key and body answers the first result with replayed: true`,
          schema: {
            type: "string",
            minLength: IDEMPOTENCY_KEY_MIN_LENGTH,
            maxLength: IDEMPOTENCY_KEY_MAX_LENGTH,
            pattern: "^[\\x21-\\x7E]+$",
          },
          example: "publish-hello-1",
        },
      },
      headers: {
        RetryAfter: {
          description: "Seconds to wait before retrying",
          schema: { type: "integer", minimum: 1 },
        },
      },
      schemas,
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
    description: descriptionOf(operation),
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
  if (operation.binary) {
    object.requestBody = {
      required: true,
      content: {
        "application/octet-stream": {
          schema: {
            type: "string",
            contentMediaType: "application/octet-stream",
          },
        },
      },
    };
  } else if (operation.body && operation.multipart) {
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
            required: [
              operation.multipart.file,
              ...(parts.required as string[] ?? []),
            ],
          },
        },
      },
    };
  } else if (operation.body) {
    object.requestBody = {
      required: true,
      content: {
        "application/json": withExample(
          { schema: jsonSchemaOf(operation.body, "input") },
          exampleOf(operation).request,
        ),
      },
    };
  }
  const content = {
    "application/json": withExample(
      { schema: answerSchemaOf(operation) },
      exampleOf(operation).response,
    ),
  };
  object.responses = {
    [String(operation.status)]: { description: operation.summary, content },
    // One content object for both: naming the answer's component names it in both.
    ...(operation.alsoStatus
      ? {
        [String(operation.alsoStatus.status)]: {
          description: operation.alsoStatus.when,
          content,
        },
      }
      : {}),
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
  // Any operation may fail unexpectedly (a client that hangs up mid-upload, a lost database).
  codes.push("internal_error");
  // Every body is refused before the handler runs when it is too large or of another type.
  if (operation.body || operation.binary) {
    codes.push(
      operation.tooLargeCode ?? "payload_too_large",
      "unsupported_content_type",
    );
  }
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

/** The request body and success answer of an operation object, to be named components. */
function bodySchemasOf(operation: AnyOperation, object: Json): BodySchema[] {
  const name = pascalCase(operation.name);
  const found: BodySchema[] = [];
  const request = (object.requestBody as Json | undefined)?.content as
    | Record<string, Json>
    | undefined;
  if (request?.["application/json"]) {
    found.push({
      holder: request["application/json"],
      fallbackName: `${name}Request`,
    });
  }
  for (const parameter of (object.parameters ?? []) as Json[]) {
    if (parameter.schema) {
      found.push({
        holder: parameter,
        fallbackName: `${name}${pascalCase(String(parameter.name))}`,
        always: false,
      });
    }
  }
  const answer = ((object.responses as Record<string, Json>)[
    String(operation.status)
  ].content as Record<string, Json>)["application/json"];
  found.push({ holder: answer, fallbackName: `${name}Response` });
  return found;
}

/**
 * The operation's own description, then what every reader needs from the contract: the scope,
 * the key rule and the refusals, so no operation goes without one.
 */
export function descriptionOf(operation: AnyOperation): string {
  const parts: string[] = [];
  if (operation.description) parts.push(operation.description);
  parts.push(
    `Needs a management credential holding the \`${operation.scope}\` scope.`,
  );
  if (operation.key) {
    const hours = retentionMs(operation.key.retention) / 3_600_000;
    const kept = hours >= 48 ? `${hours / 24} days` : `${hours} hours`;
    parts.push(
      `Send an \`Idempotency-Key\`: a retry with the same key and body within ${kept} answers the first result with \`replayed: true\` instead of repeating the write.`,
    );
  }
  if (operation.errors.length > 0) {
    parts.push(
      `Refusals of this operation: ${
        [...new Set(operation.errors)].map((c) => `\`${c}\``).join(", ")
      } (the error responses list every code by status).`,
    );
  }
  return parts.join("\n\n");
}

function withExample(media: Json, example: unknown): Json {
  return example === undefined ? media : { ...media, example };
}

/** The operation's own examples, else those recorded in examples.ts. */
export function exampleOf(
  operation: AnyOperation,
): { request?: unknown; response?: unknown } {
  return operation.examples ?? MANAGE_EXAMPLES[operation.name] ?? {};
}
