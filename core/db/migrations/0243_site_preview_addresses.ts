// The address of a site's own front end that opens previews of drafts (the admin's Preview when
// no built-in renderer serves the site); see docs/admin.md, "Preview".
import { type Kysely, sql } from "kysely";

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table site_preview_addresses (
      site_id uuid primary key references sites (id) on delete cascade,
      url text not null,
      updated_by uuid,
      updated_at timestamptz not null
    );
  `.execute(db);
}
