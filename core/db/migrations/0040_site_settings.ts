// Site-level settings documents, each validated and kept with a revision.
import { type Kysely, sql } from "kysely";

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table site_settings (
      site_id uuid not null references sites(id) on delete cascade,
      key text not null,
      document jsonb not null,
      revision int not null,
      updated_at timestamptz not null,
      updated_by uuid,
      primary key (site_id, key)
    );
  `.execute(db);
}
