import { equal } from "node:assert/strict";
import { singularOf } from "./labels.ts";

Deno.test("singularOf() names one entry of a plural model name (New post, not New posts)", () => {
  equal(singularOf("Posts"), "post");
  equal(singularOf("Categories"), "category");
  equal(singularOf("Boxes"), "box");
  equal(singularOf("Branches"), "branch");
  equal(singularOf("Days"), "day");
  equal(singularOf("News"), "news");
  equal(singularOf("Press"), "press");
  equal(singularOf("Team"), "team");
  equal(singularOf("Landing pages"), "landing page");
});
