import { deepEqual, equal, ok } from "node:assert/strict";
import { parseModelDefinition } from "./definition.ts";
import type { Problem } from "./problems.ts";

const T1 = "11111111-1111-4111-8111-111111111111";

function def(fields: unknown[], model: Record<string, unknown> = {}) {
  return { model: { name: "Posts", slug: "posts", ...model }, fields };
}

function problems(input: unknown): Problem[] {
  const result = parseModelDefinition(input);
  return result.ok ? [] : result.problems;
}

function component(key: string, fields: unknown[]) {
  return { key, label: key, type: "component", config: { fields } };
}

Deno.test("parseModelDefinition() fills defaults: collection, public, draft validation mode (MOD-001, MOD-005)", () => {
  const result = parseModelDefinition(
    def([{ key: "title", label: "Title", type: "text" }]),
  );
  ok(result.ok);
  deepEqual(result.definition.model, {
    name: "Posts",
    slug: "posts",
    description: "",
    kind: "collection",
    isPublic: true,
    enableI18n: false,
    settings: { validation_mode: "draft", unique_combinations: [] },
  });
  deepEqual(result.definition.fields[0], {
    key: "title",
    label: "Title",
    type: "text",
    required: false,
    unique: false,
    private: false,
    localized: false,
    config: {},
    validation: {},
    derived: null,
    ui: null,
    visibility: null,
  });
});

Deno.test("parseModelDefinition() reads config, validation, derived and ui given as JSON text (MOD-003)", () => {
  const result = parseModelDefinition(def([{
    key: "status",
    label: "Status",
    type: "select",
    config:
      '{"options":["draft",{"value":"live","label":"Live"}],"multiple":true}',
    validation: '{"maxItems":2}',
    derived: '{"from":"title"}',
    ui: "null",
  }]));
  ok(result.ok);
  const field = result.definition.fields[0];
  ok(field.type === "select");
  deepEqual(field.config, {
    options: [{ value: "draft", label: "draft" }, {
      value: "live",
      label: "Live",
    }],
    multiple: true,
  });
  deepEqual(field.validation, { maxItems: 2 });
  deepEqual(field.derived, { from: "title" });
  equal(field.ui, null);
});

Deno.test("parseModelDefinition() refuses unknown keys, bad JSON text and wrong types, naming each path", () => {
  deepEqual(
    problems({
      ...def([{
        key: "a",
        label: "A",
        type: "text",
        extra: 1,
        config: "{oops",
      }]),
      more: true,
    }).map((p) => [p.path, p.code]),
    [["more", "invalid_request"]],
  );
  deepEqual(
    problems(def([
      { key: "a", label: "A", type: "text", extra: 1 },
      { key: "b", label: "B", type: "text", config: "{oops" },
      { key: "c", label: "C", type: "number", validation: { pattern: "x" } },
      { key: "Bad-Key", label: "D", type: "wat" },
    ])).map((p) => [p.path, p.code]),
    [
      ["fields[0].extra", "invalid_request"],
      ["fields[1].config", "invalid_field_config"],
      ["fields[2].validation.pattern", "invalid_field_validation"],
      ["fields[3].key", "invalid_request"],
      ["fields[3].type", "invalid_request"],
    ],
  );
});

Deno.test("parseModelDefinition() refuses a key used twice at one level with duplicate_field_key, but not across levels", () => {
  const result = parseModelDefinition(def([
    { key: "title", label: "Title", type: "text" },
    component("seo", [{ key: "title", label: "Title", type: "text" }]),
    { key: "title", label: "Again", type: "number" },
  ]));
  ok(!result.ok);
  equal(result.code, "duplicate_field_key");
  deepEqual(result.problems.map((p) => p.path), ["fields[2].key"]);
});

Deno.test("parseModelDefinition() accepts components 3 levels below a root and refuses the 4th with component_nesting_too_deep (MOD-057)", () => {
  const leaf = [{ key: "x", label: "X", type: "text" }];
  const chain = (levels: number): unknown =>
    levels === 0
      ? component("c0", leaf)
      : component(`c${levels}`, [chain(levels - 1)]);
  ok(
    parseModelDefinition(def([chain(3)])).ok,
    "root plus 3 nested levels is accepted",
  );
  const refused = parseModelDefinition(def([chain(4)]));
  ok(!refused.ok);
  equal(refused.code, "component_nesting_too_deep");
  equal(
    refused.problems[0].path,
    "fields[0].config.fields[0].config.fields[0].config.fields[0].config.fields[0]",
  );
});

