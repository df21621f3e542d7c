// Emits the backend's OpenAPI 3.1 description: every enabled operation of every model, its
// translation table and junctions, and the saved-query routes. Disabled operations are left out.
import { resourcesOf } from "./template/src/resource.ts";
import type {
  BackendSchema,
  ColumnSpec,
  Operation,
} from "./template/src/schema.ts";

const JSON_TYPES: Record<ColumnSpec["kind"], Record<string, unknown>> = {
  text: { type: "string" },
  rich_text: { type: "string", description: "HTML" },
  number: { type: "number" },
  integer: { type: "integer" },
  boolean: { type: "boolean" },
  date: { type: "string", format: "date" },
  datetime: { type: "string", format: "date-time" },
  select: { type: "string" },
  select_list: { type: "array", items: { type: "string" } },
  json: {},
  media_id: { type: "string", format: "uuid" },
  media_list: { type: "array", items: { type: "string", format: "uuid" } },
  media_url: { type: ["string", "null"] },
  media_originals: { type: "object" },
  rich_media: {
    type: "object",
    additionalProperties: { type: "string" },
    description:
      "Media id to address (or private-file marker) of the media the HTML shows",
  },
  relation: { type: "string", format: "uuid" },
  point: {
    type: "object",
    properties: { lat: { type: "number" }, lon: { type: "number" } },
  },
};

function columnSchema(column: ColumnSpec): Record<string, unknown> {
  const schema: Record<string, unknown> = { ...JSON_TYPES[column.kind] };
  if (column.minLength !== undefined) schema.minLength = column.minLength;
  if (column.maxLength !== undefined) schema.maxLength = column.maxLength;
  if (column.pattern !== undefined) schema.pattern = column.pattern;
  if (column.min !== undefined) schema.minimum = column.min;
  if (column.max !== undefined) schema.maximum = column.max;
  if (column.options) schema.enum = column.options;
  return column.required ? schema : { anyOf: [schema, { type: "null" }] };
}

const READ_PARAMETERS = [
  {
    name: "where",
    in: "query",
    description: "URL-encoded JSON equality selector",
    schema: { type: "string" },
  },
  {
    name: "orderBy",
    in: "query",
    description: 'URL-encoded JSON, e.g. {"id":"desc"}',
    schema: { type: "string" },
  },
  { name: "take", in: "query", schema: { type: "integer", minimum: 1 } },
  { name: "skip", in: "query", schema: { type: "integer", minimum: 0 } },
];

/** The description of `schema`. */
export function openapiOf(schema: BackendSchema): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  const schemas: Record<string, unknown> = {};
  for (const model of schema.models) {
    for (const resource of resourcesOf(model)) {
      const rowName = resource.label;
      schemas[rowName] = {
        type: "object",
        properties: {
          id: { type: "string", format: "uuid" },
          ...Object.fromEntries(
            resource.columns.map((c) => [c.name, columnSchema(c)]),
          ),
        },
        required: ["id"],
      };
      const row = { $ref: `#/components/schemas/${rowName}` };
      const ok = (description: string, body: unknown) => ({
        description,
        content: { "application/json": { schema: body } },
      });
      const enabled = (op: Operation) =>
        resource.ruleOf(op) !== null &&
        !model.disabled.includes(resource.decidingOp(op));
      const at = (suffix: string) => {
        const path = `/api/${resource.table}${suffix}`;
        return paths[path] ??= {};
      };
      const op = (name: Operation, extra: Record<string, unknown>) => ({
        operationId: `${resource.label}.${name}`,
        tags: [model.label],
        ...extra,
      });
      if (enabled("findMany")) {
        at("/").get = op("findMany", {
          parameters: READ_PARAMETERS,
          responses: { 200: ok("Rows", { type: "array", items: row }) },
        });
      }
      if (enabled("findManyPaginated")) {
        at("/paginated").get = op("findManyPaginated", {
          parameters: READ_PARAMETERS,
          responses: {
            200: ok("A page of rows", {
              type: "object",
              properties: {
                data: { type: "array", items: row },
                total: { type: "integer" },
                hasMore: { type: "boolean" },
              },
              required: ["data", "total", "hasMore"],
            }),
          },
        });
      }
      if (enabled("findUnique")) {
        at("/unique").get = op("findUnique", {
          parameters: READ_PARAMETERS.slice(0, 1),
          responses: {
            200: ok("The row or null", { anyOf: [row, { type: "null" }] }),
          },
        });
      }
      const body = (props: Record<string, unknown>) => ({
        required: true,
        content: {
          "application/json": {
            schema: {
              type: "object",
              properties: props,
              required: Object.keys(props),
              additionalProperties: false,
            },
          },
        },
      });
      const whereId = {
        type: "object",
        properties: { id: { type: "string", format: "uuid" } },
        required: ["id"],
      };
      if (enabled("create")) {
        at("/").post = op("create", {
          requestBody: body({ data: { type: "object" } }),
          responses: { 201: ok("The created row", row) },
        });
      }
      if (enabled("update")) {
        at("/").put = op("update", {
          requestBody: body({ where: whereId, data: { type: "object" } }),
          responses: { 200: ok("The updated row", row) },
        });
      }
      if (enabled("delete")) {
        at("/").delete = op("delete", {
          requestBody: body({ where: whereId }),
          responses: { 200: ok("The deleted row", row) },
        });
      }
    }
  }
  for (const query of schema.queries) {
    paths[`/api/_queries/${query.slug}`] = {
      get: {
        operationId: `queries.${query.slug}`,
        summary: query.name,
        parameters: [{
          name: "skip",
          in: "query",
          schema: { type: "integer", minimum: 0 },
        }],
        responses: {
          200: {
            description: "Rows",
            content: { "application/json": { schema: { type: "array" } } },
          },
        },
      },
    };
  }
  return {
    openapi: "3.1.0",
    info: { title: "Generated backend", version: "1.0.0" },
    components: {
      schemas,
      securitySchemes: { bearer: { type: "http", scheme: "bearer" } },
    },
    security: [{}, { bearer: [] }],
    paths,
  };
}
