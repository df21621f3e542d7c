// Seeds a bench model with many entries in one statement per table: each entry a group with one
// language instance per language (the first language is the group's first) and one version each,
// every value computed in SQL from the entry's number `i` and language `l`.
import { type RawBuilder, sql } from "kysely";
import type { Db } from "../core/db/database.ts";

/** What {@link seedEntries} writes. */
export interface SeedEntriesOptions {
  siteId: string;
  modelId: string;
  count: number;
  /** Language codes; the first is each group's first language. */
  languages: readonly string[];
  /** The title (also the list title) of entry `i` in language `l`. */
  title: RawBuilder<string>;
  /** The version's other values, a jsonb object of `i` and `l`. */
  fields: RawBuilder<unknown>;
  /** True when entry `i` is a draft (never published). */
  draft: RawBuilder<boolean>;
  /** When entry `i` was published, if it is. */
  publishedAt: RawBuilder<Date>;
  /** When entry `i` was made and last changed. */
  changedAt: RawBuilder<Date>;
}

/** Inserts the groups, language instances and versions of `count` entries. */
export async function seedEntries(
  db: Db,
  options: SeedEntriesOptions,
): Promise<void> {
  const { siteId, modelId, count, title, draft } = options;
  const languages = sql`unnest(${[...options.languages]}::text[]) l`;
  const first = options.languages[0];
  // The group's current version is the last one written: its last language's.
  const last = options.languages.at(-1)!;
  await sql`
    insert into entry_groups (id, site_id, model_id, primary_entry_id, created_by, revision, current_version_id, created_at, updated_at)
    select md5('g' || i)::uuid, ${siteId}, ${modelId}, md5('e' || ${first} || i)::uuid, null, 1,
      md5('v' || ${last} || i)::uuid, ${options.changedAt}, ${options.changedAt}
    from generate_series(1, ${count}) i`.execute(db);
  await sql`
    insert into entries (id, site_id, group_id, model_id, locale, slug, current_version_id,
      published_version_id, list_title, first_language, published_at, created_at, updated_at)
    select md5('e' || l || i)::uuid, ${siteId}, md5('g' || i)::uuid, ${modelId}, l, l || '-post-' || i,
      md5('v' || l || i)::uuid, case when ${draft} then null else md5('v' || l || i)::uuid end,
      left(${title}, 300), l = ${first},
      case when ${draft} then null else ${options.publishedAt} end,
      ${options.changedAt}, ${options.changedAt}
    from generate_series(1, ${count}) i, ${languages}`.execute(db);
  await sql`
    insert into entry_versions (id, site_id, group_id, entry_id, locale, number, fields, created_by, created_at)
    select md5('v' || l || i)::uuid, ${siteId}, md5('g' || i)::uuid, md5('e' || l || i)::uuid, l,
      array_position(${[...options.languages]}::text[], l),
      jsonb_build_object('title', ${title}) || ${options.fields},
      '{"kind":"person"}', ${options.changedAt}
    from generate_series(1, ${count}) i, ${languages}`.execute(db);
}
