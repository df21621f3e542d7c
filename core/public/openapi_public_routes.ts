// The public read API's routes as its OpenAPI document describes them: each route's answer
// schema, refusals and tag, and the shared path parameters and item schemas they use.
import type { Json } from "../openapi/components.ts";
import type { PublicRouteName } from "./query_parameters.ts";

export interface RouteDoc {
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

export const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
export const MODEL_PARAM = {
  name: "model",
  in: "path",
  required: true,
  description: "The model's slug",
  schema: { type: "string" },
  example: "posts",
};
export const SOURCE_PARAM = {
  name: "source",
  in: "path",
  required: true,
  description: "The slug of the site that shares its content with this one",
  schema: { type: "string" },
  example: "newsroom",
};
export const SLUG_PARAM = {
  name: "slug",
  in: "path",
  required: true,
  description: "The item's slug in the requested language",
  schema: { type: "string" },
  example: "hello",
};

/** A target of a relation field that may point at items of several models. */
export const RELATION_TARGET: Json = {
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
export const RELATION_VALUE: Json = {
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

export const ITEM: Json = {
  type: "object",
  description:
    "A published item in one language. `fields` holds the model's public fields by key. With a `fields` selection, only the selected parts are present: `fields`, `relations` and `media` only when a selected field is of their kind, and `model`, `version` and `published_at` only when named",
  properties: {
    id: { type: "string", format: "uuid" },
    slug: { type: "string" },
    locale: { type: "string" },
    model: { type: "string", description: "The model's slug" },
    version: { type: "integer", minimum: 1 },
    published_at: {
      type: ["string", "null"],
      format: "date-time",
      description:
        "When this version was published; null in a preview of a draft that was never published",
    },
    fields: { type: "object", additionalProperties: true },
    relations: {
      type: "object",
      description:
        "Relation fields by key, each a `RelationValue` (to-one: an id or null; to-many: a list)",
      additionalProperties: { $ref: "#/components/schemas/RelationValue" },
    },
    media: ref("ItemMedia"),
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
  // With a `fields` selection, `fields`, `relations` and `media` appear only when a selected
  // field is of their kind (PUB-023): an answer of `fields=title` has no `relations`.
  required: ["id", "slug", "locale"],
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
export const PAGE: Json = {
  type: "object",
  properties: {
    limit: { type: "integer" },
    has_more: { type: "boolean" },
    next_cursor: { type: ["string", "null"] },
  },
  required: ["limit", "has_more", "next_cursor"],
};
export const HIT: Json = {
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

export const ROUTES: RouteDoc[] = [
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
        "public_filter_too_many_values",
        "public_filter_type_unsupported",
        "public_expand_invalid",
        "public_expand_too_deep",
        "public_expand_too_many",
        "public_cursor_mismatch",
      ],
      404: ["not_found", "locale_unavailable"],
      500: ["site_locale_policy_invalid"],
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
      400: [
        "public_filter_invalid",
        "public_expand_invalid",
        "public_expand_too_deep",
        "public_expand_too_many",
      ],
      404: ["not_found", "ambiguous_slug", "locale_unavailable"],
      // A preview never shows half a page: the page or one of its pictures cannot be presented.
      422: [
        "unreadable_page",
        "page_media_unavailable",
        "media_presentation_unreadable",
        "media_presentation_revision_unavailable",
        "media_presentation_mismatch",
        "media_size_missing",
      ],
      500: ["site_locale_policy_invalid"],
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
      properties: { data: ref("Chrome") },
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
        data: { type: "array", items: ref("RedirectRule") },
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

export const TAGS = [
  { name: "items", description: "Published items of public models" },
  { name: "search", description: "Live search and suggestions" },
  { name: "sync", description: "Snapshot and change feed for mirrors" },
  { name: "site", description: "Site chrome, redirects and the typed client" },
];
