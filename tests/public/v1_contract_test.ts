// The v1 public contract pinned (spec 3 part 9; inventory PUB-043): within /v1 the documented
// paths, parameters, status codes and response keys keep their meaning, so this file lists them
// as literals. Additions pass; removing or renaming anything fails here and belongs in /v2.
import { deepEqual, equal, ok } from "node:assert/strict";
import { openPublicWorld } from "./helpers.ts";

type Json = Record<string, unknown>;
const root = new URL("../..", import.meta.url).pathname.replace(/\/$/, "");

/** Per documented path: its parameters and status codes as v1 first shipped them. */
const V1_PATHS: Record<string, { params: string[]; statuses: string[] }> = {
  "/{model}": {
    params: [
      "model",
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
      "filter",
    ],
    statuses: ["200", "304", "400", "404"],
  },
  "/{model}/{slug}": {
    params: ["model", "slug", "locale", "preview", "expand"],
    statuses: ["200", "304", "400", "404"],
  },
  "/_related/{model}": {
    params: ["model", "cursor", "limit"],
    statuses: ["200", "304", "400", "404"],
  },
  "/_search": {
    params: ["q", "locale", "limit", "cursor"],
    statuses: ["200", "400", "404", "503"],
  },
  "/_search/suggest": {
    params: ["q", "locale", "limit"],
    statuses: ["200", "400", "404", "503"],
  },
  "/_sync": {
    params: ["cursor", "limit", "model", "locale"],
    statuses: ["200", "400", "404", "409", "503"],
  },
  "/_chrome": {
    params: ["locale"],
    statuses: ["200", "304", "400", "404", "500"],
  },
  "/_redirects": { params: [], statuses: ["200", "304", "400", "404", "500"] },
  "/_client": { params: [], statuses: ["200", "400", "404"] },
};

/** Response keys of the documented shapes. */
const V1_SHAPES: Record<string, string[]> = {
  Error: ["error"],
  Item: [
    "id",
    "slug",
    "locale",
    "model",
    "version",
    "published_at",
    "fields",
    "relations",
    "media",
  ],
  Page: ["limit", "has_more", "next_cursor"],
  ListItemsResponse: ["data", "page"],
  ReadItemResponse: ["data"],
  SearchHit: ["kind", "model", "slug", "locale"],
  SearchResponse: ["data", "page"],
  SuggestResponse: ["query", "data", "limit", "locale"],
  SyncResponse: ["data", "deleted", "changes", "phase", "next_cursor"],
  ReadChromeResponse: ["data"],
  ListRedirectsResponse: ["data"],
};

