// Builds the OpenAPI 3.1 document of the public read API (`/v1`) from the parameter lists and limits its parsers use.
import { LIST_LIMITS } from "./list_params.ts";
import { RELATED_LIMITS } from "./related.ts";
import {
  PUBLIC_QUERY_PARAMETERS,
  type PublicRouteName,
} from "./query_parameters.ts";
import { SEARCH_LIMITS } from "../search/request.ts";
import { SYNC_LIMITS } from "../sync/read_sync.ts";
import { extractComponents, type Json } from "../openapi/components.ts";
import { PUBLIC_EXAMPLES } from "./openapi_public_examples.ts";

/** Version of the public read API document (`info.version`). */
export const PUBLIC_API_VERSION = "1.0.0";

/** Path of the public read API document, from the project root. */
export const PUBLIC_OPENAPI_PATH = "generated/openapi-public-v1.json";

interface ParameterDoc {
  description: string;
  schema: Json;
  example?: unknown;
  required?: boolean;
}

const locale: ParameterDoc = {
  description:
    "Language to read; unset is the site's default language. With the fallback policy, an item missing in this language is served in its fallback language",
  schema: { type: "string", pattern: "^[a-z]{2,3}(-[A-Za-z0-9]{2,8})*$" },
  example: "de",
};
const cursor: ParameterDoc = {
  description:
    "`page.next_cursor` of the previous page, sent back with the same other parameters (only `limit` may change); valid 24 hours",
  schema: { type: "string" },
};
const expand: ParameterDoc = {
  description:
    `Relation fields to inline as \`expanded.<field>\`, comma separated, at most ${LIST_LIMITS.expand}, each with up to 25 targets and a cursor for the rest`,
  schema: { type: "string" },
  example: "tags",
};
const limit = (max: number, fallback: number): ParameterDoc => ({
  description:
    `Items per page, 1 to ${max} (default ${fallback}); never clamped`,
  schema: { type: "integer", minimum: 1, maximum: max, default: fallback },
});
const searchQ = (min: number, max: number): ParameterDoc => ({
  description:
    `The words to look for, ${min} to ${max} characters; never stored or logged`,
  schema: { type: "string", minLength: min, maxLength: max },
  required: true,
  example: "caching",
});

/**
 * What each parameter of each route means. The type makes this complete: a parameter a parser
 * accepts and this page does not describe fails type checking, so the document cannot go stale.
 */
const PARAMETER_DOCS: {
  [R in PublicRouteName]: Record<
    (typeof PUBLIC_QUERY_PARAMETERS)[R][number],
    ParameterDoc
  >;
} = {
  list: {
    locale,
    limit: limit(LIST_LIMITS.limitMax, LIST_LIMITS.limitDefault),
    cursor,
    order: {
      description:
        "Publication order (`desc`, the default, is newest first) or `manual`, the editors' order; not together with `sort`",
      schema: { type: "string", enum: ["asc", "desc", "manual"] },
    },
    sort: {
      description:
        "`<field>` ascending or `-<field>` descending, on a number, date, datetime, text, slug, single-choice or point field; items without a value come last, ties by id",
      schema: { type: "string", pattern: "^-?[a-z][a-z0-9_]{0,63}$" },
      example: "-reading_minutes",
    },
    origin: {
      description:
        "`<latitude>,<longitude>` to sort a point field by distance from; only with a point sort",
      schema: { type: "string" },
      example: "52.52,13.40",
    },
    fields: {
      description:
        `Field keys to answer (and the item keys \`model\`, \`version\`, \`published_at\`), comma separated, at most ${LIST_LIMITS.fields}`,
      schema: { type: "string" },
      example: "title,published_on",
    },
    relation: {
      description:
        "`<field>:<item id>`: items whose relation field links to that item; may repeat (all must match)",
      schema: { type: "string" },
    },
    tag: {
      description:
        "`<field>:<slug>`: items whose relation field links to the item with that slug in the served language; may repeat",
      schema: { type: "string" },
      example: "tags:deno",
    },
    expand,
  },
  single: {
    locale,
    preview: {
      description:
        "A preview token (`sv_prev_`, valid 30 minutes) from the admin: serves the current draft instead of the published version, never cached",
      schema: { type: "string" },
    },
    expand,
  },
  related: {
    cursor: { ...cursor, required: true },
    limit: limit(RELATED_LIMITS.max, RELATED_LIMITS.default),
  },
  shared: {
    locale,
    limit: limit(LIST_LIMITS.limitMax, LIST_LIMITS.limitDefault),
    cursor,
  },
  shared_item: { locale },
  search: {
    q: searchQ(SEARCH_LIMITS.q.min, SEARCH_LIMITS.q.max),
    locale,
    limit: limit(SEARCH_LIMITS.limit.max, SEARCH_LIMITS.limit.default),
    cursor,
  },
  suggest: {
    q: { ...searchQ(SEARCH_LIMITS.suggestQ.min, SEARCH_LIMITS.suggestQ.max) },
    locale: { ...locale, required: true, example: "en" },
    limit: limit(
      SEARCH_LIMITS.suggestLimit.max,
      SEARCH_LIMITS.suggestLimit.default,
    ),
  },
  sync: {
    cursor: {
      description:
        "`next_cursor` of the previous answer: a snapshot page, then signed change checkpoints",
      schema: { type: "string" },
    },
    limit: limit(SYNC_LIMITS.max, SYNC_LIMITS.default),
    model: {
      description: "Model slug to sync; required to start a snapshot",
      schema: { type: "string" },
      example: "posts",
    },
    locale,
  },
  chrome: { locale },
  client: {},
  redirects: {},
};