Deno.test("parseModelDefinition() allows unique on top-level text and number fields only (MOD-027, unique_unsupported)", () => {
  ok(
    parseModelDefinition(def([
      { key: "code", label: "Code", type: "text", unique: true },
      { key: "n", label: "N", type: "number", unique: true },
    ])).ok,
  );
  deepEqual(
    problems(def([
      { key: "d", label: "D", type: "date", unique: true },
      component("seo", [{ key: "t", label: "T", type: "text", unique: true }]),
    ])).map((p) => [p.path, p.code]),
    [["fields[0].unique", "unique_unsupported"], [
      "fields[1].config.fields[0].unique",
      "unique_unsupported",
    ]],
  );
});

Deno.test("parseModelDefinition() takes 8 unique combinations of 2 to 4 fields and refuses a 9th, 1 or 5 fields (MOD-028)", () => {
  const fields = ["a", "b", "c", "d", "e"].map((key) => ({
    key,
    label: key,
    type: "text",
  }));
  const combos = (n: number, members = ["a", "b"]) =>
    Array.from(
      { length: n },
      (_, i) => ({
        name: `c${i}`,
        fields: members,
        scope: i % 2 ? "language" : "model",
      }),
    );
  const withCombos = (list: unknown[]) =>
    def([...fields, { key: "when", label: "When", type: "date" }], {
      settings: { unique_combinations: list },
    });
  ok(parseModelDefinition(withCombos(combos(8))).ok);
  ok(parseModelDefinition(withCombos(combos(1, ["a", "b", "c", "d"]))).ok);
  deepEqual(problems(withCombos(combos(9))).map((p) => [p.path, p.code]), [[
    "model.settings.unique_combinations[8]",
    "unique_unsupported",
  ]]);
  deepEqual(problems(withCombos(combos(1, ["a"]))).map((p) => p.code), [
    "unique_unsupported",
  ]);
  deepEqual(
    problems(withCombos(combos(1, ["a", "b", "c", "d", "e"]))).map((p) =>
      p.code
    ),
    ["unique_unsupported"],
  );
  deepEqual(
    problems(withCombos(combos(1, ["a", "when", "nope"]))).map((
      p,
    ) => [p.path, p.code]),
    [
      ["model.settings.unique_combinations[0].fields[1]", "unique_unsupported"],
      ["model.settings.unique_combinations[0].fields[2]", "field_not_found"],
    ],
  );
});

Deno.test("parseModelDefinition() compiles patterns with the u flag: \\p{L} works, a broken pattern is invalid_field_validation", () => {
  ok(
    parseModelDefinition(
      def([{
        key: "name",
        label: "Name",
        type: "text",
        validation: { pattern: "^\\p{L}+$" },
      }]),
    ).ok,
  );
  deepEqual(
    problems(
      def([{
        key: "name",
        label: "Name",
        type: "text",
        validation: { pattern: "([a-z" },
      }]),
    ).map((p) => [p.path, p.code]),
    [["fields[0].validation.pattern", "invalid_field_validation"]],
  );
});

Deno.test("parseModelDefinition() refuses incoherent rules: min above max, item counts on a single value", () => {
  deepEqual(
    problems(def([
      {
        key: "t",
        label: "T",
        type: "text",
        validation: { minLength: 5, maxLength: 4 },
      },
      { key: "n", label: "N", type: "number", validation: { min: 2, max: 1 } },
      {
        key: "s",
        label: "S",
        type: "select",
        config: { options: ["a"] },
        validation: { minItems: 1 },
      },
      {
        key: "w",
        label: "W",
        type: "datetime",
        validation: {
          min: "2026-02-01T00:00:00Z",
          max: "2026-01-01T00:00:00+01:00",
        },
      },
    ])).map((p) => [p.path, p.code]),
    [
      ["fields[0].validation.minLength", "invalid_field_validation"],
      ["fields[1].validation.min", "invalid_field_validation"],
      ["fields[2].validation.minItems", "invalid_field_validation"],
      ["fields[3].validation.min", "invalid_field_validation"],
    ],
  );
});

