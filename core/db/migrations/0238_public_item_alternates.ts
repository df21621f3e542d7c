// A single read's `alternates` (every published language of the item with its own slug) kept
// with each `public_items` row instead of read from `entries` on every request: the subquery
// was about half of PostgreSQL's time per single read (docs/benchmarks.md, issue 18). The
// projection writes the column with the rest of a group's rows (core/public/projection.ts), and
// every change to a group's languages, slugs or publication refreshes those rows already.
// `json`, not `jsonb`: it keeps the key order the answers are written in (`locale`, `slug`).
import { type Kysely, sql } from "kysely";

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table public_items add column alternates json`.execute(db);
  await fillAlternates(db);
  await sql`alter table public_items alter column alternates set not null`
    .execute(db);
}

/** Gives every row what the projection now writes with it. Exported for its test. */
// deno-lint-ignore no-explicit-any
export async function fillAlternates(db: Kysely<any>): Promise<void> {
  await sql`
    update public_items p set alternates = (
      select coalesce(json_agg(json_build_object('locale', e.locale, 'slug', e.slug)
        order by e.locale), '[]'::json)
      from entries e
      where e.site_id = p.site_id and e.group_id = p.group_id
        and e.published_version_id is not null)
  `.execute(db);
}
