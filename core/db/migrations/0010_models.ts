// Content models, their fields, and every key path a model has ever given a field.
import { type Kysely, sql } from "kysely";

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table models (
      id uuid primary key,
      site_id uuid not null references sites(id) on delete cascade,
      slug text not null,
      name text not null,
      description text not null default '',
      kind text not null check (kind in ('collection', 'single')),
      folder text check (folder is null or folder = btrim(folder) and length(folder) between 1 and 40),
      is_public boolean not null,
      enable_i18n boolean not null,
      settings jsonb not null,
      revision int not null check (revision >= 1),
      created_at timestamptz not null,
      updated_at timestamptz not null,
      deleted_at timestamptz,
      unique (site_id, id)
    );
    create unique index models_site_slug on models (site_id, slug) where deleted_at is null;
    create unique index models_site_name on models (site_id, lower(name)) where deleted_at is null;

    create table model_fields (
      id uuid primary key,
      site_id uuid not null,
      model_id uuid not null,
      key text not null,
      position int not null,
      type text not null,
      label text not null,
      required boolean not null,
      is_unique boolean not null,
      is_private boolean not null,
      localized boolean not null,
      config jsonb not null,
      validation jsonb not null,
      derived jsonb,
      ui jsonb,
      visibility jsonb,
      foreign key (site_id, model_id) references models(site_id, id) on delete cascade,
      unique (model_id, key),
      unique (model_id, position)
    );
    create index model_fields_site on model_fields (site_id, model_id);

    create table model_field_keys (
      site_id uuid not null,
      model_id uuid not null,
      key text not null,
      field_id uuid not null,
      field_type text not null,
      recorded_at timestamptz not null,
      primary key (model_id, key, field_id),
      foreign key (site_id, model_id) references models(site_id, id) on delete cascade
    );
    create index model_field_keys_site on model_field_keys (site_id, model_id);
  `.execute(db);
}
