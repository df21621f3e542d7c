// The chrome answer (`/v1/_chrome`'s `data`) and a redirect rule as public document components.
// They say in JSON Schema what core/pages/chrome_shapes.ts and core/chrome/redirects say in
// TypeScript; every chrome and redirect answer the tests see is checked against them, and the
// JavaScript client's types are generated from them (deno task gen:client).
import type { Json } from "../openapi/components.ts";
import { ref } from "./openapi_public_routes.ts";

const nullableString = { type: ["string", "null"] };
const linkProperties: Record<string, Json> = {
  id: { type: "string" },
  label: { type: "string" },
  href: { type: "string" },
};

/** A link (`id`, `label`, `href`), with one more value when `extra` names it. */
function link(description: string, extra?: [string, Json]): Json {
  return {
    type: "object",
    description,
    properties: extra
      ? { ...linkProperties, [extra[0]]: extra[1] }
      : linkProperties,
    required: ["id", "label", "href", ...(extra ? [extra[0]] : [])],
  };
}

const CHROME_ITEM: Json = {
  type: "object",
  description:
    "A top-level menu item; a heading (an item leading nowhere itself) has `href: null`",
  properties: {
    ...linkProperties,
    href: nullableString,
    children: { type: "array", items: ref("ChromeLink") },
  },
  required: ["id", "label", "href", "children"],
};

/** A region block: its `kind` with what that kind carries, and its heading. */
function block(
  kind: string,
  properties: Record<string, Json>,
  description: string,
): Json {
  return {
    type: "object",
    description,
    properties: {
      kind: { const: kind },
      title: {
        ...nullableString,
        description: "The block's heading in the served language, if any",
      },
      ...properties,
    },
    required: ["kind", "title", ...Object.keys(properties)],
  };
}

const listOf = (component: string): Json => ({
  type: "array",
  items: ref(component),
});

const REGION_BLOCK: Json = {
  description: "One block of a region, by its kind",
  oneOf: [
    block("shared_section", {
      id: { type: "string" },
      document: {
        type: "object",
        additionalProperties: true,
        description:
          "The shared section's published sections, as a page document",
      },
    }, "A shared section"),
    block("menu", {
      key: { type: "string" },
      items: listOf("ChromeItem"),
    }, "A menu of the site"),
    block("search", { href: { type: "string" } }, "The site search"),
    block("recent_posts", {
      items: {
        type: "array",
        items: link("A post and when it was published", [
          "published_at",
          { type: "string", format: "date-time" },
        ]),
      },
    }, "The newest posts"),
    block("categories", {
      field: { type: "string" },
      items: listOf("CountedLink"),
    }, "A choice field's values with their post counts"),
    block("tags", {
      field: { type: "string" },
      items: listOf("CountedLink"),
    }, "Tags with their post counts"),
    block("posts_by_month", {
      months: {
        type: "array",
        description: "Newest month first; a month has no address of its own",
        items: {
          type: "object",
          properties: {
            month: { type: "string" },
            items: listOf("RegionLink"),
          },
          required: ["month", "items"],
        },
      },
    }, "Posts grouped by month"),
  ],
};

const REGION: Json = {
  type: "object",
  description:
    "One region the site's template declares, with what the site put in it",
  properties: {
    key: { type: "string" },
    label: { type: "string" },
    items: listOf("RegionBlock"),
  },
  required: ["key", "label", "items"],
};

const CHROME: Json = {
  type: "object",
  description: "Menus, placements, footer note and regions of one language",
  properties: {
    locale: { type: "string" },
    menus: {
      type: "object",
      additionalProperties: {
        type: "object",
        properties: { lang: { type: "string" }, items: listOf("ChromeItem") },
        required: ["lang", "items"],
      },
    },
    placements: {
      type: "object",
      properties: { header: nullableString, footer: nullableString },
      required: ["header", "footer"],
    },
    footer_note: {
      anyOf: [{
        type: "object",
        properties: { lang: { type: "string" }, text: { type: "string" } },
        required: ["lang", "text"],
      }, { type: "null" }],
    },
    regions: {
      ...listOf("Region"),
      description: "The site template's regions in its order",
    },
  },
  required: ["locale", "menus", "placements", "footer_note", "regions"],
};

const REDIRECT_RULE: Json = {
  type: "object",
  description: "A redirect rule, in precedence order",
  properties: {
    from: { type: "string" },
    match: { enum: ["exact", "pattern"] },
    status: { enum: [301, 302, 307, 308, 410, 451] },
    to: nullableString,
  },
  required: ["from", "match", "status", "to"],
};

/** The components the chrome and redirect answers name. */
export const CHROME_COMPONENTS: Record<string, Json> = {
  Chrome: CHROME,
  ChromeItem: CHROME_ITEM,
  ChromeLink: link("A link of a menu: a top-level item's child"),
  CountedLink: link("A region link with the number of posts behind it", [
    "count",
    { type: "integer" },
  ]),
  Region: REGION,
  RegionBlock: REGION_BLOCK,
  RegionLink: link("A link a region block lists"),
  RedirectRule: REDIRECT_RULE,
};
