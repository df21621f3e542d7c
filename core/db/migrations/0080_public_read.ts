// Public read side: the published-items projection, manual order, site API and preview tokens, browser origins.
import { type Kysely, sql } from "kysely";

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table public_items (
      site_id uuid not null,
      model_id text not null,
      group_id uuid not null,
      requested_locale text not null,
      entry_id uuid not null,
      served_locale text not null,
      slug text not null,
      version_id uuid not null,
      version_number int not null,
      published_at timestamptz not null,
      fields jsonb not null,
      primary key (site_id, model_id, requested_locale, group_id),
      foreign key (site_id, group_id) references entry_groups (site_id, id) on delete cascade
    );
    create index public_items_order on public_items
      (site_id, model_id, requested_locale, published_at, group_id);
    create index public_items_slug on public_items (site_id, model_id, requested_locale, slug);
    create index public_items_group on public_items (site_id, group_id);
    create index public_items_fields on public_items using gin (fields jsonb_path_ops);

    create table public_manual_order (
      site_id uuid not null,
      model_id text not null,
      group_id uuid not null,
      position int not null check (position >= 0),
      primary key (site_id, model_id, group_id),
      foreign key (site_id, group_id) references entry_groups (site_id, id) on delete cascade
    );
    create table public_manual_order_revisions (
      site_id uuid not null references sites(id) on delete cascade,
      model_id text not null,
      revision int not null check (revision >= 1),
      primary key (site_id, model_id)
    );

    create table site_api_tokens (
      id uuid primary key,
      site_id uuid not null references sites(id) on delete cascade,
      name text not null,
      model_ids jsonb not null,
      digest text not null unique,
      created_at timestamptz not null,
      expires_at timestamptz,
      revoked_at timestamptz
    );
    create index site_api_tokens_site on site_api_tokens (site_id);

    create table preview_tokens (
      digest text primary key,
      site_id uuid not null,
      group_id uuid not null,
      created_by uuid,
      created_at timestamptz not null,
      expires_at timestamptz not null,
      foreign key (site_id, group_id) references entry_groups (site_id, id) on delete cascade
    );

    create table site_browser_origins (
      site_id uuid primary key references sites(id) on delete cascade,
      origins jsonb not null,
      updated_at timestamptz not null
    );
  `.execute(db);
}
