// copyJson: a deep copy of JSON data that shares nothing with the original.
import { deepEqual, equal, notEqual, ok } from "node:assert/strict";
import { copyJson } from "./json_copy.ts";

Deno.test("copyJson copies JSON data deeply: equal to the original and to structuredClone's copy, sharing no object or array", () => {
  const original = {
    key: "editorial",
    document: {
      version_retention_days: null,
      review_required: false,
      allowed_embed_origins: ["https://a.test", "https://b.test"],
      nested: [{ a: 1, b: [true, null, "x"] as unknown[] }, { a: 2, b: [] }],
      empty: {},
    },
    revision: 3,
    updated_at: "2026-11-30T20:00:00.000Z",
  };
  const copy = copyJson(original);
  deepEqual(copy, original);
  deepEqual(copy, structuredClone(original));
  notEqual(copy, original);
  notEqual(copy.document, original.document);
  notEqual(
    copy.document.allowed_embed_origins,
    original.document.allowed_embed_origins,
  );
  notEqual(copy.document.nested[0], original.document.nested[0]);
  copy.document.allowed_embed_origins.push("https://c.test");
  copy.document.nested[0].b.pop();
  equal(original.document.allowed_embed_origins.length, 2);
  equal(original.document.nested[0].b.length, 3);
  for (const value of [null, 0, -1.5, "", "text", true, false]) {
    equal(copyJson(value), value);
  }
});

Deno.test("copyJson keeps an own __proto__ key of parsed JSON as a key and leaves the copy's prototype alone", () => {
  const parsed = JSON.parse('{"__proto__": {"polluted": true}, "a": 1}');
  const copy = copyJson(parsed);
  equal(Object.getPrototypeOf(copy), Object.prototype);
  ok(Object.hasOwn(copy, "__proto__"));
  deepEqual(Object.keys(copy), ["__proto__", "a"]);
  equal((copy as Record<string, unknown>).polluted, undefined);
  deepEqual(Object.getOwnPropertyDescriptor(copy, "__proto__")?.value, {
    polluted: true,
  });
  equal(({} as Record<string, unknown>).polluted, undefined);
});
