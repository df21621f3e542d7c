import { deepEqual, equal, ok } from "node:assert/strict";
import {
  assessModelChange,
  type ContentFacts,
  diffDefinitions,
  NO_CONTENT,
  type RetainedKey,
} from "./change_safety.ts";
import { type ModelDefinition, parseModelDefinition } from "./definition.ts";

const ID = (n: number) =>
  `00000000-0000-4000-8000-${String(n).padStart(12, "0")}`;
const TARGET_A = ID(901);
const TARGET_B = ID(902);

function definition(
  fields: unknown[],
  model: Record<string, unknown> = {},
): ModelDefinition {
  const result = parseModelDefinition({
    model: { name: "Posts", slug: "posts", ...model },
    fields,
  });
  if (!result.ok) throw new Error(JSON.stringify(result.problems));
  return result.definition;
}

/** Fake facts: counts per path; the seam the entries area fills in for real. */
function facts(counts: {
  entries?: number;
  withValue?: Record<string, number>;
  missing?: Record<string, number>;
  versions?: Record<string, number>;
  duplicates?: Record<string, number>;
}): ContentFacts & { asked: string[] } {
  const asked: string[] = [];
  const at = (
    table: Record<string, number> | undefined,
    key: string,
    what: string,
  ) => {
    asked.push(`${what}:${key}`);
    return Promise.resolve(table?.[key] ?? 0);
  };
  return {
    asked,
    countEntries: () => Promise.resolve(counts.entries ?? 0),
    countEntriesWithValue: (path) => at(counts.withValue, path, "value"),
    countEntriesMissingValue: (path) => at(counts.missing, path, "missing"),
    countVersionsWithValue: (path) => at(counts.versions, path, "versions"),
    countDuplicateValues: (paths, scope) =>
      at(counts.duplicates, `${paths.join("+")}@${scope}`, "dup"),
  };
}

const title = { id: ID(1), key: "title", label: "Title", type: "text" };
const body = { id: ID(2), key: "body", label: "Body", type: "rich_text" };

Deno.test("assessModelChange() blocks a type change only while entries hold values", async () => {
  const before = definition([title, body]);
  const after = definition([{ ...title, type: "number" }, body]);
  deepEqual(await assessModelChange(before, after, NO_CONTENT, []), []);
  const [change] = await assessModelChange(
    before,
    after,
    facts({ withValue: { title: 3 } }),
    [],
  );
  deepEqual({
    kind: change.kind,
    field: change.field,
    affected_count: change.affected_count,
  }, { kind: "type_change", field: "title", affected_count: 3 });
  ok(change.message.includes("text to number"));
  ok(change.suggestion.length > 0);
});

Deno.test("assessModelChange() treats single-to-list changes as type changes (select multiple, repeatable)", async () => {
  const select = {
    id: ID(3),
    key: "tone",
    label: "Tone",
    type: "select",
    config: { options: ["a"] },
  };
  const before = definition([select]);
  const after = definition([{
    ...select,
    config: { options: ["a"], multiple: true },
  }]);
  deepEqual(
    (await assessModelChange(
      before,
      after,
      facts({ withValue: { tone: 1 } }),
      [],
    )).map((c) => c.kind),
    ["type_change"],
  );
});

Deno.test("assessModelChange() blocks making a field required while entries lack it, with affected_count (MOD-016)", async () => {
  const before = definition([title]);
  const after = definition([{ ...title, required: true }]);
  const changes = await assessModelChange(
    before,
    after,
    facts({ entries: 5, missing: { title: 2 } }),
    [],
  );
  deepEqual(changes.map((c) => [c.kind, c.field, c.affected_count]), [[
    "required_missing",
    "title",
    2,
  ]]);
  deepEqual(
    await assessModelChange(before, after, facts({ entries: 5 }), []),
    [],
  );
});

Deno.test("assessModelChange() asks about the old key when a field is renamed and made required at once", async () => {
  const f = facts({ missing: { title: 1 } });
  const changes = await assessModelChange(
    definition([title]),
    definition([{ ...title, key: "heading", required: true }]),
    f,
    [],
  );
  deepEqual(changes.map((c) => [c.kind, c.field]), [[
    "required_missing",
    "title",
  ]]);
  ok(f.asked.includes("missing:title"));
});

Deno.test("assessModelChange() blocks unique fields and combinations while entries share values", async () => {
  const code = {
    id: ID(4),
    key: "code",
    label: "Code",
    type: "text",
    localized: true,
  };
  const before = definition([title, code]);
  const after = definition([title, { ...code, unique: true }], {
    settings: {
      unique_combinations: [{
        name: "pair",
        fields: ["title", "code"],
        scope: "language",
      }],
    },
  });
  const changes = await assessModelChange(
    before,
    after,
    facts({ duplicates: { "code@language": 2, "title+code@language": 4 } }),
    [],
  );
  deepEqual(changes.map((c) => [c.kind, c.field, c.affected_count]), [[
    "unique_conflict",
    "code",
    2,
  ], ["unique_conflict", "pair", 4]]);
  const unchanged = await assessModelChange(
    after,
    after,
    facts({ duplicates: { "code@language": 2, "title+code@language": 4 } }),
    [],
  );
  deepEqual(unchanged, []);
});