interface RouteDoc {
  route: PublicRouteName;
  path: string;
  operationId: string;
  summary: string;
  description: string;
  tag: string;
  /** Refusal codes by status, besides the `404 unknown_host` every route may answer. */
  errors: Record<number, string[]>;
  answer: Json;
  /** Takes `filter[<field>]` and `filter[<field>][gt|gte|lt|lte]`. */
  filters?: boolean;
  /** Answers `304` to a matching `If-None-Match`. */
  etag?: boolean;
}

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const MODEL_PARAM = {
  name: "model",
  in: "path",
  required: true,
  description: "The model's slug",
  schema: { type: "string" },
  example: "posts",
};
const SOURCE_PARAM = {
  name: "source",
  in: "path",
  required: true,
  description: "The slug of the site that shares its content with this one",
  schema: { type: "string" },
  example: "newsroom",
};
const SLUG_PARAM = {
  name: "slug",
  in: "path",
  required: true,
  description: "The item's slug in the requested language",
  schema: { type: "string" },
  example: "hello",
};

/** A target of a relation field that may point at items of several models. */
const RELATION_TARGET: Json = {
  type: "object",
  description:
    "A target of a relation field that may point at several models: its model's slug and its id",
  properties: {
    model: { type: "string" },
    id: { type: "string", format: "uuid" },
  },
  required: ["model", "id"],
};

/** What one relation field carries, for every relation shape a model may declare. */
const RELATION_VALUE: Json = {
  description:
    "One relation field. To-one: the target's id, or `{ model, id }` when the field may point at several models; `null` when empty or when the target is not readable here. To-many: a list of the same, in order, `[]` when empty; unreadable targets are left out",
  anyOf: [
    { type: "string", format: "uuid" },
    { $ref: "#/components/schemas/RelationTarget" },
    {
      type: "array",
      items: {
        anyOf: [
          { type: "string", format: "uuid" },
          { $ref: "#/components/schemas/RelationTarget" },
        ],
      },
    },
    { type: "null" },
  ],
};

const ITEM: Json = {
  type: "object",
  description:
    "A published item in one language. `fields` holds the model's public fields by key",
  properties: {
    id: { type: "string", format: "uuid" },
    slug: { type: "string" },
    locale: { type: "string" },
    model: { type: "string", description: "The model's slug" },
    version: { type: "integer", minimum: 1 },
    published_at: { type: "string", format: "date-time" },
    fields: { type: "object", additionalProperties: true },
    relations: {
      type: "object",
      description:
        "Relation fields by key, each a `RelationValue` (to-one: an id or null; to-many: a list)",
      additionalProperties: { $ref: "#/components/schemas/RelationValue" },
    },
    media: { type: "object", additionalProperties: true },
    alternates: {
      type: "array",
      description:
        "Single reads only: the same item's slug in each language it is published in",
      items: {
        type: "object",
        properties: { locale: { type: "string" }, slug: { type: "string" } },
        required: ["locale", "slug"],
      },
    },
    expanded: {
      type: "object",
      description:
        "With `expand`: each expanded relation field's first targets, `{ data, page }`",
      additionalProperties: true,
    },
    page_contract: {
      type: "object",
      description:
        "Items of a model holding page documents: the page contract the document needs (`required`), or why it is withheld (`error`, with `slides` null)",
      properties: {
        required: { type: ["integer", "null"] },
        error: { type: "object", additionalProperties: true },
      },
      required: ["required"],
    },
  },
  required: ["id", "slug", "locale", "fields"],
  additionalProperties: true,
};
const CONTRACTS: Json = {
  type: "object",
  description:
    "The contracts this service serves: `page.served` is the newest page-document contract version it delivers",
  properties: {
    page: {
      type: "object",
      properties: { served: { type: "integer" } },
      required: ["served"],
    },
  },
  required: ["page"],
};
const PAGE: Json = {
  type: "object",
  properties: {
    limit: { type: "integer" },
    has_more: { type: "boolean" },
    next_cursor: { type: ["string", "null"] },
  },
  required: ["limit", "has_more", "next_cursor"],
};
const HIT: Json = {
  type: "object",
  properties: {
    kind: { type: "string" },
    model: { type: "string" },
    slug: { type: "string" },
    locale: { type: "string" },
    title: { type: "string" },
    summary: { type: ["string", "null"] },
  },
  required: ["kind", "model", "slug", "locale", "title"],
};

