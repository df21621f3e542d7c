// A site whose models use every field kind the model builder offers and every relation shape:
// per-language text with Unicode patterns, numbers, dates, choices, rich text, media,
// components holding a private field, points, a hierarchy, to-one, one-to-one, one-to-many,
// many-to-many and several-model lists, per-language lists and a single-entry model.
import assert from "node:assert/strict";
import { putModelAccess } from "../../core/backend/access.ts";
import type { Clock } from "../../core/clock.ts";
import type { Db } from "../../core/db/database.ts";
import { entryContentFacts } from "../../core/manage/content_facts.ts";
import { applyModelDefinition, createModel } from "../../core/models/store.ts";
import { insertSite } from "../support/sites.ts";

/** The fixture's site and model ids by slug. */
export interface FixtureSite {
  siteId: string;
  models: Record<string, string>;
}

/** Creates the fixture site in `db`. */
export async function createFixtureSite(
  db: Db,
  clock: Clock,
): Promise<FixtureSite> {
  const siteId = await insertSite(db, {
    domain: "fixture.example",
    languages: ["en", "de"],
  });
  const ctx = { db, clock, siteId };
  const models: Record<string, string> = {};
  const create = async (definition: unknown) => {
    const saved = await createModel(ctx, definition);
    assert.ok(saved.ok, JSON.stringify(saved));
    models[saved.slug] = saved.model_id;
    return saved.model_id;
  };
  const text = (key: string, extra: Record<string, unknown> = {}) => ({
    key,
    label: key,
    type: "text",
    ...extra,
  });
  await create({
    model: { name: "Tag", slug: "tag" },
    fields: [text("label", { required: true })],
  });
  await create({
    model: { name: "Section", slug: "section" },
    fields: [text("heading")],
  });
  const categoryFields = [text("name", { required: true, localized: true })];
  const category = await create({
    model: { name: "Category", slug: "category", enableI18n: true },
    fields: categoryFields,
  });
  // The parent link names the model itself, so it is added once the model has its id.
  const [stored] = await db.selectFrom("models").select("revision")
    .where("id", "=", category).execute();
  const withParent = await applyModelDefinition(ctx, category, {
    model: { name: "Category", slug: "category", enableI18n: true },
    fields: [
      ...(await db.selectFrom("model_fields").select(["id", "key"])
        .where("model_id", "=", category).execute()).map((f) => ({
          ...categoryFields.find((c) => c.key === f.key),
          id: f.id,
        })),
      {
        key: "parent",
        label: "Parent",
        type: "relation",
        config: { targets: [category], cardinality: "many-to-one" },
      },
    ],
  }, {
    baseRevision: stored.revision,
    facts: (trx, model) => entryContentFacts(trx, siteId, model),
  });
  assert.ok(withParent.ok, JSON.stringify(withParent));
  await create({
    model: { name: "Article", slug: "article", enableI18n: true },
    fields: [
      text("title", {
        required: true,
        localized: true,
        // Starts with an upper-case letter of any script.
        validation: { minLength: 2, maxLength: 10, pattern: "^\\p{Lu}" },
      }),
      { key: "body", label: "Body", type: "rich_text", localized: true },
      {
        key: "price",
        label: "Price",
        type: "number",
        validation: { min: 0, max: 100, step: 0.5 },
      },
      {
        key: "stock",
        label: "Stock",
        type: "number",
        config: { integer: true },
      },
      { key: "live", label: "Live", type: "boolean" },
      { key: "day", label: "Day", type: "date" },
      { key: "at", label: "At", type: "datetime" },
      {
        key: "kind",
        label: "Kind",
        type: "select",
        config: { options: ["news", "guide"] },
      },
      {
        key: "flags",
        label: "Flags",
        type: "select",
        config: { options: ["a", "b"], multiple: true },
      },
      { key: "meta", label: "Meta", type: "json" },
      { key: "cover", label: "Cover", type: "media" },
      {
        key: "gallery",
        label: "Gallery",
        type: "media",
        config: { multiple: true },
      },
      text("secret", { private: true }),
      { key: "contract", label: "Contract", type: "media", private: true },
      { key: "dossier", label: "Dossier", type: "rich_text", private: true },
      {
        key: "seo",
        label: "SEO",
        type: "component",
        config: {
          fields: [
            text("meta_title"),
            text("note", { private: true }),
          ],
        },
      },
      { key: "location", label: "Location", type: "point" },
      { key: "hideout", label: "Hideout", type: "point", private: true },
      {
        key: "category",
        label: "Category",
        type: "relation",
        config: { targets: [category], cardinality: "many-to-one" },
      },
      {
        key: "lead",
        label: "Lead section",
        type: "relation",
        config: { targets: [models.section], cardinality: "one-to-one" },
      },
      {
        key: "tags",
        label: "Tags",
        type: "relation",
        config: { targets: [models.tag], cardinality: "many-to-many" },
        validation: { maxItems: 3 },
      },
      {
        key: "sections",
        label: "Sections",
        type: "relation",
        config: { targets: [models.section], cardinality: "one-to-many" },
      },
      {
        key: "mixed",
        label: "Mixed",
        type: "relation",
        config: {
          targets: [models.tag, models.section],
          cardinality: "many-to-many",
        },
      },
      {
        key: "picks",
        label: "Picks per language",
        type: "relation",
        config: {
          targets: [models.tag],
          cardinality: "many-to-many",
          localizedMembership: true,
        },
      },
    ],
  });
  await create({
    model: { name: "Bundle", slug: "bundle" },
    fields: [
      text("name"),
      {
        key: "home",
        label: "Home section",
        type: "relation",
        required: true,
        config: { targets: [models.section], cardinality: "many-to-one" },
      },
      {
        key: "items",
        label: "Items",
        type: "relation",
        required: true,
        config: { targets: [models.tag], cardinality: "many-to-many" },
        validation: { maxItems: 2 },
      },
    ],
  });
  await create({
    model: { name: "Settings", slug: "settings", kind: "single" },
    fields: [text("site_title")],
  });
  for (const slug of ["article"]) {
    const put = await putModelAccess(ctx, models[slug], {
      operations: {
        findMany: { audience: "anonymous" },
        findManyPaginated: { audience: "anonymous" },
        findUnique: { audience: "anonymous" },
      },
    });
    assert.ok(put.ok);
  }
  return { siteId, models };
}

/** A read token: its secret and the entry `ACCESS_CONFIG` keeps for it. */
export async function readToken(
  siteId: string,
  id: string,
  models: string[],
): Promise<{ secret: string; entry: Record<string, unknown> }> {
  const secret = `sv_art_${id}-${crypto.randomUUID()}`;
  const digest = Array.from(
    new Uint8Array(
      await crypto.subtle.digest("SHA-256", new TextEncoder().encode(secret)),
    ),
    (b) => b.toString(16).padStart(2, "0"),
  ).join("");
  return {
    secret,
    entry: { id, site_id: siteId, digest, models, capabilities: ["read"] },
  };
}
