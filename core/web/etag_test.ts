import { deepEqual, equal } from "node:assert/strict";
import { entityTags, noneMatchHits } from "./etag.ts";

Deno.test("entityTags() reads a list tag by tag: W/ dropped, commas inside a tag kept, `*` alone", () => {
  deepEqual(entityTags(' W/"a", "b,c" ,"d"'), ['"a"', '"b,c"', '"d"']);
  deepEqual(entityTags("*"), "*");
  deepEqual(entityTags('"a", junk, "b"'), ['"a"']);
  deepEqual(entityTags(""), []);
});

Deno.test("noneMatchHits() compares weakly (RFC 9110): W/ on either side matches, `*` matches anything", () => {
  equal(noneMatchHits('W/"v1"', '"v1"'), true);
  equal(noneMatchHits('"v1"', 'W/"v1"'), true);
  equal(noneMatchHits('"x", W/"v1"', '"v1"'), true);
  equal(noneMatchHits("*", '"v1"'), true);
  equal(noneMatchHits('"v2"', '"v1"'), false);
  equal(noneMatchHits('W/"v2"', '"v1"'), false);
  equal(noneMatchHits(undefined, '"v1"'), false);
  equal(noneMatchHits("v1", '"v1"'), false);
});