const ROUTES: RouteDoc[] = [
  {
    route: "list",
    path: "/{model}",
    operationId: "list-items",
    summary: "List a model's published items, one page at a time",
    description:
      "Newest first unless `order` or `sort` says otherwise. Filters: `filter[<field>]=<value>` (repeat for alternatives) and `filter[<field>][gt|gte|lt|lte]=<value>` on number and date fields. A private model answers the same 404 as a missing one unless a site API token naming it is sent.",
    tag: "items",
    errors: {
      400: [
        "public_filter_invalid",
        "public_filter_too_many",
        "public_filter_type_unsupported",
        "public_expand_invalid",
        "public_expand_too_deep",
        "public_expand_too_many",
        "public_cursor_mismatch",
      ],
      404: ["not_found"],
    },
    answer: {
      type: "object",
      properties: {
        data: { type: "array", items: ITEM },
        page: PAGE,
        contracts: CONTRACTS,
      },
      required: ["data", "page", "contracts"],
    },
    filters: true,
    etag: true,
  },
  {
    route: "single",
    path: "/{model}/{slug}",
    operationId: "read-item",
    summary: "Read one published item by its slug",
    description:
      "Answers the item in the requested language (or its fallback), with `alternates` (the same item's slugs in other languages) and any expanded relations.",
    tag: "items",
    errors: {
      400: ["public_filter_invalid", "public_expand_invalid"],
      404: ["not_found", "ambiguous_slug"],
    },
    answer: {
      type: "object",
      properties: { data: ITEM, contracts: CONTRACTS },
      required: ["data", "contracts"],
    },
    etag: true,
  },
  {
    route: "related",
    path: "/_related/{model}",
    operationId: "list-related",
    summary: "Continue an expanded relation field past its first 25 targets",
    description:
      "`{model}` is the source model; `cursor` is `expanded.<field>.page.next_cursor` of the item read.",
    tag: "items",
    errors: {
      400: ["public_filter_invalid", "public_cursor_stale"],
      404: ["not_found"],
    },
    answer: {
      type: "object",
      properties: {
        data: { type: "array", items: ITEM },
        page: PAGE,
        contracts: CONTRACTS,
      },
      required: ["data", "page", "contracts"],
    },
    etag: true,
  },
  {
    route: "shared",
    path: "/_shared/{source}/{model}",
    operationId: "list-shared-items",
    summary: "List the published items another site shares with this one",
    description:
      "Only content types the source site shares with this site through a shared-content grant, and only their published public items and fields, newest first. Any other type, site or parameter answers as a missing model; nothing here writes to the source.",
    tag: "items",
    errors: {
      400: ["public_filter_invalid", "public_cursor_mismatch"],
      404: ["not_found"],
    },
    answer: {
      type: "object",
      properties: {
        data: { type: "array", items: ITEM },
        page: PAGE,
        contracts: CONTRACTS,
      },
      required: ["data", "page", "contracts"],
    },
    etag: true,
  },
  {
    route: "shared_item",
    path: "/_shared/{source}/{model}/{slug}",
    operationId: "read-shared-item",
    summary: "Read one published item another site shares with this one",
    description:
      "The item as the source site serves it publicly, in the requested language or its fallback; no preview or expansion.",
    tag: "items",
    errors: {
      400: ["public_filter_invalid"],
      404: ["not_found", "ambiguous_slug"],
    },
    answer: {
      type: "object",
      properties: { data: ITEM, contracts: CONTRACTS },
      required: ["data", "contracts"],
    },
    etag: true,
  },
  {
    route: "search",
    path: "/_search",
    operationId: "search",
    summary: "Search published content in one language",
    description:
      "Matches every word of `q` in the fields the search settings name, best matches first. Never cached and never logged.",
    tag: "search",
    errors: {
      400: ["public_search_invalid"],
      404: ["search_off"],
      503: ["search_unavailable"],
    },
    answer: {
      type: "object",
      properties: { data: { type: "array", items: HIT }, page: PAGE },
      required: ["data", "page"],
    },
  },
  {
    route: "suggest",
    path: "/_search/suggest",
    operationId: "suggest",
    summary: "Suggest a few titles while the reader types",
    description:
      "Titles starting with the words come first, then titles containing them. Never cached and never logged.",
    tag: "search",
    errors: {
      400: ["public_search_invalid"],
      404: ["search_off"],
      503: ["search_unavailable"],
    },
    answer: {
      type: "object",
      properties: {
        query: { type: "string" },
        data: { type: "array", items: HIT },
        limit: { type: "integer" },
        locale: { type: "string" },
      },
      required: ["query", "data", "limit", "locale"],
    },
  },
  {
    route: "sync",
    path: "/_sync",
    operationId: "sync",
    summary: "Copy a model's published items, then follow its changes",
    description:
      "Start with `model` (and `locale`): snapshot pages come first (`phase: snapshot`), then ordered changes with signed checkpoints (`phase: changes`). Keep `next_cursor` and send it back; a `409 reset_required` asks for a new snapshot.",
    tag: "sync",
    errors: {
      400: ["sync_query_invalid"],
      409: ["reset_required"],
      503: ["sync_dependency_unavailable"],
    },
    answer: {
      type: "object",
      properties: {
        data: { type: "array", items: ITEM },
        deleted: {
          type: "array",
          items: {
            type: "object",
            properties: {
              id: { type: "string" },
              model: { type: "string" },
              locale: { type: "string" },
            },
            required: ["id", "model", "locale"],
          },
        },
        changes: {
          type: "array",
          description: "The changes in the order to apply them",
          items: {
            type: "object",
            properties: {
              kind: { type: "string", enum: ["upsert", "delete"] },
              id: { type: "string" },
              model: { type: "string" },
            },
            required: ["kind", "id", "model"],
          },
        },
        phase: { type: "string", enum: ["snapshot", "changes"] },
        next_cursor: {
          type: ["string", "null"],
          description:
            "Set while more rows wait: send it back for the next page; null once caught up",
        },
        checkpoint: {
          type: ["string", "null"],
          description:
            "Set once caught up: send it back later to read what changed since",
        },
        reset_reason: { type: "null" },
      },
      required: [
        "data",
        "deleted",
        "changes",
        "phase",
        "next_cursor",
        "checkpoint",
        "reset_reason",
      ],
    },
  },
  {
    route: "chrome",
    path: "/_chrome",
    operationId: "read-chrome",
    summary: "Read the site chrome of one language: menus, placements, footer",
    description:
      "Menus with their labels in the requested language, the header and footer placements, the footer note and regions.",
    tag: "site",
    errors: {
      400: ["public_filter_invalid", "public_chrome_invalid"],
      500: ["site_chrome_unreadable"],
    },
    answer: {
      type: "object",
      properties: { data: { type: "object", additionalProperties: true } },
      required: ["data"],
    },
    etag: true,
  },
  {
    route: "redirects",
    path: "/_redirects",
    operationId: "list-redirects",
    summary: "List the site's redirects in precedence order",
    description:
      "For front ends and edge workers that answer old addresses; takes no query string.",
    tag: "site",
    errors: {
      400: ["public_filter_invalid"],
      500: ["site_chrome_unreadable"],
    },
    answer: {
      type: "object",
      properties: {
        data: {
          type: "array",
          items: { type: "object", additionalProperties: true },
        },
      },
      required: ["data"],
    },
    etag: true,
  },
  {
    route: "client",
    path: "/_client",
    operationId: "download-client",
    summary: "Download the typed client of the models a site API token reads",
    description:
      "Needs a site API token; answers 404 without one. Takes no query string and is never cached.",
    tag: "site",
    errors: { 400: ["public_filter_invalid"], 404: ["not_found"] },
    answer: {
      type: "object",
      properties: {
        data: {
          type: "object",
          properties: {
            contract_version: { type: "integer" },
            schema_identity: { type: "string" },
            site: { type: "string" },
            url: {
              type: "string",
              format: "uri",
              description:
                "This API's address as the request reached it (the site's host on the service's public scheme)",
            },
            models: { type: "array", items: { type: "string" } },
            contract: { type: "object", additionalProperties: true },
            source: {
              type: "string",
              description:
                "TypeScript source of a small fetch client with one fields type per model",
            },
          },
          required: [
            "contract_version",
            "schema_identity",
            "site",
            "url",
            "models",
            "contract",
            "source",
          ],
        },
      },
      required: ["data"],
    },
  },
];

