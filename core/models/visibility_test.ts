import { deepEqual, equal, ok } from "node:assert/strict";
import { parseModelDefinition } from "./definition.ts";
import type { Condition } from "./condition.ts";
import { isShown } from "./visibility.ts";

const siblings = [
  { key: "featured", label: "Featured", type: "boolean" },
  {
    key: "layout",
    label: "Layout",
    type: "select",
    config: { options: ["wide", "narrow", "grid"] },
  },
  {
    key: "tags",
    label: "Tags",
    type: "select",
    config: { options: ["a", "b"], multiple: true },
  },
  { key: "title", label: "Title", type: "text" },
  { key: "rank", label: "Rank", type: "number" },
  { key: "day", label: "Day", type: "date" },
  { key: "when", label: "When", type: "datetime" },
];

function withVisibility(visibility: unknown) {
  return {
    model: { name: "Posts", slug: "posts" },
    fields: [...siblings, {
      key: "extra",
      label: "Extra",
      type: "text",
      visibility,
    }],
  };
}

function codes(visibility: unknown): [string, string][] {
  const result = parseModelDefinition(withVisibility(visibility));
  return result.ok ? [] : result.problems.map((p) => [p.path, p.code]);
}

const term = { field: "featured", op: "eq", value: true };
const group = (n: number) => ({ and: Array.from({ length: n }, () => term) });
const nest = (levels: number): unknown =>
  levels === 1 ? { or: [term] } : { and: [term, nest(levels - 1)] };

Deno.test("visibility accepts typed boolean, select, text, number and date conditions (MOD-032)", () => {
  const result = parseModelDefinition(withVisibility({
    or: [
      term,
      { field: "layout", op: "in", value: ["wide", "grid"] },
      {
        and: [{ field: "title", op: "contains", value: "x" }, {
          field: "rank",
          op: "gte",
          value: 3,
        }],
      },
      { field: "day", op: "lt", value: "2026-06-01" },
    ],
  }));
  ok(result.ok);
  ok(result.definition.fields[7].visibility);
});

Deno.test("visibility refuses a group of 5 terms and takes 4 (MOD-032)", () => {
  deepEqual(codes(group(4)), []);
  deepEqual(codes(group(5)), [[
    "fields[7].visibility.and",
    "invalid_visibility",
  ]]);
});

Deno.test("visibility takes groups 3 levels deep and refuses a 4th level (MOD-032)", () => {
  deepEqual(codes(nest(3)), []);
  deepEqual(codes(nest(4)), [[
    "fields[7].visibility.and[1].and[1].and[1]",
    "invalid_visibility",
  ]]);
});

Deno.test("visibility refuses mistyped values, foreign operators, unknown or unsupported fields, and itself", () => {
  deepEqual(codes('{"field":"featured","op":"eq","value":"yes"}'), [[
    "fields[7].visibility.value",
    "invalid_visibility",
  ]]);
  deepEqual(codes({ field: "layout", op: "eq", value: "tall" }), [[
    "fields[7].visibility.value",
    "invalid_visibility",
  ]]);
  deepEqual(codes({ field: "rank", op: "contains", value: 1 }), [[
    "fields[7].visibility.op",
    "invalid_visibility",
  ]]);
  deepEqual(codes({ field: "day", op: "gt", value: "2026-02-30" }), [[
    "fields[7].visibility.value",
    "invalid_visibility",
  ]]);
  deepEqual(codes({ field: "nope", op: "empty" }), [[
    "fields[7].visibility.field",
    "field_not_found",
  ]]);
  deepEqual(codes({ field: "when", op: "empty" }), [[
    "fields[7].visibility.field",
    "invalid_visibility",
  ]]);
  deepEqual(codes({ field: "extra", op: "empty" }), [[
    "fields[7].visibility.field",
    "invalid_visibility",
  ]]);
  deepEqual(codes({ field: "title", op: "empty", value: "x" }), [[
    "fields[7].visibility.value",
    "invalid_visibility",
  ]]);
  deepEqual(codes({ and: [] }), [[
    "fields[7].visibility.and",
    "invalid_visibility",
  ]]);
});

Deno.test("isShown() evaluates terms and groups on the values beside the field", () => {
  const check = (condition: Condition, values: Record<string, unknown>) =>
    isShown(condition, values);
  equal(
    check({ field: "featured", op: "eq", value: true }, { featured: true }),
    true,
  );
  equal(check({ field: "featured", op: "eq", value: true }, {}), false);
  equal(check({ field: "featured", op: "neq", value: true }, {}), true);
  equal(
    check({ field: "layout", op: "in", value: ["wide", "grid"] }, {
      layout: "grid",
    }),
    true,
  );
  equal(
    check({ field: "layout", op: "not_in", value: ["wide"] }, {
      layout: "wide",
    }),
    false,
  );
  equal(
    check({ field: "tags", op: "eq", value: "b" }, { tags: ["a", "b"] }),
    true,
  );
  equal(check({ field: "tags", op: "neq", value: "b" }, { tags: ["a"] }), true);
  equal(
    check({ field: "title", op: "contains", value: "ell" }, { title: "hello" }),
    true,
  );
  equal(check({ field: "rank", op: "gt", value: 3 }, { rank: 3 }), false);
  equal(check({ field: "rank", op: "gte", value: 3 }, { rank: 3 }), true);
  equal(check({ field: "rank", op: "lt", value: 3 }, {}), false);
  equal(
    check({ field: "day", op: "lte", value: "2026-06-01" }, {
      day: "2026-05-31",
    }),
    true,
  );
  equal(check({ field: "title", op: "empty" }, { title: "" }), true);
  equal(check({ field: "tags", op: "not_empty" }, { tags: [] }), false);
  const both: Condition = {
    and: [{ field: "featured", op: "eq", value: true }, {
      or: [{ field: "rank", op: "eq", value: 1 }, {
        field: "rank",
        op: "eq",
        value: 2,
      }],
    }],
  };
  equal(check(both, { featured: true, rank: 2 }), true);
  equal(check(both, { featured: true, rank: 3 }), false);
});
