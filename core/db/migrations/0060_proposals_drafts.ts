// Entry proposals, model proposals and working drafts (spec 2 parts 2.2, 2.3, 3; spec 1 part 2.9).
import { type Kysely, sql } from "kysely";

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table entry_proposals (
      id uuid primary key,
      site_id uuid not null,
      group_id uuid not null,
      entry_id uuid not null,
      model_id text not null,
      locale text not null,
      base_version_id uuid not null,
      fields jsonb not null,
      original_fields jsonb,
      note text not null default '',
      source jsonb not null,
      created_by jsonb not null,
      state text not null check (state in ('open', 'applied', 'dismissed')),
      revision int not null check (revision >= 1),
      applied_version_id uuid,
      decided_by jsonb,
      decided_at timestamptz,
      created_at timestamptz not null,
      updated_at timestamptz not null,
      unique (site_id, id),
      foreign key (site_id, group_id) references entry_groups (site_id, id) on delete cascade,
      check ((state = 'open') = (decided_at is null)),
      check ((state = 'applied') = (applied_version_id is not null))
    );
    create index entry_proposals_group on entry_proposals (site_id, group_id, state, created_at);

    create table model_proposals (
      id uuid primary key,
      site_id uuid not null references sites(id) on delete cascade,
      mode text not null check (mode in ('create', 'update')),
      model_id uuid,
      base_updated_at timestamptz,
      definition jsonb not null,
      note text not null default '',
      source jsonb not null,
      created_by jsonb not null,
      state text not null check (state in ('open', 'applied', 'dismissed')),
      revision int not null check (revision >= 1),
      applied_model_id uuid,
      decided_by jsonb,
      decided_at timestamptz,
      created_at timestamptz not null,
      updated_at timestamptz not null,
      unique (site_id, id),
      check ((mode = 'update') = (model_id is not null)),
      check ((mode = 'update') = (base_updated_at is not null)),
      check ((state = 'open') = (decided_at is null))
    );
    create index model_proposals_site on model_proposals (site_id, state, created_at);

    create table entry_drafts (
      id uuid primary key,
      site_id uuid not null,
      group_id uuid not null,
      locale text not null,
      holder_id uuid not null references users(id) on delete cascade,
      fields jsonb not null,
      base_version_id uuid,
      revision int not null check (revision >= 1),
      taken_over_from jsonb,
      taken_over_at timestamptz,
      created_at timestamptz not null,
      updated_at timestamptz not null,
      unique (site_id, group_id, locale),
      foreign key (site_id, group_id) references entry_groups (site_id, id) on delete cascade,
      foreign key (site_id, locale) references site_languages (site_id, code)
    );
  `.execute(db);
}
