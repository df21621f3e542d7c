import { deepEqual, equal, ok } from "node:assert/strict";
import { NO_CONTENT } from "./change_safety.ts";
import { listRetainedKeys } from "./retained_keys.ts";
import {
  applyModelDefinition,
  createModel,
  getModel,
  updateModelInfo,
} from "./store.ts";
import {
  count,
  create,
  fieldsOf,
  noContent,
  posts,
  withDb,
  withEntries,
} from "./test_support.ts";

Deno.test("createModel() saves a definition at revision 1 with new field ids, draft mode by default (MOD-001, MOD-005, MOD-013)", () =>
  withDb(async (ctx) => {
    const result = await createModel(
      ctx,
      posts([
        { key: "title", label: "Title", type: "text", required: true },
        {
          key: "seo",
          label: "SEO",
          type: "component",
          config:
            '{"fields":[{"key":"meta_title","label":"Meta","type":"text"}]}',
        },
      ]),
    );
    ok(result.ok);
    equal(result.slug, "posts");
    equal(result.model.revision, 1);
    equal(result.model.settings.validation_mode, "draft");
    equal(result.created_field_ids.length, 3);
    const seo = result.model.fields[1];
    ok(seo.type === "component");
    deepEqual(result.created_field_ids, [
      result.model.fields[0].id,
      seo.id,
      seo.config.fields[0].id,
    ]);
    const read = await getModel(ctx, result.model_id);
    ok(read.ok);
    deepEqual(read.model, result.model);
    deepEqual(
      (await listRetainedKeys(ctx, result.model_id)).map((k) => k.key),
      ["seo", "seo.meta_title", "title"],
    );
  }));

Deno.test("createModel() refuses field ids, a taken slug (model_slug_taken) and a name differing only in case (model_name_collision) (MOD-008, MOD-017)", () =>
  withDb(async (ctx, other) => {
    const withId = await createModel(
      ctx,
      posts([{
        id: crypto.randomUUID(),
        key: "title",
        label: "T",
        type: "text",
      }]),
    );
    deepEqual(
      withId.ok ? null : [
        withId.code,
        (withId as { problems: { path: string }[] }).problems[0].path,
      ],
      ["invalid_request", "fields[0].id"],
    );
    await create(ctx, posts());
    deepEqual(await createModel(ctx, posts(undefined, { name: "Articles" })), {
      ok: false,
      code: "model_slug_taken",
      slug: "posts",
    });
    deepEqual(
      await createModel(
        ctx,
        posts(undefined, { name: "POSTS", slug: "other" }),
      ),
      { ok: false, code: "model_name_collision", name: "POSTS" },
    );
    ok(
      (await createModel(other, posts())).ok,
      "another site may use the same slug and name",
    );
    equal(await count(ctx.db, "models"), 2);
  }));

Deno.test("createModel() lets exactly one of two concurrent creates with one slug win", () =>
  withDb(async (ctx) => {
    const results = await Promise.all([
      createModel(ctx, posts()),
      createModel(ctx, posts(undefined, { name: "Posts 2" })),
    ]);
    deepEqual(results.map((r) => r.ok ? "ok" : r.code).sort(), [
      "model_slug_taken",
      "ok",
    ]);
  }));

Deno.test("createModel() refuses a relation to a model of another site with invalid_reference", () =>
  withDb(async (ctx, other) => {
    const foreign = await create(other, posts());
    const result = await createModel(
      ctx,
      posts([{
        key: "r",
        label: "R",
        type: "relation",
        config: { targets: [foreign.id], cardinality: "many-to-one" },
      }]),
    );
    ok(!result.ok);
    equal(result.code, "invalid_reference");
    const authors = await create(
      ctx,
      posts(undefined, { name: "Authors", slug: "authors" }),
    );
    ok(
      (await createModel(
        ctx,
        posts([{
          key: "r",
          label: "R",
          type: "relation",
          config: { targets: [authors.id], cardinality: "many-to-one" },
        }]),
      )).ok,
    );
  }));

Deno.test("applyModelDefinition() keeps fields by id, adds fields without id, removes those left out, orders as listed (MOD-002, MOD-004, MOD-011)", () =>
  withDb(async (ctx, _other, clock) => {
    const model = await create(
      ctx,
      posts([
        { key: "title", label: "Title", type: "text" },
        { key: "body", label: "Body", type: "rich_text" },
      ]),
    );
    const [title] = fieldsOf(model);
    clock.advance(1000);
    const result = await applyModelDefinition(
      ctx,
      model.id,
      posts([{ key: "summary", label: "Summary", type: "text" }, {
        ...title,
        label: "Heading",
      }]),
      { baseRevision: 1, facts: noContent },
    );
    ok(result.ok);
    equal(result.changed, true);
    equal(result.model.revision, 2);
    equal(result.model.updatedAt.toISOString(), "2026-01-01T00:00:01.000Z");
    deepEqual(result.model.fields.map((f) => [f.key, f.label]), [[
      "summary",
      "Summary",
    ], ["title", "Heading"]]);
    equal(result.model.fields[1].id, title.id);
    deepEqual(result.created_field_ids, [result.model.fields[0].id]);
    deepEqual(result.diff.removed.map((r) => r.path), ["body"]);
    equal(await count(ctx.db, "model_fields"), 2);
  }));

Deno.test("applyModelDefinition() leaves the revision alone when nothing changed", () =>
  withDb(async (ctx) => {
    const model = await create(
      ctx,
      posts([{
        key: "tags",
        label: "Tags",
        type: "select",
        config: { options: ["a", "b"], multiple: true },
      }]),
    );
    const again = await applyModelDefinition(ctx, model.id, {
      model: { name: "Posts", slug: "posts" },
      fields: fieldsOf(model),
    }, { baseRevision: 1, facts: noContent });
    ok(again.ok);
    equal(again.changed, false);
    equal(again.model.revision, 1);
  }));

