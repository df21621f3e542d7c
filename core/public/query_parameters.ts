// The query parameters each public read route accepts: the parsers take their lists from here, and so does the public OpenAPI document.

/** Query parameters of each public `/v1` route; a name not listed is refused as unknown. */
export const PUBLIC_QUERY_PARAMETERS = {
  list: [
    "locale",
    "limit",
    "cursor",
    "order",
    "sort",
    "origin",
    "fields",
    "relation",
    "tag",
    "expand",
  ],
  single: ["locale", "preview", "expand"],
  related: ["cursor", "limit"],
  shared: ["locale", "limit", "cursor"],
  shared_item: ["locale"],
  search: ["q", "locale", "limit", "cursor"],
  suggest: ["q", "locale", "limit"],
  sync: ["cursor", "limit", "model", "locale"],
  chrome: ["locale"],
  client: [],
  redirects: [],
} as const satisfies Record<string, readonly string[]>;

/** The name of a public read route in {@link PUBLIC_QUERY_PARAMETERS}. */
export type PublicRouteName = keyof typeof PUBLIC_QUERY_PARAMETERS;
