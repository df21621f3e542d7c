import { deepEqual } from "node:assert/strict";
import { circlesOf, importsOf, projectCircles } from "./import_circles.ts";

Deno.test("circlesOf() finds groups that reach each other, and nothing else", () => {
  const graph = new Map([
    ["a", ["b"]],
    ["b", ["c"]],
    ["c", ["a", "d"]],
    ["d", []],
    ["e", ["e"]],
  ]);
  deepEqual(circlesOf(graph), [["a", "b", "c"]]);
});

Deno.test("importsOf() reads value, type and re-export imports over several lines", () => {
  const source = [
    'import { a } from "./a.ts";',
    "import type {",
    "  B,",
    '} from "../b.ts";',
    'export { c } from "./c.ts";',
    'import { z } from "zod";',
  ].join("\n");
  deepEqual(importsOf("/p/core/x.ts", source), [
    "/p/core/a.ts",
    "/p/b.ts",
    "/p/core/c.ts",
  ]);
});

Deno.test("the project has no import circle", async () => {
  const found = await projectCircles(new URL("..", import.meta.url).pathname);
  deepEqual(found, []);
});
