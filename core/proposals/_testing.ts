// Test fixtures for proposals and drafts: the entries world plus a real model and one saved entry.
import { ok, openWorld, type World } from "../entries/_testing.ts";
import { saveEntry } from "../entries/save.ts";
import { createModel } from "../models/store.ts";
import type { StoredModel } from "../models/store_rows.ts";

export { code, ok } from "../entries/_testing.ts";

/** Keys of the 49 plain text fields the article model has beside `title` and `body`. */
export const EXTRA_KEYS = Array.from(
  { length: 49 },
  (_, i) => `t${String(i + 1).padStart(2, "0")}`,
);

/** A world with an `article` model (51 text fields, a relation, a media field, components) and one entry. */
export interface ProposalWorld extends World {
  model: StoredModel;
  /** The article's group id. */
  groupId: string;
  /** The `en` instance id. */
  entryId: string;
  /** The `en` current version id. */
  versionId: string;
  /** Counts of the entry tables and every row a proposal or draft command could change, to prove a refusal wrote nothing. */
  snapshot(): Promise<unknown>;
}

/** Opens a fresh proposal world on the engine of this run. */
export async function openProposalWorld(): Promise<ProposalWorld> {
  const w = await openWorld();
  const modelCtx = { db: w.db, clock: w.clock, siteId: w.siteId };
  const authors = await createModel(modelCtx, {
    model: { name: "Authors", slug: "authors" },
    fields: [{ key: "name", label: "Name", type: "text" }],
  });
  if (!authors.ok) throw new Error(JSON.stringify(authors));
  const text = (key: string) => ({ key, label: key, type: "text" });
  const created = await createModel(modelCtx, {
    model: { name: "Articles", slug: "articles" },
    fields: [
      text("title"),
      text("body"),
      ...EXTRA_KEYS.map(text),
      {
        key: "author",
        label: "Author",
        type: "relation",
        config: { targets: [authors.model_id], cardinality: "many-to-one" },
      },
      { key: "cover", label: "Cover", type: "media", config: {} },
      {
        key: "seo",
        label: "SEO",
        type: "component",
        config: { fields: [text("meta_title")] },
      },
      {
        key: "hero",
        label: "Hero",
        type: "component",
        config: {
          fields: [{ key: "image", label: "Image", type: "media", config: {} }],
        },
      },
    ],
  });
  if (!created.ok) throw new Error(JSON.stringify(created));
  const saved = ok(
    await saveEntry(w.ctx(), {
      model_id: created.model_id,
      locale: "en",
      slug: "first",
      fields: { title: "Old title", body: "Old body", t01: "one" },
      expected_current_version_id: null,
    }),
  );
  return {
    ...w,
    model: created.model,
    groupId: saved.group_id,
    entryId: saved.instances[0].entry_id,
    versionId: saved.current_version_id!,
    async snapshot() {
      const counts = await w.counts();
      const rows: Record<string, unknown> = {};
      for (
        const table of [
          "entry_proposals",
          "model_proposals",
          "entry_drafts",
          "entries",
          "models",
          "model_fields",
        ] as const
      ) {
        const all = await w.db.selectFrom(table).selectAll().execute();
        rows[table] = all.map((r) => JSON.stringify(r)).sort();
      }
      return { counts, rows };
    },
  };
}