Deno.test("applyModelDefinition() refuses a stale base revision with model_changed and the current revision (MOD-015)", () =>
  withDb(async (ctx) => {
    const model = await create(ctx, posts());
    ok(
      (await applyModelDefinition(
        ctx,
        model.id,
        posts(undefined, { description: "x" }),
        { baseRevision: 1, facts: noContent },
      )).ok,
    );
    deepEqual(
      await applyModelDefinition(
        ctx,
        model.id,
        posts(undefined, { description: "y" }),
        { baseRevision: 1, facts: noContent },
      ),
      {
        ok: false,
        code: "model_changed",
        current_revision: 2,
        current_updated_at: "2026-01-01T00:00:00.000Z",
      },
    );
  }));

Deno.test("applyModelDefinition() refuses an id naming no field of the model with field_not_found", () =>
  withDb(async (ctx) => {
    const model = await create(ctx, posts());
    const result = await applyModelDefinition(
      ctx,
      model.id,
      posts([{
        id: crypto.randomUUID(),
        key: "title",
        label: "T",
        type: "text",
      }]),
      { baseRevision: 1, facts: noContent },
    );
    ok(!result.ok);
    equal(result.code, "field_not_found");
  }));

Deno.test("applyModelDefinition() refuses a required field added to a model with entries with model_change_blocked (MOD-016)", () =>
  withDb(async (ctx) => {
    const model = await create(ctx, posts());
    const input = posts([...fieldsOf(model), {
      key: "lead",
      label: "Lead",
      type: "text",
      required: true,
    }]);
    const result = await applyModelDefinition(ctx, model.id, input, {
      baseRevision: 1,
      facts: withEntries(4),
    });
    ok(!result.ok && result.code === "model_change_blocked");
    deepEqual(result.changes.map((c) => [c.kind, c.field, c.affected_count]), [[
      "required_missing",
      "lead",
      4,
    ]]);
    const after = await getModel(ctx, model.id);
    ok(after.ok);
    equal(after.model.revision, 1, "nothing changed after the refusal");
    equal(after.model.fields.length, 1);
    ok(
      (await applyModelDefinition(ctx, model.id, input, {
        baseRevision: 1,
        facts: withEntries(0),
      })).ok,
    );
  }));

Deno.test("applyModelDefinition() refuses re-adding a removed key while kept versions hold it, with retained_key_reuse (MOD-058)", () =>
  withDb(async (ctx) => {
    const model = await create(
      ctx,
      posts([{ key: "title", label: "Title", type: "text" }, {
        key: "n",
        label: "N",
        type: "number",
      }]),
    );
    const [, n] = fieldsOf(model);
    const removed = await applyModelDefinition(ctx, model.id, posts([n]), {
      baseRevision: 1,
      facts: noContent,
    });
    ok(removed.ok);
    const versionsHoldTitle = () => ({
      ...NO_CONTENT,
      countVersionsWithValue: (p: string) =>
        Promise.resolve(p === "title" ? 2 : 0),
    });
    const readded = posts([n, {
      key: "title",
      label: "Title",
      type: "number",
    }]);
    const blocked = await applyModelDefinition(ctx, model.id, readded, {
      baseRevision: 2,
      facts: versionsHoldTitle,
    });
    ok(!blocked.ok && blocked.code === "model_change_blocked");
    deepEqual(blocked.changes.map((c) => [c.kind, c.field, c.affected_count]), [
      ["retained_key_reuse", "title", 2],
    ]);
    ok(
      (await applyModelDefinition(ctx, model.id, readded, {
        baseRevision: 2,
        facts: noContent,
      })).ok,
      "no kept values: the key is free",
    );
    equal(
      (await listRetainedKeys(ctx, model.id)).filter((k) => k.key === "title")
        .length,
      2,
    );
  }));

Deno.test("applyModelDefinition() reports the old slug as renamed_from and runs onApplied inside the save", () =>
  withDb(async (ctx) => {
    const model = await create(ctx, posts());
    const seen: string[] = [];
    const result = await applyModelDefinition(
      ctx,
      model.id,
      posts([{ ...fieldsOf(model)[0], key: "heading" }], { slug: "articles" }),
      {
        baseRevision: 1,
        facts: noContent,
        onApplied: (_db, saved) =>
          Promise.resolve(
            void seen.push(
              `${saved.renamed_from}->${saved.slug}:${
                saved.diff.renamed[0].from
              }`,
            ),
          ),
      },
    );
    ok(result.ok);
    equal(result.renamed_from, "posts");
    deepEqual(seen, ["posts->articles:title"]);
  }));

Deno.test("updateModelInfo() changes the model part and keeps the fields (MOD-009)", () =>
  withDb(async (ctx) => {
    const model = await create(
      ctx,
      posts([
        {
          key: "title",
          label: "Title",
          type: "text",
          visibility: { field: "flag", op: "eq", value: true },
        },
        { key: "flag", label: "Flag", type: "boolean" },
        {
          key: "seo",
          label: "SEO",
          type: "component",
          config: { fields: [{ key: "t", label: "T", type: "text" }] },
        },
      ]),
    );
    const result = await updateModelInfo(ctx, model.id, {
      name: "Articles",
      slug: "posts",
      kind: "single",
      settings: { validation_mode: "strict" },
    }, { baseRevision: 1, facts: noContent });
    ok(result.ok);
    equal(result.model.revision, 2);
    equal(result.model.kind, "single");
    deepEqual(result.model.fields, model.fields);
  }));
