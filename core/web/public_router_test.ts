// PublicRouter answers what Hono's PatternRouter answers for the public app's routes: the same
// handlers in the same order with the same parameters (it differs only in how it allocates).
import { deepEqual, equal } from "node:assert/strict";
import { PatternRouter } from "hono/router/pattern-router";
import { manifest } from "../../routes_public.gen.ts";
import { PublicRouter } from "./public_router.ts";

const ROUTES: [string, string][] = [
  ["ALL", "*"],
  ["ALL", "/v1/*"],
  ["GET", "/_static/*"],
  ...manifest.routes.map((r) => ["GET", r.pattern] as [string, string]),
  ["POST", "/v1/interactions/:action"],
  ["GET", "/optional/:name?"],
  ["GET", "/numbered/:id{[0-9]+}"],
  ["GET", "/files/*"],
  ["GET", "/dotted/file.json"],
  // A bare `*` is not bounded by a segment: "/prefixed" matches it.
  ["GET", "/prefix*"],
  ["ALL", "/v1/:model"],
];

const PATHS = [
  "/",
  "/health",
  "/healthz",
  "/health/ready",
  "/v1",
  "/v1/",
  "/v1/_searchx",
  "/v1/_search/suggestions",
  "/_static",
  "/health/",
  "/v1/posts",
  "/v1/posts/",
  "/v1/posts/en-post-7",
  "/v1/posts/en-post-7/extra",
  "/v1/_search",
  "/v1/_search/suggest",
  "/v1/_related/posts",
  "/v1/_shared/other/posts/a-slug",
  "/v1/_sitemap/posts/2",
  "/v1/interactions/like",
  "/media/site-1/photo.jpg",
  "/_static/app.css",
  "/optional",
  "/optional/ann",
  "/numbered/42",
  "/numbered/forty-two",
  "/files/a/b/c",
  "/dotted/file.json",
  "/dotted/fileXjson",
  "/dotted/file.jsonx",
  "/numbered",
  "/prefix",
  "/prefixed",
  "/prefix/ed",
  "/nowhere",
];

function routers() {
  const pattern = new PatternRouter<string>();
  const ours = new PublicRouter<string>();
  for (const [method, path] of ROUTES) {
    pattern.add(method, path, `${method} ${path}`);
    ours.add(method, path, `${method} ${path}`);
  }
  return { pattern, ours };
}

/** A match as plain data: each handler with its parameters (read from the stash when there is one). */
function plain(result: unknown): [string, Record<string, string>][] {
  const [handlers, stash] = result as [
    [string, Record<string, string | number>][],
    string[] | undefined,
  ];
  return handlers.map(([handler, params]) => [
    handler,
    Object.fromEntries(
      Object.entries(params).map((
        [name, at],
      ) => [name, stash ? stash[at as number] : at as string]),
    ),
  ]);
}

Deno.test("PublicRouter matches the public app's routes as PatternRouter does, for every method", () => {
  const { pattern, ours } = routers();
  for (const method of ["GET", "POST", "HEAD", "PURGE"]) {
    for (const path of PATHS) {
      deepEqual(
        plain(ours.match(method, path)),
        plain(pattern.match(method, path)),
        `${method} ${path}`,
      );
    }
  }
});

Deno.test("PublicRouter answers each route's entry made once, and a new stash of parameter values per match", () => {
  const { ours } = routers();
  const [first] = ours.match("GET", "/health") as unknown as [unknown[]];
  const [again] = ours.match("GET", "/health") as unknown as [unknown[]];
  equal(first[0], again[0]);
  const one = ours.match("GET", "/v1/posts/a") as unknown as [
    unknown[],
    string[],
  ];
  const two = ours.match("GET", "/v1/posts/b") as unknown as [
    unknown[],
    string[],
  ];
  deepEqual(one[0], two[0]);
  equal(one[0].at(-1), two[0].at(-1), "the same entry, not a copy");
  const slugOf = (match: unknown) =>
    plain(match).find(([, params]) => params.slug)?.[1].slug;
  deepEqual([slugOf(one), slugOf(two)], ["a", "b"]);
});

Deno.test("PublicRouter finds a route added after it has matched, in the order added", () => {
  const { pattern, ours } = routers();
  for (const router of [pattern, ours]) router.match("GET", "/v1/posts");
  for (const router of [pattern, ours]) router.add("GET", "/v1/:model", "late");
  deepEqual(
    plain(ours.match("GET", "/v1/posts")),
    plain(pattern.match("GET", "/v1/posts")),
  );
  equal(plain(ours.match("GET", "/v1/posts")).at(-1)?.[0], "late");
});
