// Two grants of the public read API: a preview link's related-draft grant (its expanded relations
// show the saved drafts its creator may read), and shared-content grants, by which a source site
// projects the published public items of chosen content types to another site's public API.
// See docs/public-read-api.md.
import { type Kysely, sql } from "kysely";

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    -- Null: a plain preview. Set: the link carries the related-draft grant, and continuation
    -- cursors of its expanded fields name this id (never the token).
    alter table preview_tokens add column draft_grant_id uuid unique;

    create table shared_content_grants (
      id uuid primary key,
      source_site_id uuid not null references sites (id) on delete cascade,
      grantee_site_id uuid not null references sites (id) on delete cascade,
      model_id uuid not null,
      created_by uuid,
      created_at timestamptz not null,
      revoked_at timestamptz,
      revoked_by uuid,
      check (source_site_id <> grantee_site_id),
      foreign key (source_site_id, model_id) references models (site_id, id) on delete cascade
    );
    create unique index shared_content_grants_live
      on shared_content_grants (grantee_site_id, source_site_id, model_id)
      where revoked_at is null;
    create index shared_content_grants_source
      on shared_content_grants (source_site_id, created_at);
  `.execute(db);
}
