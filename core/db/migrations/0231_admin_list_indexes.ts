// The admin's entry lists sort a model's entries by when they changed or were made, newest first,
// a page at a time, and the dashboard lists a person's recent edits and the newest publications:
// these indexes let each walk stop after a page instead of sorting every entry of the site.
import { type Kysely, sql } from "kysely";

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create index entry_groups_admin_updated
      on entry_groups (site_id, model_id, updated_at desc, id desc);
    create index entry_groups_admin_created
      on entry_groups (site_id, model_id, created_at desc, id desc);
    create index entry_versions_by_person
      on entry_versions (site_id, (created_by->>'person_id'), created_at desc);
    create index entries_published_newest
      on entries (site_id, published_at desc) where published_at is not null;
  `.execute(db);
}
