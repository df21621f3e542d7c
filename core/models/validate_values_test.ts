import { deepEqual, equal, ok } from "node:assert/strict";
import { type ModelDefinition, parseModelDefinition } from "./definition.ts";
import {
  inspectEntryValues,
  validateEntryValues,
  type ValidateValuesOptions,
} from "./validate_values.ts";

const A = "aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa";
const B = "bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb";
const E1 = "e1e1e1e1-0000-4000-8000-000000000001";
const E2 = "e1e1e1e1-0000-4000-8000-000000000002";

function model(fields: unknown[], mode: "draft" | "strict" = "draft") {
  const result = parseModelDefinition({
    model: { name: "M", slug: "m", settings: { validation_mode: mode } },
    fields,
  });
  if (!result.ok) throw new Error(JSON.stringify(result.problems));
  const definition: ModelDefinition = result.definition;
  return { fields: definition.fields, settings: definition.model.settings };
}

const save: ValidateValuesOptions = { mode: "save", locale: "en" };
const publish: ValidateValuesOptions = { mode: "publish", locale: "en" };

function codes(
  m: ReturnType<typeof model>,
  values: unknown,
  options = publish,
): [string, string][] {
  return validateEntryValues(m, values, options).map((p) => [p.path, p.code]);
}

const page = model([
  { key: "title", label: "Title", type: "text", required: true },
  {
    key: "seo",
    label: "SEO",
    type: "component",
    config: {
      fields: [{
        key: "meta_title",
        label: "Meta",
        type: "text",
        required: true,
      }],
    },
  },
  {
    key: "faqs",
    label: "FAQ",
    type: "component",
    config: {
      repeatable: true,
      fields: [{ key: "question", label: "Q", type: "text", required: true }, {
        key: "answer",
        label: "A",
        type: "rich_text",
      }],
    },
    validation: { maxItems: 3 },
  },
]);

Deno.test("validateEntryValues() in draft mode defers missing required values on save, and publish checks them (MOD-035, MOD-036)", () => {
  const values = {
    title: "",
    seo: { meta_title: " " },
    faqs: [{ question: "a" }, { question: "b" }, { answer: "<p>x</p>" }],
  };
  deepEqual(codes(page, values, save), []);
  const problems = validateEntryValues(page, values, publish);
  deepEqual(problems.map((p) => [p.path, p.code]), [["title", "required"], [
    "seo.meta_title",
    "required",
  ], ["faqs[2].question", "required"]]);
  equal(problems[0].locale, "en");
});

Deno.test("validateEntryValues() in strict mode refuses missing required values on save too (MOD-035)", () => {
  const strict = model([{
    key: "title",
    label: "Title",
    type: "text",
    required: true,
  }], "strict");
  deepEqual(codes(strict, {}, save), [["title", "required"]]);
  deepEqual(codes(strict, { title: "x" }, save), []);
});

Deno.test("validateEntryValues() requires a field only while its condition shows it; hidden values stay valid (MOD-033)", () => {
  const m = model([
    { key: "has_cta", label: "CTA", type: "boolean" },
    {
      key: "cta_url",
      label: "URL",
      type: "text",
      required: true,
      visibility: { field: "has_cta", op: "eq", value: true },
    },
  ]);
  deepEqual(codes(m, { has_cta: false }), []);
  deepEqual(codes(m, {}), []);
  deepEqual(codes(m, { has_cta: true }), [["cta_url", "required"]]);
  deepEqual(codes(m, { has_cta: false, cta_url: 5 }), [[
    "cta_url",
    "invalid_type",
  ]]);
});

Deno.test("validateEntryValues() refuses unknown keys at every level with their paths", () => {
  deepEqual(
    codes(page, {
      title: "t",
      seo: { meta_title: "m", x: 1 },
      faqs: [{ question: "q", y: 2 }],
      z: 3,
    }),
    [
      ["z", "unknown_field"],
      ["seo.x", "unknown_field"],
      ["faqs[0].y", "unknown_field"],
    ],
  );
  deepEqual(codes(page, "nope"), [["", "invalid_type"]]);
  deepEqual(codes(page, { title: "t", seo: [], faqs: {} }), [[
    "seo",
    "invalid_type",
  ], ["faqs", "invalid_type"]]);
});

