import { deepEqual, equal, throws } from "node:assert/strict";
import { compareSpecificity, parseRouteFile } from "./route_paths.ts";

Deno.test("parseRouteFile() maps Fresh file names to Hono patterns", () => {
  const cases: [string, string][] = [
    ["index.tsx", "/"],
    ["health.ts", "/health"],
    ["admin/index.tsx", "/admin"],
    ["v1/[model]/[slug].ts", "/v1/:model/:slug"],
    ["v1/[model]/index.ts", "/v1/:model"],
    ["(public)/about.tsx", "/about"],
    ["files/[...rest].ts", "/files/:rest{.+}"],
    [
      "api/manage/v1/entries/[id]/publish.ts",
      "/api/manage/v1/entries/:id/publish",
    ],
  ];
  for (const [file, pattern] of cases) {
    equal(parseRouteFile("routes", file)?.pattern, pattern, file);
  }
});

Deno.test("parseRouteFile() recognises middleware, layouts, the app shell and skips tests", () => {
  deepEqual(parseRouteFile("routes", "admin/_middleware.ts"), {
    file: "routes/admin/_middleware.ts",
    kind: "middleware",
    folder: "admin",
  });
  equal(parseRouteFile("routes", "(group)/_layout.tsx")?.kind, "layout");
  equal(parseRouteFile("routes", "(group)/_layout.tsx")?.folder, "(group)");
  equal(parseRouteFile("routes", "_app.tsx")?.kind, "app");
  equal(parseRouteFile("routes", "health_test.ts"), null);
  equal(parseRouteFile("routes", "_helpers.ts"), null);
  equal(parseRouteFile("routes", "README.md"), null);
});

Deno.test("parseRouteFile() refuses unparseable segments and a nested _app", () => {
  throws(
    () => parseRouteFile("routes", "v1/[a][b].ts"),
    /Cannot parse route segment "\[a\]\[b\]"/,
  );
  throws(
    () => parseRouteFile("routes", "v1/[a-b].ts"),
    /expected a literal, \[name\] or \[\.\.\.name\]/,
  );
  throws(
    () => parseRouteFile("routes", "admin/_app.tsx"),
    /_app belongs at the routes root only/,
  );
});

Deno.test("compareSpecificity() puts literals before parameters before catch-alls", () => {
  const sorted = [
    "/v1/:model{.+}",
    "/v1/:model",
    "/v1/_sync",
    "/v1/:model/:slug",
    "/v1/_related/:model",
  ]
    .sort(compareSpecificity);
  deepEqual(sorted, [
    "/v1/_sync",
    "/v1/_related/:model",
    "/v1/:model",
    "/v1/:model/:slug",
    "/v1/:model{.+}",
  ]);
});
