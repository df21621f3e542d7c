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
import { CHROME_COMPONENTS } from "./openapi_public_chrome.ts";
import { ITEM_MEDIA, MEDIA } from "./openapi_public_media.ts";
import {
  HIT,
  ITEM,
  MODEL_PARAM,
  PAGE,
  ref,
  RELATION_TARGET,
  RELATION_VALUE,
  ROUTES,
  SLUG_PARAM,
  SOURCE_PARAM,
  TAGS,
} from "./openapi_public_routes.ts";

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
    // Any read may meet a database that dropped its connection: a 503 with Retry-After.
    if (!errors[503]?.includes("temporary_failure")) {
      errors[503] = [...(errors[503] ?? []), "temporary_failure"];
    }
    for (const [status, codes] of Object.entries(errors)) {
      responses[status] = {
        description: codes.join(", "),
        content: { "application/json": { schema: ref("Error") } },
      };
    }
    // Any route may fail unexpectedly: a plain-text internal error, never a stack or SQL.
    const known = responses[500];
    responses[500] = {
      description: [
        known?.description,
        "an unexpected failure answers a plain-text internal error",
      ].filter(Boolean).join("; "),
      content: {
        ...(known?.content as Json | undefined),
        "text/plain": { schema: { type: "string" } },
      },
    };
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
    ...CHROME_COMPONENTS,
    Media: MEDIA,
    ItemMedia: ITEM_MEDIA,
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
