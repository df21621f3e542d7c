// What generation refuses, each naming the model and field: text rules it cannot emit,
// unsatisfiable or absent relation targets, required loops, looping published parents and
// shared live references (the demo's pages).
import assert from "node:assert/strict";
import { hierarchyLoops } from "../../core/backend/generate/content.ts";
import { generateBackend } from "../../core/backend/generate/mod.ts";
import { planModels } from "../../core/backend/generate/plan.ts";
import type { FieldDefinition } from "../../core/models/field_types.ts";
import type { StoredModel } from "../../core/models/store_rows.ts";
import { issueSiteToken } from "../../core/public/site_tokens.ts";
import { setupDemo } from "../admin/demo_helpers.ts";

function field(
  partial: Partial<FieldDefinition> & Pick<FieldDefinition, "key" | "type">,
): FieldDefinition {
  return {
    label: partial.key,
    required: false,
    unique: false,
    private: false,
    localized: false,
    derived: null,
    ui: null,
    visibility: null,
    config: {},
    validation: {},
    ...partial,
  } as FieldDefinition;
}

function model(slug: string, fields: FieldDefinition[]): StoredModel {
  return {
    id: crypto.randomUUID(),
    name: slug,
    slug,
    description: "",
    kind: "collection",
    isPublic: true,
    enableI18n: false,
    settings: { validation_mode: "draft", unique_combinations: [] },
    folder: null,
    revision: 1,
    createdAt: new Date(),
    updatedAt: new Date(),
    fields,
  };
}

function relation(
  key: string,
  targets: string[],
  cardinality: string,
  extra: Partial<FieldDefinition> = {},
): FieldDefinition {
  return field(
    {
      key,
      type: "relation",
      config: {
        targets,
        cardinality,
        ordered: false,
        localizedMembership: false,
      },
      ...extra,
    } as Partial<FieldDefinition> & Pick<FieldDefinition, "key" | "type">,
  );
}

function problemsOf(models: StoredModel[]) {
  const plan = planModels(models, []);
  assert.equal(plan.ok, false);
  return plan.ok ? [] : plan.problems;
}

Deno.test("generation refuses text rules it cannot emit, naming model and field (GEN-023)", () => {
  const problems = problemsOf([model("article", [
    field({
      key: "code",
      type: "text",
      ui: { validate: "return v.length > 2" },
    }),
    field({ key: "bad", type: "text", validation: { pattern: "\\p{Nope}" } }),
    field({
      key: "bounds",
      type: "text",
      validation: { minLength: 5, maxLength: 2 },
    }),
  ])]);
  assert.deepEqual(
    problems.map((p) => [p.code, p.model, p.field]),
    [
      ["unsupported_text_validation", "article", "code"],
      ["invalid_field_validation", "article", "bad"],
      ["invalid_field_validation", "article", "bounds"],
    ],
  );
});

Deno.test("generation accepts a Unicode property pattern (GEN-022)", () => {
  const plan = planModels([model("article", [
    field({
      key: "title",
      type: "text",
      validation: { pattern: "^\\p{Lu}\\p{L}*$" },
    }),
  ])], []);
  assert.ok(plan.ok);
});

Deno.test("generation refuses absent targets, unsatisfiable bounds and required loops (GEN-025)", () => {
  const a = model("a", []);
  const b = model("b", []);
  a.fields.push(relation("b", [b.id], "many-to-one", { required: true }));
  b.fields.push(relation("a", [a.id], "many-to-one", { required: true }));
  const self = model("node", []);
  self.fields.push(
    relation("parent", [self.id], "many-to-one", { required: true }),
  );
  const lists = model("lists", [
    relation("ghost", [crypto.randomUUID()], "many-to-many"),
    relation("tight", [a.id], "many-to-many", {
      validation: { minItems: 3, maxItems: 2 },
    } as Partial<FieldDefinition>),
  ]);
  const problems = problemsOf([a, b, self, lists]);
  const seen = problems.map((p) => `${p.code} ${p.model}.${p.field}`).sort();
  assert.deepEqual(seen, [
    "relation_bounds_unsatisfiable lists.tight",
    "relation_required_cycle a.b",
    "relation_required_cycle b.a",
    "relation_required_cycle node.parent",
    "relation_target_absent lists.ghost",
  ]);
});

Deno.test("generation refuses looping published parents (GEN-025)", () => {
  const node = model("node", []);
  node.fields.push(relation("parent", [node.id], "many-to-one"));
  const plan = planModels([node], []);
  assert.ok(plan.ok);
  const [x, y, z] = [
    crypto.randomUUID(),
    crypto.randomUUID(),
    crypto.randomUUID(),
  ];
  const loops = hierarchyLoops(plan.models, [{
    table: "node",
    rows: [{ id: x, parent_id: y }, { id: y, parent_id: x }, {
      id: z,
      parent_id: x,
    }],
  }]);
  assert.deepEqual(
    loops.map((p) => [p.code, p.model, p.field]).sort(),
    [
      ["relation_hierarchy_cycle", "node", "parent"],
      ["relation_hierarchy_cycle", "node", "parent"],
    ],
  );
});

Deno.test("generation of the whole demo refuses its pages' shared footer; unknown models are invalid_reference (GEN-024)", async () => {
  const demo = await setupDemo();
  try {
    const whole = await generateBackend(demo.t.services.db, {
      siteId: demo.siteId,
      publicUrl: "http://media.example",
    });
    assert.equal(whole.ok, false);
    if (!whole.ok) {
      assert.equal(whole.code, "shared_references_require_live_delivery");
      // One problem per page that shows the footer, each naming the field.
      assert.ok(whole.problems.length > 0);
      for (const p of whole.problems) {
        assert.deepEqual([p.code, p.model, p.field], [
          "shared_references_require_live_delivery",
          "pages",
          "slides",
        ]);
      }
    }
    const unknown = await generateBackend(demo.t.services.db, {
      siteId: demo.siteId,
      models: ["posts", "nope"],
      publicUrl: "http://media.example",
    });
    assert.equal(unknown.ok ? null : unknown.code, "invalid_reference");
    // A blog without its authors and tags leaves relation targets absent.
    const partial = await generateBackend(demo.t.services.db, {
      siteId: demo.siteId,
      models: ["posts"],
      publicUrl: "http://media.example",
    });
    assert.equal(partial.ok ? null : partial.code, "relation_target_absent");
  } finally {
    await demo.t.close();
  }
});

Deno.test("site API tokens are never copied into a generated backend (GACC-014)", async () => {
  const demo = await setupDemo();
  try {
    const { db } = demo.t.services;
    const posts = await db.selectFrom("models").select("id")
      .where("site_id", "=", demo.siteId).where("slug", "=", "posts")
      .executeTakeFirstOrThrow();
    const issued = await issueSiteToken({ db, clock: demo.t.clock }, {
      siteId: demo.siteId,
      name: "Front end",
      modelIds: [posts.id],
    });
    assert.ok(issued.ok);
    const stored = await db.selectFrom("site_api_tokens").select("digest")
      .where("id", "=", issued.id).executeTakeFirstOrThrow();
    const generated = await generateBackend(db, {
      siteId: demo.siteId,
      models: ["posts", "authors", "tags", "notes"],
      publicUrl: "http://media.example",
    });
    assert.ok(generated.ok);
    for (const [path, text] of generated.files) {
      assert.ok(!text.includes(issued.token), path);
      assert.ok(!text.includes(stored.digest), path);
    }
    const tokens = JSON.parse(generated.files.get("access/read-tokens.json")!);
    assert.deepEqual(tokens.tokens, []);
  } finally {
    await demo.t.close();
  }
});