Deno.test("parseModelDefinition() reads relation configs: several targets, ordering only on to-many lists", () => {
  const relation = (config: unknown) =>
    def([{ key: "r", label: "R", type: "relation", config }]);
  const many = parseModelDefinition(
    relation({
      targets: [T1, T1.replace(/1/g, "2")],
      cardinality: "many-to-many",
      localizedMembership: true,
    }),
  );
  ok(many.ok && many.definition.fields[0].type === "relation");
  equal(many.definition.fields[0].config.ordered, true);
  const one = parseModelDefinition(
    relation({ targets: [T1.toUpperCase()], cardinality: "many-to-one" }),
  );
  ok(one.ok && one.definition.fields[0].type === "relation");
  deepEqual(one.definition.fields[0].config, {
    targets: [T1],
    cardinality: "many-to-one",
    ordered: false,
    localizedMembership: false,
  });
  deepEqual(
    problems(
      relation({ targets: [T1], cardinality: "one-to-one", ordered: true }),
    ).map((p) => [p.path, p.code]),
    [["fields[0].config.ordered", "invalid_field_config"]],
  );
  deepEqual(
    problems(relation({ targets: [], cardinality: "one-to-many" })).map((p) =>
      p.code
    ),
    ["invalid_field_config"],
  );
});

Deno.test("parseModelDefinition() refuses localized relations and localized fields inside components", () => {
  deepEqual(
    problems(def([
      {
        key: "r",
        label: "R",
        type: "relation",
        localized: true,
        config: { targets: [T1], cardinality: "one-to-many" },
      },
      component("seo", [{
        key: "t",
        label: "T",
        type: "text",
        localized: true,
      }]),
    ])).map((p) => [p.path, p.code]),
    [["fields[0].localized", "invalid_field_config"], [
      "fields[1].config.fields[0].localized",
      "invalid_field_config",
    ]],
  );
});

Deno.test("parseModelDefinition() checks a slug's source names a text field beside it", () => {
  ok(
    parseModelDefinition(
      def([{ key: "title", label: "T", type: "text" }, {
        key: "slug",
        label: "S",
        type: "slug",
        config: { source: "title" },
      }]),
    ).ok,
  );
  deepEqual(
    problems(
      def([{
        key: "slug",
        label: "S",
        type: "slug",
        config: { source: "title" },
      }]),
    ).map((p) => [p.path, p.code]),
    [["fields[0].config.source", "field_not_found"]],
  );
});

Deno.test("parseModelDefinition() returns every problem of a definition at once, the first code as the refusal code", () => {
  const result = parseModelDefinition({
    model: { name: "", slug: "Posts" },
    fields: [{ key: "a", label: "A", type: "text" }, {
      key: "a",
      label: "A",
      type: "text",
    }],
  });
  ok(!result.ok);
  equal(result.code, "invalid_request");
  deepEqual(result.problems.map((p) => p.path), [
    "model.name",
    "model.slug",
    "fields[1].key",
  ]);
});

Deno.test("parseModelDefinition() takes names and labels of 80 characters, keys and slugs of 64, and refuses one more", () => {
  const at = (
    name: number,
    slug: number,
    label: number,
    key: number,
    description = 2000,
  ) =>
    problems({
      model: {
        name: "N".repeat(name),
        slug: "s".repeat(slug),
        description: "d".repeat(description),
      },
      fields: [{
        key: "k".repeat(key),
        label: "L".repeat(label),
        type: "text",
      }],
    }).map((p) => p.path);
  deepEqual(at(80, 64, 80, 64), []);
  deepEqual(at(81, 65, 81, 65, 2001), [
    "model.name",
    "model.slug",
    "model.description",
    "fields[0].key",
    "fields[0].label",
  ]);
});

Deno.test("parseModelDefinition() takes 200 select options and 20 relation targets, and refuses one more", () => {
  const options = (n: number) => Array.from({ length: n }, (_, i) => `o${i}`);
  const targets = (n: number) =>
    Array.from(
      { length: n },
      (_, i) => `00000000-0000-4000-8000-${String(i).padStart(12, "0")}`,
    );
  const fields = (o: number, t: number) =>
    def([
      { key: "s", label: "S", type: "select", config: { options: options(o) } },
      {
        key: "r",
        label: "R",
        type: "relation",
        config: { targets: targets(t), cardinality: "many-to-many" },
      },
    ]);
  deepEqual(problems(fields(200, 20)), []);
  deepEqual(problems(fields(201, 21)).map((p) => [p.path, p.code]), [
    ["fields[0].config.options", "invalid_field_config"],
    ["fields[1].config.targets", "invalid_field_config"],
  ]);
});
