// Entry links (relation values as rows), unique-value claims and single-entry claims.
import { type Kysely, sql } from "kysely";

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table entry_links (
      site_id uuid not null,
      source_group_id uuid not null,
      field_id uuid not null,
      field_key text not null,
      locale text,
      target_group_id uuid not null,
      target_model_id text not null,
      position int not null check (position >= 0),
      exclusive boolean not null,
      created_at timestamptz not null,
      foreign key (site_id, source_group_id) references entry_groups (site_id, id) on delete cascade,
      foreign key (site_id, target_group_id) references entry_groups (site_id, id) on delete cascade
    );
    create unique index entry_links_member on entry_links
      (site_id, source_group_id, field_id, coalesce(locale, ''), target_group_id);
    create unique index entry_links_exclusive on entry_links
      (site_id, field_id, coalesce(locale, ''), target_group_id) where exclusive;
    create index entry_links_target on entry_links (site_id, target_group_id);

    create table entry_unique_claims (
      site_id uuid not null,
      model_id text not null,
      scope_locale text not null,
      key_name text not null,
      value_digest text not null,
      group_id uuid not null,
      created_at timestamptz not null,
      primary key (site_id, model_id, scope_locale, key_name, value_digest),
      foreign key (site_id, group_id) references entry_groups (site_id, id) on delete cascade
    );
    create index entry_unique_claims_group on entry_unique_claims (site_id, group_id);

    create table entry_single_claims (
      site_id uuid not null,
      model_id text not null,
      group_id uuid not null,
      created_at timestamptz not null,
      primary key (site_id, model_id),
      foreign key (site_id, group_id) references entry_groups (site_id, id) on delete cascade
    );
  `.execute(db);
}
