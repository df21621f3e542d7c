// Tests of unique fields and named unique combinations: claims, scopes, empty members, concurrency.
import assert from "node:assert/strict";
import { allCounts, create, model, rendezvous } from "./_rules_testing.ts";
import { code, ok, openWorld, type World } from "./_testing.ts";
import { saveEntry } from "./lifecycle.ts";
import type { LifecycleResult } from "./types.ts";

const PRODUCT = [
  { key: "sku", label: "SKU", type: "text", unique: true },
  { key: "number", label: "Number", type: "number", unique: true },
  { key: "brand", label: "Brand", type: "text" },
  { key: "name", label: "Name", type: "text" },
];

function products(w: World, scope: "model" | "language" = "model") {
  return model(w, "products", PRODUCT, {
    settings: {
      unique_combinations: [{
        name: "brand_name",
        fields: ["brand", "name"],
        scope,
      }],
    },
  });
}

function edit(
  w: World,
  saved: LifecycleResult,
  locale: string,
  fields: Record<string, unknown>,
) {
  const instance = saved.instances.find((i) => i.locale === locale);
  return saveEntry(w.ctx(), {
    group_id: saved.group_id,
    locale,
    slug: instance ? undefined : `${saved.group_id.slice(0, 8)}-${locale}`,
    fields,
    expected_current_version_id: instance?.current_version_id ?? null,
  });
}

Deno.test("saveEntry() refuses a unique text or number value another entry holds with unique_value_taken naming field and holder (MOD-027)", async () => {
  const w = await openWorld();
  try {
    const m = await products(w);
    const first = ok(await create(w, m.id, { sku: "A-1", number: 7 }));
    const before = await allCounts(w);
    for (const fields of [{ sku: "A-1" }, { number: 7 }]) {
      const key = Object.keys(fields)[0];
      assert.deepEqual(await create(w, m.id, fields), {
        ok: false,
        code: "unique_value_taken",
        unique: {
          kind: "field",
          name: key,
          fields: [key],
          scope: "model",
          locale: null,
        },
        existing: { group_id: first.group_id },
      });
    }
    assert.deepEqual(await allCounts(w), before);
    // Other values, and the same value as text vs number, are free.
    ok(await create(w, m.id, { sku: "A-2", number: 8 }));
    ok(await create(w, m.id, { sku: "7" }));
  } finally {
    await w.close();
  }
});

Deno.test("saveEntry() lets an entry keep its own unique value across versions and languages, and frees an old value (MOD-027)", async () => {
  const w = await openWorld();
  try {
    const m = await products(w);
    const first = ok(await create(w, m.id, { sku: "A-1" }));
    const de = ok(await edit(w, first, "de", { sku: "A-1" }));
    const renamed = ok(await edit(w, de, "en", { sku: "A-2" }));
    // "A-1" is still held by the de version; "A-2" by en.
    assert.equal(
      code(await create(w, m.id, { sku: "A-1" })),
      "unique_value_taken",
    );
    assert.equal(
      code(await create(w, m.id, { sku: "A-2" })),
      "unique_value_taken",
    );
    ok(await edit(w, renamed, "de", { sku: "A-2" }));
    ok(await create(w, m.id, { sku: "A-1" }));
  } finally {
    await w.close();
  }
});

Deno.test("saveEntry() refuses a taken combination; a combination with an empty member claims nothing (MOD-028)", async () => {
  const w = await openWorld();
  try {
    const m = await products(w);
    const first = ok(await create(w, m.id, { brand: "Acme", name: "Anvil" }));
    const before = await allCounts(w);
    const taken = await create(w, m.id, { brand: "Acme", name: "Anvil" });
    assert.deepEqual(taken, {
      ok: false,
      code: "unique_value_taken",
      unique: {
        kind: "combination",
        name: "brand_name",
        fields: ["brand", "name"],
        scope: "model",
        locale: null,
      },
      existing: { group_id: first.group_id },
    });
    assert.deepEqual(await allCounts(w), before);
    ok(await create(w, m.id, { brand: "Acme", name: "Rocket" }));
    // Empty members: none of these claim, so they never collide with each other.
    ok(await create(w, m.id, { brand: "Acme" }));
    ok(await create(w, m.id, { brand: "Acme" }));
    ok(await create(w, m.id, { brand: "Acme", name: " " }));
    ok(await create(w, m.id, { brand: "Acme", name: null }));
  } finally {
    await w.close();
  }
});

Deno.test("saveEntry() keeps a language-scoped combination per language and a model-scoped one across languages (MOD-028)", async () => {
  const w = await openWorld();
  try {
    const perLanguage = await products(w, "language");
    const a = ok(
      await create(w, perLanguage.id, { brand: "Acme", name: "Anvil" }),
    );
    const b = ok(
      await create(w, perLanguage.id, { brand: "Other", name: "X" }),
    );
    // The same pair in another language of another entry is free under language scope…
    ok(await edit(w, b, "de", { brand: "Acme", name: "Anvil" }));
    // …but not in the same language.
    const refused = await edit(w, a, "de", { brand: "Acme", name: "Anvil" });
    assert.equal(code(refused), "unique_value_taken");
    assert.deepEqual(refused.ok ? null : refused.unique?.locale, "de");

    const w2 = await openWorld();
    try {
      const perModel = await products(w2, "model");
      ok(await create(w2, perModel.id, { brand: "Acme", name: "Anvil" }));
      const c = ok(
        await create(w2, perModel.id, { brand: "Other", name: "X" }),
      );
      const across = await edit(w2, c, "de", { brand: "Acme", name: "Anvil" });
      assert.equal(code(across), "unique_value_taken");
    } finally {
      await w2.close();
    }
  } finally {
    await w.close();
  }
});

Deno.test("saveEntry() run as truly concurrent saves of the same unique value: exactly one wins (MOD-027)", async () => {
  const w = await openWorld();
  try {
    const m = await products(w);
    const ctx = w.ctx(undefined, { validate: rendezvous() });
    const outcomes = await Promise.all(
      ["x", "y"].map((slug) =>
        saveEntry(ctx, {
          model_id: m.id,
          locale: "en",
          slug,
          fields: { sku: "SAME" },
          expected_current_version_id: null,
        })
      ),
    );
    assert.deepEqual(outcomes.map(code).sort(), ["ok", "unique_value_taken"]);
    const groups = await w.db.selectFrom("entry_groups").select("id").execute();
    assert.equal(groups.length, 1);
    const claims = await w.db.selectFrom("entry_unique_claims")
      .select("group_id").execute();
    assert.deepEqual(claims, [{ group_id: groups[0].id }]);
  } finally {
    await w.close();
  }
});
