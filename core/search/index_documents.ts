// Keeps `search_documents` current inside the publication transaction (spec 3 part 4.7): one
// document per live language instance of a public model, with linked items' names.
import { sql } from "kysely";
import { prebuilt, prebuiltShapes, rowsOf } from "../db/prebuilt.ts";
import type { Db } from "../db/database.ts";
import type {
  ChangedGroup,
  LiveLanguage,
  PublicationChange,
} from "../entries/publication_change.ts";
import { UUID } from "../models/field_types.ts";
import {
  loadModelOnce,
  loadModels,
  type StoredModel,
} from "../models/store_rows.ts";
import {
  hiddenFromSearch,
  plainText,
  searchableFields,
  summaryOf,
  titleField,
} from "./fields.ts";
import { isEnglish, searchWords, spaced, suffixes } from "./words.ts";

/**
 * Re-indexes every language of `groupId`, then every group linking to it (their linked
 * names depend on its publication). Registered in the publication hook.
 */
export async function refreshSearchDocuments(
  tx: Db,
  change: PublicationChange,
): Promise<void> {
  const { siteId, groupId } = change;
  const sources = await indexGroup(tx, siteId, groupId, {
    group: change.group,
    live: change.live,
  }, { linking: true });
  for (const s of sources) {
    if (s.source_group_id !== groupId) {
      await indexGroup(tx, siteId, s.source_group_id);
    }
  }
}

/**
 * Rebuilds the documents of one model's groups and of the groups linking to them (their
 * linked-item names), inside the model change's transaction.
 */
export async function reindexModel(
  db: Db,
  siteId: string,
  modelId: string,
): Promise<void> {
  const groups = await db.selectFrom("entry_groups").select("id")
    .where("site_id", "=", siteId).where("model_id", "=", modelId).execute();
  const linking = groups.length === 0 ? [] : await db.selectFrom("entry_links")
    .select("source_group_id").distinct()
    .where("site_id", "=", siteId)
    .where("target_group_id", "in", groups.map((g) => g.id)).execute();
  const ids = new Set([
    ...groups.map((g) => g.id),
    ...linking.map((l) => l.source_group_id),
  ]);
  for (const id of ids) await indexGroup(db, siteId, id);
}

/** Rebuilds the documents of every group of a site (after a model or field changes visibility). */
export async function reindexSite(db: Db, siteId: string): Promise<void> {
  const groups = await db.selectFrom("entry_groups").select("id")
    .where("site_id", "=", siteId).execute();
  for (const g of groups) await indexGroup(db, siteId, g.id);
}

/** The group as indexing needs it; undefined when it is gone. */
type IndexedGroup = Pick<ChangedGroup, "model_id" | "trashed_at">;

/**
 * Rewrites the documents of one group. `known` holds the group when the caller has just read
 * it (the publication hook reads it once for every projection), and its published languages
 * when they were read with it; otherwise they are read here.
 */
async function indexGroup(
  tx: Db,
  siteId: string,
  groupId: string,
  known?: { group: IndexedGroup | undefined; live?: LiveLanguage[] },
  options: { linking?: boolean } = {},
): Promise<{ source_group_id: string }[]> {
  const group = known ? known.group : await tx.selectFrom("entry_groups")
    .select(["model_id", "trashed_at"]).where("site_id", "=", siteId)
    .where("id", "=", groupId).executeTakeFirst();
  const documents = await documentsOf(tx, siteId, groupId, group, known?.live);
  // With `linking`, the statement that writes also answers the groups linking to this one
  // (indexing writes no links, so reading them alongside reads what a statement after would).
  // One statement: the group's documents that no longer exist go, the others are written over
  // (a document's key is its entry, which never leaves its group).
  if (documents.length === 0 && !options.linking) {
    await tx.deleteFrom("search_documents").where("site_id", "=", siteId)
      .where("group_id", "=", groupId).execute();
    return [];
  }
  return await writeDocumentsOf({
    count: documents.length,
    linking: options.linking === true,
  }).rows(tx, {
    siteId,
    groupId,
    kept: documents.map((d) => d.entryId),
    documents,
  });
}

/** The groups linking to the group, read alongside its documents' write. */
function linkingGroups(v: { siteId: string; groupId: string }) {
  return sql<{ source_group_id: string }>`select distinct source_group_id
    from entry_links where site_id = ${v.siteId} and target_group_id = ${v.groupId}`;
}

/**
 * {@linkcode indexGroup}'s write, by how many documents the group has and whether it answers
 * the groups linking to it: the stale documents deleted and the others upserted.
 */
