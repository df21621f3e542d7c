// Library items a plugin's media source provides by reference (MED-039): no bytes are stored;
// the item keeps the source's delivery URL and which plugin, source and item it is, and the same
// item cannot be referenced twice on a site.
import { type Kysely, sql } from "kysely";

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    alter table media_files add column external_url text;
    alter table media_files add column external_source jsonb;
    create unique index media_files_external_source
      on media_files (
        site_id,
        (external_source->>'installation_id'),
        (external_source->>'source_id'),
        (external_source->>'item_id')
      ) where external_source is not null;
  `.execute(db);
}