Deno.test("assessModelChange() lets a collection with one entry become single and refuses two with single_entry_conflict (MOD-026)", async () => {
  const before = definition([title]);
  const after = definition([title], { kind: "single" });
  deepEqual(
    await assessModelChange(before, after, facts({ entries: 1 }), []),
    [],
  );
  const [change] = await assessModelChange(
    before,
    after,
    facts({ entries: 2 }),
    [],
  );
  deepEqual([change.kind, change.field, change.affected_count], [
    "single_entry_conflict",
    null,
    2,
  ]);
});

Deno.test("assessModelChange() refuses a key kept versions hold for another field with retained_key_reuse (MOD-058)", async () => {
  const retained: RetainedKey[] = [{
    key: "title",
    field_id: ID(1),
    field_type: "text",
  }];
  const newTitle = { key: "title", label: "Title", type: "number", id: ID(77) };
  const changes = await assessModelChange(
    definition([body]),
    definition([body, newTitle]),
    facts({ versions: { title: 6 } }),
    retained,
  );
  deepEqual(changes.map((c) => [c.kind, c.field, c.affected_count]), [[
    "retained_key_reuse",
    "title",
    6,
  ]]);
  deepEqual(
    await assessModelChange(
      definition([body]),
      definition([body, newTitle]),
      facts({}),
      retained,
    ),
    [],
  );
  const renamed = await assessModelChange(
    definition([body]),
    definition([{ ...body, key: "title" }]),
    facts({ versions: { title: 1 } }),
    retained,
  );
  deepEqual(renamed.map((c) => c.kind), ["retained_key_reuse"]);
  const same = await assessModelChange(
    definition([title]),
    definition([{ ...title, label: "Heading" }]),
    facts({ versions: { title: 1 } }),
    retained,
  );
  deepEqual(same, [], "the field that always had the key keeps it");
});

Deno.test("assessModelChange() checks nested component fields by dotted path", async () => {
  const seo = (nested: Record<string, unknown>) => ({
    id: ID(10),
    key: "seo",
    label: "SEO",
    type: "component",
    config: {
      fields: [{
        id: ID(11),
        key: "meta_title",
        label: "Meta",
        type: "text",
        ...nested,
      }],
    },
  });
  const changes = await assessModelChange(
    definition([seo({})]),
    definition([seo({ required: true })]),
    facts({ missing: { "seo.meta_title": 3 } }),
    [],
  );
  deepEqual(changes.map((c) => [c.kind, c.field, c.affected_count]), [[
    "required_missing",
    "seo.meta_title",
    3,
  ]]);
});

Deno.test("assessModelChange() blocks narrowing relation targets or cardinality while links exist, and localization changes", async () => {
  const rel = (config: Record<string, unknown>) => ({
    id: ID(20),
    key: "authors",
    label: "A",
    type: "relation",
    config: {
      targets: [TARGET_A, TARGET_B],
      cardinality: "many-to-many",
      ...config,
    },
  });
  const before = definition([rel({}), title]);
  const after = definition([
    rel({ targets: [TARGET_A], cardinality: "one-to-many" }),
    { ...title, localized: true },
  ]);
  const changes = await assessModelChange(
    before,
    after,
    facts({ withValue: { authors: 2, title: 1 } }),
    [],
  );
  deepEqual(changes.map((c) => [c.kind, c.field]), [[
    "relation_change",
    "authors",
  ], ["localization_change", "title"]]);
  deepEqual(
    await assessModelChange(
      before,
      definition([rel({ targets: [TARGET_A, TARGET_B, ID(903)] }), title]),
      facts({ withValue: { authors: 2 } }),
      [],
    ),
    [],
  );
});

Deno.test("assessModelChange() lets a field be removed whatever its content (kept versions retain the key)", async () => {
  deepEqual(
    await assessModelChange(
      definition([title, body]),
      definition([body]),
      facts({ entries: 9, withValue: { title: 9 }, versions: { title: 9 } }),
      [],
    ),
    [],
  );
});

Deno.test("diffDefinitions() lists added, removed, renamed and retyped fields, nested ones by path", () => {
  const seo = {
    id: ID(10),
    key: "seo",
    label: "SEO",
    type: "component",
    config: { fields: [{ id: ID(11), key: "meta", label: "M", type: "text" }] },
  };
  const before = definition([title, body, seo]).fields;
  const after = definition([{ ...title, key: "heading", type: "number" }, {
    ...seo,
    key: "search",
  }, { id: ID(30), key: "extra", label: "E", type: "boolean" }]).fields;
  const diff = diffDefinitions(before, after);
  deepEqual(diff.added, [{ id: ID(30), path: "extra" }]);
  deepEqual(diff.removed, [{ id: ID(2), path: "body" }]);
  deepEqual(diff.renamed, [{ id: ID(1), from: "title", to: "heading" }, {
    id: ID(10),
    from: "seo",
    to: "search",
  }, { id: ID(11), from: "seo.meta", to: "search.meta" }]);
  deepEqual(diff.retyped, [{
    id: ID(1),
    path: "heading",
    from: "text",
    to: "number",
  }]);
  equal(diffDefinitions(before, before).renamed.length, 0);
});