const writeDocumentsOf = prebuiltShapes(
  ({ count, linking }: { count: number; linking: boolean }) =>
    prebuilt((
      _db,
      v: {
        siteId: string;
        groupId: string;
        kept: string[];
        documents: SearchDocument[];
      },
    ) => {
      const answer = linking ? linkingGroups(v) : sql<
        { source_group_id: string }
      >`select null as source_group_id where false`;
      if (count === 0) {
        return sql<{ source_group_id: string }>`
        with gone as (
          delete from search_documents where site_id = ${v.siteId} and group_id = ${v.groupId}
        )
        ${answer}`;
      }
      const rows = rowsOf(v.documents, count, DOCUMENT_KEYS).map((d) =>
        sql`(${d.siteId}::uuid, ${d.entryId}::uuid, ${d.groupId}::uuid, ${d.modelId},
        ${d.locale}, ${d.slug}, ${d.publishedAt}::timestamptz, ${d.title},
        ${d.summary}, ${d.english},
        ${d.fieldWords}::jsonb, ${d.fieldStems}::jsonb, ${d.titleWords},
        array_to_tsvector(${d.words}::text[]), array_to_tsvector(${d.stems}::text[]),
        array_to_tsvector(${d.parts}::text[]))`
      );
      return sql<{ source_group_id: string }>`
    with stale as (
      delete from search_documents
      where site_id = ${v.siteId} and group_id = ${v.groupId}
        and entry_id <> all(${v.kept}::uuid[])
    ), written as (
    insert into search_documents (site_id, entry_id, group_id, model_id, locale, slug,
      published_at, title, summary, is_english, field_words, field_stems, title_words,
      words, stems, parts)
    values ${sql.join(rows)}
    on conflict (site_id, entry_id) do update set group_id = excluded.group_id,
      model_id = excluded.model_id, locale = excluded.locale, slug = excluded.slug,
      published_at = excluded.published_at, title = excluded.title,
      summary = excluded.summary, is_english = excluded.is_english,
      field_words = excluded.field_words, field_stems = excluded.field_stems,
      title_words = excluded.title_words, words = excluded.words, stems = excluded.stems,
      parts = excluded.parts
    )
    ${answer}
  `;
    }),
  { key: ({ count, linking }) => `${count} ${linking}` },
);

/** One search document to write, its values as its row's columns take them. */
interface SearchDocument {
  siteId: string;
  entryId: string;
  groupId: string;
  modelId: string;
  locale: string;
  slug: string;
  publishedAt: Date | string | null;
  title: string;
  summary: string;
  english: boolean;
  /** JSON text of the words of each field. */
  fieldWords: string;
  /** JSON text of the stems of each field. */
  fieldStems: string;
  titleWords: string;
  words: string[];
  stems: string[];
  parts: string[];
}

const DOCUMENT_KEYS = [
  "siteId",
  "entryId",
  "groupId",
  "modelId",
  "locale",
  "slug",
  "publishedAt",
  "title",
  "summary",
  "english",
  "fieldWords",
  "fieldStems",
  "titleWords",
  "words",
  "stems",
  "parts",
] as const satisfies readonly (keyof SearchDocument)[];

/** The documents the group should have now: none when it is gone, trashed or not public. */
async function documentsOf(
  tx: Db,
  siteId: string,
  groupId: string,
  group: IndexedGroup | undefined,
  known?: LiveLanguage[],
): Promise<SearchDocument[]> {
  if (!group || group.trashed_at !== null) return [];
  // A model id that is not a UUID names no model (and must not abort the transaction).
  if (!UUID.test(group.model_id)) return [];
  const model = await loadModelOnce(tx, siteId, group.model_id);
  if (!model || !model.isPublic) return [];
  const live: LiveLanguage[] = known ?? await tx.selectFrom("entries as e")
    .innerJoin(
      "entry_versions as v",
      (j) =>
        j.onRef("v.site_id", "=", "e.site_id").onRef(
          "v.id",
          "=",
          "e.published_version_id",
        ),
    )
    .select(["e.id", "e.locale", "e.slug", "e.published_at", "v.fields"])
    .where("e.site_id", "=", siteId).where("e.group_id", "=", groupId)
    .execute();
  const title = titleField(model);
  const found: {
    entry: (typeof live)[number];
    values: Record<string, unknown>;
    words: Record<string, string[]>;
    all: string[];
  }[] = [];
  for (const entry of live) {
    const values = (entry.fields ?? {}) as Record<string, unknown>;
    if (hiddenFromSearch(values)) continue;
    const words: Record<string, string[]> = {};
    for (const field of searchableFields(model)) {
      const text = field.type === "relation"
        ? await linkedNames(tx, siteId, groupId, field.key, entry.locale)
        : plainText(field, values[field.key]);
      const seen = searchWords(text);
      if (seen.length > 0) words[field.key] = seen;
    }
    found.push({
      entry,
      values,
      words,
      all: [...new Set(Object.values(words).flat())],
    });
  }
  // Every English document's stems from one call to the stemmer.
  const stemOf = await stems(
    tx,
    [
      ...new Set(
        found.filter((f) => isEnglish(f.entry.locale)).flatMap((f) => f.all),
      ),
    ],
  );
  return found.map(({ entry, values, words, all }) => {
    const english = isEnglish(entry.locale);
    const stem = (w: string) => english ? stemOf.get(w) ?? w : w;
    const fieldWords = Object.fromEntries(
      Object.entries(words).map(([k, ws]) => [k, spaced(ws)]),
    );
    const fieldStems = Object.fromEntries(
      Object.entries(words).map(([k, ws]) => [k, spaced(ws.map(stem))]),
    );
    const stemList = [...new Set(all.map(stem))];
    const parts = suffixes(all);
    return {
      siteId,
      entryId: entry.id,
      groupId,
      modelId: model.id,
      locale: entry.locale,
      slug: entry.slug,
      publishedAt: entry.published_at,
      title: title ? plainText(title, values[title.key]).trim() : entry.slug,
      summary: summaryOf(model, values, title),
      english,
      fieldWords: JSON.stringify(fieldWords),
      fieldStems: JSON.stringify(fieldStems),
      titleWords: title ? fieldWords[title.key] ?? "" : "",
      words: all,
      stems: stemList,
      parts,
    };
  });
}

