// The search plan offers only types whose items have an address on the site (SRCH-012).
import { deepEqual } from "node:assert/strict";
import type { StoredModel } from "../models/store_rows.ts";
import { SETTINGS_DEFAULTS } from "../sites/settings_documents.ts";
import { searchPlan } from "./plan.ts";

function model(slug: string, isPublic = true): StoredModel {
  return {
    id: crypto.randomUUID(),
    slug,
    name: slug,
    description: "",
    kind: "collection",
    isPublic,
    enableI18n: true,
    settings: { validation_mode: "draft", unique_combinations: [] },
    folder: null,
    revision: 1,
    createdAt: new Date(0),
    updatedAt: new Date(0),
    fields: [{
      id: crypto.randomUUID(),
      key: "title",
      label: "Title",
      type: "text",
      required: true,
      localized: true,
    }],
  } as unknown as StoredModel;
}

Deno.test("searchPlan() never searches shared sections, which have no address, even when public and named (SRCH-012)", () => {
  const models = [model("pages"), model("shared_section"), model("faqs")];
  const plan = searchPlan({
    ...SETTINGS_DEFAULTS.search,
    types: [
      { model: "shared_section", fields: [{ field: "title", weight: 10 }] },
      { model: "faqs", fields: [{ field: "title", weight: 10 }] },
    ],
  }, models);
  deepEqual(plan.types.map((t) => t.model.slug), ["pages", "faqs"]);
});