function resolve(document: Json, value: Json): Json {
  if (typeof value.$ref !== "string") return value;
  let node: unknown = document;
  for (const part of value.$ref.replace(/^#\//, "").split("/")) {
    node = (node as Json)[part];
  }
  return node as Json;
}

function missing(pinned: string[], present: string[]): string[] {
  return pinned.filter((p) => !present.includes(p));
}

Deno.test("the public document keeps every v1 path, parameter, status code and response key (PUB-043)", async () => {
  const document = JSON.parse(
    await Deno.readTextFile(`${root}/generated/openapi-public-v1.json`),
  ) as Json;
  deepEqual(document.servers, [{ url: "/v1" }]);
  const paths = document.paths as Record<string, { get: Json }>;
  for (const [path, pinned] of Object.entries(V1_PATHS)) {
    const get = paths[path]?.get;
    ok(get, `GET ${path} is documented`);
    const params = ((get.parameters ?? []) as Json[])
      .map((p) => resolve(document, p).name as string);
    deepEqual(missing(pinned.params, params), [], `${path} parameters`);
    const statuses = Object.keys(get.responses as Json);
    deepEqual(missing(pinned.statuses, statuses), [], `${path} statuses`);
  }
  const schemas = (document.components as Json).schemas as Record<
    string,
    Json
  >;
  for (const [name, keys] of Object.entries(V1_SHAPES)) {
    ok(schemas[name], `${name} is documented`);
    const present = Object.keys(schemas[name].properties as Json);
    deepEqual(missing(keys, present), [], `${name} keys`);
  }
});

Deno.test("the v1 routes answer the pinned statuses and keys (PUB-043)", async () => {
  const w = await openPublicWorld();
  const read = async (path: string) => {
    const res = await w.get(`/v1${path}`);
    return { status: res.status, body: await res.json() as Json };
  };
  const keysOf = (value: unknown) => Object.keys(value as Json);
  try {
    const list = await read("/posts?limit=1");
    equal(list.status, 200);
    deepEqual(missing(V1_SHAPES.ListItemsResponse, keysOf(list.body)), []);
    deepEqual(missing(V1_SHAPES.Page, keysOf(list.body.page)), []);
    const item = (list.body.data as Json[])[0];
    deepEqual(missing(V1_SHAPES.Item, keysOf(item)), []);
    const single = await read(`/posts/${item.slug}`);
    equal(single.status, 200);
    deepEqual(missing(V1_SHAPES.Item, keysOf(single.body.data)), []);
    const search = await read("/_search?q=edge");
    equal(search.status, 200);
    deepEqual(missing(V1_SHAPES.SearchResponse, keysOf(search.body)), []);
    const suggest = await read("/_search/suggest?q=ed&locale=en");
    equal(suggest.status, 200);
    deepEqual(missing(V1_SHAPES.SuggestResponse, keysOf(suggest.body)), []);
    const sync = await read("/_sync");
    equal(sync.status, 200);
    deepEqual(missing(V1_SHAPES.SyncResponse, keysOf(sync.body)), []);
    for (const path of ["/_chrome", "/_redirects"]) {
      const answer = await read(path);
      equal(answer.status, 200, path);
      deepEqual(keysOf(answer.body), ["data"], path);
    }
    equal((await read("/_client")).status, 404);
    // A refusal keeps the documented error shape and code.
    const refused = await read("/posts?limit=101");
    equal(refused.status, 400);
    deepEqual(keysOf(refused.body), V1_SHAPES.Error);
    deepEqual(
      missing(["code", "message"], keysOf(refused.body.error)),
      [],
    );
    equal((refused.body.error as Json).code, "public_filter_invalid");
  } finally {
    await w.close();
  }
});

Deno.test("every key a live v1 answer carries is in the public document", async () => {
  const document = JSON.parse(
    await Deno.readTextFile(`${root}/generated/openapi-public-v1.json`),
  ) as Json;
  const schemas = (document.components as Json).schemas as Record<
    string,
    Json
  >;
  const documented = (name: string) =>
    Object.keys(resolve(document, schemas[name]).properties as Json);
  const undocumented = (value: unknown, name: string) =>
    Object.keys(value as Json).filter((k) => !documented(name).includes(k));
  const w = await openPublicWorld();
  const read = async (path: string) => {
    const res = await w.get(`/v1${path}`);
    equal(res.status, 200, path);
    return await res.json() as Json;
  };
  try {
    const list = await read("/posts?limit=1");
    deepEqual(undocumented(list, "ListItemsResponse"), []);
    const item = (list.data as Json[])[0];
    deepEqual(undocumented(item, "Item"), []);
    const single = await read(`/posts/${item.slug}`);
    deepEqual(undocumented(single, "ReadItemResponse"), []);
    deepEqual(undocumented(single.data, "Item"), []);
    deepEqual(
      undocumented(await read("/_search?q=edge"), "SearchResponse"),
      [],
    );
    deepEqual(
      undocumented(
        await read("/_search/suggest?q=ed&locale=en"),
        "SuggestResponse",
      ),
      [],
    );
    deepEqual(undocumented(await read("/_sync"), "SyncResponse"), []);
  } finally {
    await w.close();
  }
});
