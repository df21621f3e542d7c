// Entries: translation groups, language instances, immutable versions, workflow events and the admin audit ledger.
import { type Kysely, sql } from "kysely";

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table entry_groups (
      id uuid primary key,
      site_id uuid not null references sites(id) on delete cascade,
      model_id text not null,
      primary_entry_id uuid,
      created_by uuid,
      revision int not null default 0 check (revision >= 0),
      current_version_id uuid,
      trashed_at timestamptz,
      created_at timestamptz not null,
      updated_at timestamptz not null,
      unique (site_id, id)
    );
    create index entry_groups_site_model on entry_groups (site_id, model_id);

    create table entries (
      id uuid primary key,
      site_id uuid not null,
      group_id uuid not null,
      model_id text not null,
      locale text not null,
      slug text not null check (slug <> ''),
      current_version_id uuid,
      published_version_id uuid,
      published_at timestamptz,
      created_at timestamptz not null,
      updated_at timestamptz not null,
      unique (site_id, id),
      unique (group_id, locale),
      foreign key (site_id, group_id) references entry_groups (site_id, id) on delete cascade,
      foreign key (site_id, locale) references site_languages (site_id, code),
      check ((published_version_id is null) = (published_at is null))
    );
    create unique index entries_slug on entries (site_id, model_id, locale, slug);

    create table entry_versions (
      id uuid primary key,
      site_id uuid not null,
      group_id uuid not null,
      entry_id uuid not null,
      locale text not null,
      number int not null check (number > 0),
      fields jsonb not null,
      created_by jsonb not null,
      created_at timestamptz not null,
      unique (site_id, id),
      unique (group_id, number),
      foreign key (site_id, entry_id) references entries (site_id, id) on delete cascade
    );
    create index entry_versions_entry on entry_versions (site_id, entry_id, number);

    create table workflow_events (
      id uuid primary key,
      site_id uuid not null,
      group_id uuid not null,
      entry_id uuid,
      locale text,
      kind text not null,
      from_state text,
      to_state text,
      version_id uuid,
      previous_version_id uuid,
      actor jsonb not null,
      details jsonb not null default '{}',
      created_at timestamptz not null,
      foreign key (site_id, group_id) references entry_groups (site_id, id) on delete cascade
    );
    create index workflow_events_group on workflow_events (site_id, group_id, created_at);

    create table audit_entries (
      id uuid primary key,
      site_id uuid not null references sites(id) on delete cascade,
      actor jsonb not null,
      action text not null,
      target jsonb not null,
      details jsonb not null default '{}',
      created_at timestamptz not null
    );
    create index audit_entries_site on audit_entries (site_id, created_at);
  `.execute(db);
}