// Stems already asked for, by word. A stem depends on the word alone (the built-in dictionary is
// the same on every server and in every transaction), and a site's documents mostly repeat words
// it has seen: a publish then asks the stemmer only for words new to this process, and often
// for none, instead of one statement per publish.
const stemsKnown = new Map<string, string>();
const STEMS_KNOWN_MAX = 20_000;

const STEMS = prebuilt((_db, v: { words: string[] }) =>
  sql<{ w: string; s: string }>`
    select w, coalesce((ts_lexize('english_stem', w))[1], w) as s
    from unnest(${v.words}::text[]) as w
  `
);

/** English stems of `words` (a stop word keeps its own form), from PostgreSQL's Snowball stemmer. */
async function stems(tx: Db, words: string[]): Promise<Map<string, string>> {
  const found = new Map<string, string>();
  const unknown: string[] = [];
  for (const word of words) {
    const stem = stemsKnown.get(word);
    if (stem === undefined) unknown.push(word);
    else found.set(word, stem);
  }
  if (unknown.length === 0) return found;
  const rows = await STEMS.rows(tx, { words: unknown });
  if (stemsKnown.size + rows.length > STEMS_KNOWN_MAX) stemsKnown.clear();
  for (const row of rows) {
    found.set(row.w, row.s);
    stemsKnown.set(row.w, row.s);
  }
  return found;
}

/** Published names, in `locale`, of the live public items a relation field links to. */
async function linkedNames(
  tx: Db,
  siteId: string,
  groupId: string,
  fieldKey: string,
  locale: string,
): Promise<string> {
  const links = await tx.selectFrom("entry_links as l")
    .innerJoin(
      "entry_groups as g",
      (j) =>
        j.onRef("g.site_id", "=", "l.site_id").onRef(
          "g.id",
          "=",
          "l.target_group_id",
        ),
    )
    .innerJoin(
      "entries as e",
      (j) =>
        j.onRef("e.site_id", "=", "g.site_id").onRef("e.group_id", "=", "g.id"),
    )
    .innerJoin(
      "entry_versions as v",
      (j) =>
        j.onRef("v.site_id", "=", "e.site_id").onRef(
          "v.id",
          "=",
          "e.published_version_id",
        ),
    )
    .select(["g.model_id", "v.fields"])
    .where("l.site_id", "=", siteId).where("l.source_group_id", "=", groupId)
    .where("l.field_key", "=", fieldKey)
    .where((eb) =>
      eb.or([eb("l.locale", "is", null), eb("l.locale", "=", locale)])
    )
    .where("g.trashed_at", "is", null).where("e.locale", "=", locale)
    .execute();
  if (links.length === 0) return "";
  const ids = [...new Set(links.map((l) => l.model_id))].filter((id) =>
    UUID.test(id)
  );
  const models = new Map<string, StoredModel>(
    (await loadModels(tx, siteId, ids))
      .map((m) => [m.id, m]),
  );
  const names: string[] = [];
  for (const link of links) {
    const target = models.get(link.model_id);
    if (!target?.isPublic) continue;
    const name = titleField(target);
    if (!name) continue;
    names.push(
      plainText(name, (link.fields as Record<string, unknown>)[name.key]),
    );
  }
  return names.join(" ");
}