Deno.test("validateEntryValues() checks item counts of repeatable components at the edge (3 taken, 4 refused)", () => {
  const item = { question: "q" };
  deepEqual(codes(page, { title: "t", faqs: [item, item, item] }, save), []);
  deepEqual(codes(page, { title: "t", faqs: [item, item, item, item] }, save), [
    ["faqs", "too_many_items"],
  ]);
});

Deno.test("validateEntryValues() checks text length in characters and patterns with Unicode escapes (MOD-034)", () => {
  const m = model([
    {
      key: "name",
      label: "Name",
      type: "text",
      validation: { minLength: 2, maxLength: 4, pattern: "^\\p{L}+$" },
    },
    { key: "slug", label: "Slug", type: "slug", validation: { maxLength: 10 } },
  ]);
  deepEqual(codes(m, { name: "Zoë" }), []);
  deepEqual(
    codes(m, { name: "日本語だ" }),
    [],
    "4 characters is the last accepted",
  );
  deepEqual(codes(m, { name: "Zoëys" }), [["name", "too_long"]]);
  deepEqual(codes(m, { name: "Z" }), [["name", "too_short"]]);
  deepEqual(codes(m, { name: "Zo3" }), [["name", "pattern_mismatch"]]);
  deepEqual(codes(m, { slug: "über-uns-2" }), []);
  deepEqual(codes(m, { slug: "Über uns" }), [["slug", "invalid_slug"]]);
  deepEqual(codes(m, { slug: "a--b" }), [["slug", "invalid_slug"]]);
});

Deno.test("validateEntryValues() checks number range, step and whole numbers at the edges (MOD-034)", () => {
  const m = model([
    {
      key: "price",
      label: "Price",
      type: "number",
      validation: { min: 0.5, max: 10, step: 0.25 },
    },
    { key: "qty", label: "Qty", type: "number", config: { integer: true } },
  ]);
  deepEqual(codes(m, { price: 0.5, qty: 3 }), []);
  deepEqual(codes(m, { price: 10 }), []);
  deepEqual(codes(m, { price: 0.3 }), [["price", "too_small"], [
    "price",
    "step_mismatch",
  ]]);
  deepEqual(codes(m, { price: 10.25 }), [["price", "too_large"]]);
  deepEqual(codes(m, { price: 0.6 }), [["price", "step_mismatch"]]);
  deepEqual(codes(m, { qty: 1.5 }), [["qty", "not_integer"]]);
  deepEqual(codes(m, { qty: "3" }), [["qty", "invalid_type"]]);
});

Deno.test("validateEntryValues() checks dates and timestamps and their bounds (MOD-034)", () => {
  const m = model([
    {
      key: "day",
      label: "Day",
      type: "date",
      validation: { min: "2026-01-01", max: "2026-12-31" },
    },
    {
      key: "at",
      label: "At",
      type: "datetime",
      validation: { max: "2026-01-01T00:00:00Z" },
    },
  ]);
  deepEqual(
    codes(m, { day: "2026-01-01", at: "2026-01-01T01:00:00+01:00" }),
    [],
  );
  deepEqual(codes(m, { day: "2025-12-31" }), [["day", "date_too_early"]]);
  deepEqual(codes(m, { day: "2027-01-01" }), [["day", "date_too_late"]]);
  deepEqual(codes(m, { day: "2026-02-30" }), [["day", "invalid_type"]]);
  deepEqual(codes(m, { at: "2026-01-01T00:00:01Z" }), [[
    "at",
    "date_too_late",
  ]]);
  deepEqual(codes(m, { at: "2026-01-01 00:00" }), [["at", "invalid_type"]]);
});

Deno.test("validateEntryValues() checks select options, repeats and counts (MOD-034)", () => {
  const m = model([
    {
      key: "tone",
      label: "Tone",
      type: "select",
      config: { options: ["calm", "loud"] },
    },
    {
      key: "tags",
      label: "Tags",
      type: "select",
      config: { options: ["a", "b", "c"], multiple: true },
      validation: { minItems: 2, maxItems: 2 },
    },
    { key: "on", label: "On", type: "boolean", required: true },
    { key: "data", label: "Data", type: "json" },
  ]);
  deepEqual(
    codes(m, {
      tone: "calm",
      tags: ["a", "b"],
      on: false,
      data: [1, { x: null }],
    }),
    [],
  );
  deepEqual(codes(m, { tone: "shout", on: true }), [[
    "tone",
    "invalid_option",
  ]]);
  deepEqual(codes(m, { tags: ["a"], on: true }), [["tags", "too_few_items"]]);
  deepEqual(codes(m, { tags: ["a", "b", "c"], on: true }), [[
    "tags",
    "too_many_items",
  ]]);
  deepEqual(codes(m, { tags: ["a", "a"], on: true }), [[
    "tags",
    "duplicate_item",
  ]]);
  deepEqual(codes(m, { tags: "a", on: "yes" }), [["tags", "invalid_type"], [
    "on",
    "invalid_type",
  ]]);
});

