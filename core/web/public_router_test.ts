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
];

const PATHS = [
  "/",
  "/health",
  "/health/ready",
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

/** A match as plain data: each handler with its parameters. */
function plain(result: unknown): [string, Record<string, string>][] {
  const [handlers] = result as [[string, Record<string, string>][]];
  return handlers.map(([handler, params]) => [handler, { ...params }]);
}

Deno.test("PublicRouter matches the public app's routes as PatternRouter does, for every method", () => {
  const { pattern, ours } = routers();
  for (const method of ["GET", "POST", "HEAD"]) {
    for (const path of PATHS) {
      deepEqual(
        plain(ours.match(method, path)),
        plain(pattern.match(method, path)),
        `${method} ${path}`,
      );
    }
  }
});

Deno.test("PublicRouter answers the same entry for a route without parameters and a new one with them", () => {
  const { ours } = routers();
  const [first] = ours.match("GET", "/health") as unknown as [unknown[]];
  const [again] = ours.match("GET", "/health") as unknown as [unknown[]];
  equal(first[0], again[0]);
  const [one] = ours.match("GET", "/v1/posts/a") as unknown as [
    [string, Record<string, string>][],
  ];
  const [two] = ours.match("GET", "/v1/posts/b") as unknown as [
    [string, Record<string, string>][],
  ];
  const slugOf = (handlers: [string, Record<string, string>][]) =>
    handlers.find(([, params]) => params.slug)?.[1].slug;
  deepEqual([slugOf(one), slugOf(two)], ["a", "b"]);
});
