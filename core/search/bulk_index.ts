// Set-based (re)indexing of a whole site's `search_documents`, for seeding large data sets (the
// benchmark): the same rows as `reindexSite` (index_documents.ts), written a batch at a time with
// one stem query and one insert per batch instead of several statements per group.
// Models with relation fields are refused: their linked names need per-link reads.
import { sql } from "kysely";
import type { Db } from "../db/database.ts";
import { UUID } from "../models/field_types.ts";
import { loadModels, type StoredModel } from "../models/store_rows.ts";
import {
  hiddenFromSearch,
  plainText,
  searchableFields,
  summaryOf,
  titleField,
} from "./fields.ts";
import { isEnglish, searchWords, spaced, suffixes } from "./words.ts";

interface LiveRow {
  id: string;
  group_id: string;
  model_id: string;
  locale: string;
  slug: string;
  published_at: Date;
  fields: unknown;
}

/**
 * Replaces every search document of `siteId` with the documents `reindexSite` would write.
 * Returns the number of documents written. Throws when a public model has a relation field.
 */
export async function bulkIndexSite(
  db: Db,
  siteId: string,
  options: { batch?: number } = {},
): Promise<number> {
  const batch = options.batch ?? 5000;
  const modelIds = (await db.selectFrom("entry_groups").select("model_id")
    .distinct().where("site_id", "=", siteId).execute())
    .map((r) => r.model_id).filter((id) => UUID.test(id));
  const models = new Map<string, StoredModel>(
    (await loadModels(db, siteId, modelIds)).map((m) => [m.id, m]),
  );
  for (const m of models.values()) {
    if (m.isPublic && searchableFields(m).some((f) => f.type === "relation")) {
      throw new Error(
        `Cannot bulk-index model "${m.slug}": it has relation fields (use reindexSite)`,
      );
    }
  }
  await db.deleteFrom("search_documents").where("site_id", "=", siteId)
    .execute();
  let written = 0;
  let after: string | null = null;
  for (;;) {
    const rows: LiveRow[] = (await sql<LiveRow>`
      select e.id, e.group_id, g.model_id, e.locale, e.slug, e.published_at, v.fields
      from entries e
      join entry_groups g on g.site_id = e.site_id and g.id = e.group_id
      join entry_versions v on v.site_id = e.site_id and v.id = e.published_version_id
      where e.site_id = ${siteId} and g.trashed_at is null
        ${after === null ? sql`` : sql`and e.id > ${after}::uuid`}
      order by e.id limit ${batch}
    `.execute(db)).rows;
    if (rows.length === 0) break;
    after = rows[rows.length - 1].id;
    written += await indexBatch(db, siteId, models, rows);
  }
  return written;
}

async function indexBatch(
  db: Db,
  siteId: string,
  models: Map<string, StoredModel>,
  rows: LiveRow[],
): Promise<number> {
  const docs: {
    entry: LiveRow;
    model: StoredModel;
    values: Record<string, unknown>;
    words: Record<string, string[]>;
    english: boolean;
  }[] = [];
  const toStem = new Set<string>();
  for (const entry of rows) {
    const model = models.get(entry.model_id);
    if (!model || !model.isPublic) continue;
    const values = (entry.fields ?? {}) as Record<string, unknown>;
    if (hiddenFromSearch(values)) continue;
    const words: Record<string, string[]> = {};
    for (const field of searchableFields(model)) {
      const found = searchWords(plainText(field, values[field.key]));
      if (found.length > 0) words[field.key] = found;
    }
    const english = isEnglish(entry.locale);
    if (english) {
      for (const ws of Object.values(words)) {
        for (const w of ws) toStem.add(w);
      }
    }
    docs.push({ entry, model, values, words, english });
  }
  if (docs.length === 0) return 0;
  const stemOf = new Map<string, string>();
  if (toStem.size > 0) {
    const { rows: stemmed } = await sql<{ w: string; s: string }>`
      select w, coalesce((ts_lexize('english_stem', w))[1], w) as s
      from unnest(${[...toStem]}::text[]) as w
    `.execute(db);
    for (const r of stemmed) stemOf.set(r.w, r.s);
  }
  const payload = docs.map(({ entry, model, values, words, english }) => {
    const title = titleField(model);
    const stem = (w: string) => english ? stemOf.get(w) ?? w : w;
    const all = [...new Set(Object.values(words).flat())];
    const fieldWords = Object.fromEntries(
      Object.entries(words).map(([k, ws]) => [k, spaced(ws)]),
    );
    const fieldStems = Object.fromEntries(
      Object.entries(words).map(([k, ws]) => [k, spaced(ws.map(stem))]),
    );
    return {
      entry_id: entry.id,
      group_id: entry.group_id,
      model_id: model.id,
      locale: entry.locale,
      slug: entry.slug,
      published_at: new Date(entry.published_at).toISOString(),
      title: title ? plainText(title, values[title.key]).trim() : entry.slug,
      summary: summaryOf(model, values, title),
      is_english: english,
      field_words: fieldWords,
      field_stems: fieldStems,
      title_words: title ? fieldWords[title.key] ?? "" : "",
      words: all,
      stems: [...new Set(all.map(stem))],
      parts: suffixes(all),
    };
  });
  await sql`
    insert into search_documents (site_id, entry_id, group_id, model_id, locale, slug,
      published_at, title, summary, is_english, field_words, field_stems, title_words,
      words, stems, parts)
    select ${siteId}, r.entry_id, r.group_id, r.model_id, r.locale, r.slug, r.published_at,
      r.title, r.summary, r.is_english, r.field_words, r.field_stems, r.title_words,
      array_to_tsvector(array(select jsonb_array_elements_text(r.words))),
      array_to_tsvector(array(select jsonb_array_elements_text(r.stems))),
      array_to_tsvector(array(select jsonb_array_elements_text(r.parts)))
    from jsonb_to_recordset(${JSON.stringify(payload)}::jsonb) as r(
      entry_id uuid, group_id uuid, model_id text, locale text, slug text,
      published_at timestamptz, title text, summary text, is_english boolean,
      field_words jsonb, field_stems jsonb, title_words text,
      words jsonb, stems jsonb, parts jsonb)
  `.execute(db);
  return payload.length;
}