Deno.test("validateEntryValues() checks points: latitude -90..90, longitude -180..180 inclusive", () => {
  const m = model([{ key: "where", label: "Where", type: "point" }]);
  deepEqual(codes(m, { where: { latitude: 90, longitude: -180 } }), []);
  deepEqual(codes(m, { where: { latitude: -90, longitude: 180 } }), []);
  deepEqual(codes(m, { where: { latitude: 90.000001, longitude: 0 } }), [[
    "where",
    "invalid_point",
  ]]);
  deepEqual(codes(m, { where: { latitude: 0, longitude: -180.5 } }), [[
    "where",
    "invalid_point",
  ]]);
  deepEqual(codes(m, { where: { lat: 0, lng: 0 } }), [[
    "where",
    "invalid_type",
  ]]);
  deepEqual(codes(m, { where: { latitude: 0, longitude: 0, x: 1 } }), [[
    "where",
    "invalid_type",
  ]]);
});

Deno.test("validateEntryValues() checks relation and media values for shape and lists them for existence checks", () => {
  const m = model([
    {
      key: "author",
      label: "Author",
      type: "relation",
      config: { targets: [A], cardinality: "many-to-one" },
    },
    {
      key: "related",
      label: "Related",
      type: "relation",
      config: { targets: [A, B], cardinality: "many-to-many" },
      validation: { maxItems: 2 },
    },
    {
      key: "cover",
      label: "Cover",
      type: "media",
      config: { kinds: ["image"] },
    },
    { key: "files", label: "Files", type: "media", config: { multiple: true } },
  ]);
  const values = {
    author: E1,
    related: [{ model: B, id: E1 }, { model: A, id: E2 }],
    cover: E2,
    files: [E1],
  };
  const inspected = inspectEntryValues(m, values, publish);
  deepEqual(inspected.problems, []);
  deepEqual(
    inspected.references.map((r) =>
      r.kind === "relation"
        ? [r.path, r.refs]
        : r.kind === "media"
        ? [r.path, r.ids, r.kinds]
        : []
    ),
    [
      ["author", [{ model: A, id: E1 }]],
      ["related", [{ model: B, id: E1 }, { model: A, id: E2 }]],
      ["cover", [E2], ["image"]],
      ["files", [E1], null],
    ],
  );
  deepEqual(codes(m, { related: [E1] }), [[
    "related",
    "relation_target_model_required",
  ]]);
  deepEqual(codes(m, { related: [{ model: E2, id: E1 }] }), [[
    "related",
    "relation_target_model_not_allowed",
  ]]);
  deepEqual(
    codes(m, { related: [{ model: A, id: E1 }, { model: A, id: E1 }] }),
    [["related", "duplicate_item"]],
  );
  deepEqual(
    codes(m, {
      related: [{ model: A, id: E1 }, { model: A, id: E2 }, {
        model: B,
        id: E1,
      }],
    }),
    [["related", "too_many_items"]],
  );
  deepEqual(codes(m, { author: [E1], cover: "x", files: E1 }), [
    ["author", "invalid_type"],
    ["cover", "invalid_type"],
    ["files", "invalid_type"],
  ]);
});

Deno.test("validateEntryValues() names the field, language and element of refused rich text (MOD-052)", () => {
  const m = model([{
    key: "body",
    label: "Body",
    type: "rich_text",
    required: true,
  }]);
  const [problem] = validateEntryValues(m, {
    body: "<p>Hi</p><script>x()</script>",
  }, { mode: "save", locale: "de" });
  deepEqual(problem, {
    path: "body",
    code: "rich_text_invalid",
    message: 'Rich text "body": Element "script" is not allowed',
    locale: "de",
    element: "script",
  });
  deepEqual(codes(m, { body: "<p> </p>" }), [["body", "required"]]);
  deepEqual(codes(m, { body: "<p> </p>" }, save), []);
  ok(
    inspectEntryValues(m, {
      body:
        `<figure data-figure="media" data-media="${E1}" data-kind="video"></figure>`,
    }, publish).references.length === 1,
  );
});
