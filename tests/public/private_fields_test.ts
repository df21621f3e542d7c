// Private fields inside components and private relation fields over the public API (spec 2 part 2.3 item 3;
// MOD-029, MOD-030). Top-level private fields: tests/public/model_features_test.ts.
import { deepEqual, equal, ok } from "node:assert/strict";
import { publishEntry, saveEntry } from "../../core/entries/mod.ts";
import { createModel } from "../../core/models/store.ts";
import { codeOf, openPublicWorld } from "./helpers.ts";

Deno.test("a private field inside a component and a private relation are never served, and naming them is an unknown field (MOD-029, MOD-030)", async () => {
  const w = await openPublicWorld();
  const ctx = w.ctx();
  try {
    const tags = await w.modelId("tags");
    const tag = await saveEntry(ctx, {
      model_id: tags,
      locale: "en",
      slug: "hidden-tag",
      fields: { name: "Quokka" },
      expected_current_version_id: null,
    });
    ok(tag.ok, JSON.stringify(tag));
    ok(
      (await publishEntry(ctx, {
        group_id: tag.group_id,
        expected_current_version_id: tag.current_version_id,
        expected_workflow_revision: tag.revision,
      })).ok,
    );
    const made = await createModel(
      { db: w.services.db, clock: w.clock, siteId: w.siteId },
      {
        model: { name: "Offers", slug: "offers", enableI18n: false },
        fields: [
          { key: "name", label: "Name", type: "text" },
          {
            key: "terms",
            label: "Terms",
            type: "component",
            config: {
              fields: [
                { key: "headline", label: "Headline", type: "text" },
                { key: "margin", label: "Margin", type: "text", private: true },
              ],
            },
          },
          {
            key: "supplier",
            label: "Supplier",
            type: "relation",
            private: true,
            config: { targets: [tags], cardinality: "many-to-one" },
          },
        ],
      },
    );
    ok(made.ok, JSON.stringify(made));
    const saved = await saveEntry(ctx, {
      model_id: made.model_id!,
      locale: "en",
      slug: "deal",
      fields: {
        name: "Deal",
        terms: { headline: "Cheap", margin: "wombat-42" },
        supplier: tag.group_id,
      },
      expected_current_version_id: null,
    });
    ok(saved.ok, JSON.stringify(saved));
    ok(
      (await publishEntry(ctx, {
        group_id: saved.group_id,
        expected_current_version_id: saved.current_version_id,
        expected_workflow_revision: saved.revision,
      })).ok,
    );

    for (const path of ["/v1/offers", "/v1/offers/deal"]) {
      const res = await w.get(path);
      equal(res.status, 200, path);
      const text = await res.text();
      ok(text.includes("Cheap"), `${path}: the public part is served`);
      for (const hidden of ["margin", "wombat-42", "supplier", "Quokka"]) {
        ok(!text.includes(hidden), `${path}: ${hidden} leaked`);
      }
    }
    const client = await (await w.get("/v1/_client")).text();
    ok(!client.includes("margin") && !client.includes("supplier"));
    // Naming the private relation anywhere answers exactly as naming a field that does not exist.
    for (
      const q of [
        "filter[supplier]=x",
        "sort=supplier",
        "fields=supplier",
        "expand=supplier",
      ]
    ) {
      const res = await w.get(`/v1/offers?${q}`);
      equal(res.status, 400, q);
      const unknown = await w.get(
        `/v1/offers?${q.replace("supplier", "nothing")}`,
      );
      equal(unknown.status, 400, q);
      deepEqual(
        JSON.parse((await res.text()).replaceAll("supplier", "nothing")),
        await unknown.json(),
        q,
      );
    }
    const sorted = await w.get("/v1/offers?sort=supplier");
    equal(await codeOf(sorted), "public_filter_invalid");
  } finally {
    await w.close();
  }
});