const TAGS = [
  { name: "items", description: "Published items of public models" },
  { name: "search", description: "Live search and suggestions" },
  { name: "sync", description: "Snapshot and change feed for mirrors" },
  { name: "site", description: "Site chrome, redirects and the typed client" },
];

const ERROR_SCHEMA: Json = {
  type: "object",
  properties: {
    error: {
      type: "object",
      properties: {
        code: { type: "string" },
        message: { type: "string" },
      },
      required: ["code", "message"],
      additionalProperties: true,
    },
  },
  required: ["error"],
};

/** The OpenAPI 3.1 document of the public read API. */
export function buildPublicOpenApi(): Json {
  const paths: Record<string, Json> = {};
  const bodies = [];
  for (const route of ROUTES) {
    const parameters: Json[] = [];
    if (route.path.includes("{source}")) parameters.push(SOURCE_PARAM);
    if (route.path.includes("{model}")) parameters.push(MODEL_PARAM);
    if (route.path.includes("{slug}")) parameters.push(SLUG_PARAM);
    const docs = PARAMETER_DOCS[route.route] as Record<string, ParameterDoc>;
    for (const name of PUBLIC_QUERY_PARAMETERS[route.route]) {
      const doc = docs[name];
      const parameter: Json = {
        name,
        in: "query",
        required: doc.required ?? false,
        description: doc.description,
        schema: doc.schema,
      };
      if (doc.example !== undefined) parameter.example = doc.example;
      parameters.push(parameter);
    }
    if (route.filters) {
      parameters.push({
        name: "filter",
        in: "query",
        style: "deepObject",
        explode: true,
        description:
          `\`filter[<field>]=<value>\` for equality (repeat for alternatives, at most ${LIST_LIMITS.filterValues}), \`filter[<field>][gt|gte|lt|lte]=<value>\` for a range; at most ${LIST_LIMITS.filterFields} fields`,
        schema: { type: "object", additionalProperties: { type: "string" } },
        example: { category: "guide" },
      });
    }
    const media: Json = { schema: route.answer };
    const example = PUBLIC_EXAMPLES[route.route];
    if (example) media.example = example;
    bodies.push({
      holder: media,
      fallbackName: `${pascal(route.operationId)}Response`,
    });
    const responses: Record<string, Json> = {
      200: {
        description: route.summary,
        content: { "application/json": media },
      },
    };
    if (route.etag) {
      responses[304] = {
        description: "Not modified: the `If-None-Match` ETag still matches",
      };
    }
    const errors = { ...route.errors };
    errors[404] = [...(errors[404] ?? []), "unknown_host"];
    for (const [status, codes] of Object.entries(errors)) {
      responses[status] = {
        description: codes.join(", "),
        content: { "application/json": { schema: ref("Error") } },
      };
    }
    paths[route.path] = {
      get: {
        operationId: route.operationId,
        summary: route.summary,
        description: route.description,
        tags: [route.tag],
        parameters,
        responses,
      },
    };
  }
  const schemas = {
    Error: ERROR_SCHEMA,
    RelationValue: RELATION_VALUE,
    RelationTarget: RELATION_TARGET,
    ...extractComponents(
      bodies,
      new Map([[JSON.stringify(ITEM), "Item"], [
        JSON.stringify(PAGE),
        "Page",
      ], [JSON.stringify(HIT), "SearchHit"]]),
    ),
  };
  return {
    openapi: "3.1.0",
    info: {
      title: "Stave Public Read API",
      version: PUBLIC_API_VERSION,
      description:
        "Read one site's published content. The site comes from the Host header. Public models need no credential; private models answer the same 404 as a missing one unless a site API token naming them is sent. Generated from core/public (the parameter lists the parsers use); see docs/public-read-api.md.",
    },
    servers: [{ url: "/v1" }],
    security: [{}, { siteToken: [] }],
    tags: TAGS,
    paths,
    components: {
      securitySchemes: {
        siteToken: {
          type: "http",
          scheme: "bearer",
          description:
            "A site API token (`sv_site_…`) naming the private models it may read; optional for public models",
        },
      },
      schemas,
    },
  };
}

function pascal(text: string): string {
  return text.split("-").map((w) => w[0].toUpperCase() + w.slice(1)).join("");
}
