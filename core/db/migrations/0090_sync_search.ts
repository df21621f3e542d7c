// The sync change log, its per-site sequence and diff state, and the search documents (spec 3 parts 4.5, 4.7).
import { type Kysely, sql } from "kysely";

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    -- One row per site: the last sequence number given out, taken under a row lock so that
    -- sequence order is commit order, and the highest sequence already pruned.
    create table sync_sites (
      site_id uuid primary key references sites(id) on delete cascade,
      last_seq bigint not null default 0,
      pruned_through bigint not null default 0
    );

    -- Ordered changes of what one language of one entry serves: upsert or delete (tombstone).
    create table sync_changes (
      site_id uuid not null references sites(id) on delete cascade,
      seq bigint not null,
      group_id uuid not null,
      model_id text not null,
      locale text not null,
      kind text not null check (kind in ('upsert', 'delete')),
      created_at timestamptz not null,
      primary key (site_id, seq)
    );

    -- What the change log last recorded per language instance, so refreshers write only what changed.
    create table sync_entry_state (
      site_id uuid not null,
      group_id uuid not null,
      locale text not null,
      model_id text not null,
      fingerprint text not null,
      primary key (site_id, group_id, locale)
    );

    -- One searchable document per live, public, searchable language instance.
    create table search_documents (
      site_id uuid not null,
      entry_id uuid not null,
      group_id uuid not null,
      model_id text not null,
      locale text not null,
      slug text not null,
      published_at timestamptz not null,
      title text not null,
      summary text not null,
      is_english boolean not null,
      -- Field key -> ' word word ' (and stems for English): per-field matching and ranking at query time.
      field_words jsonb not null,
      field_stems jsonb not null,
      title_words text not null,
      -- Index-side prefilters: whole words, English stems, and every suffix (parts of words).
      words tsvector not null,
      stems tsvector not null,
      parts tsvector not null,
      primary key (site_id, entry_id)
    );
    create index search_documents_group on search_documents (site_id, group_id);
    create index search_documents_order on search_documents (site_id, locale, published_at desc, entry_id desc);
    create index search_documents_words on search_documents using gin (words);
    create index search_documents_stems on search_documents using gin (stems);
    create index search_documents_parts on search_documents using gin (parts);

    -- Menus of the site chrome: items link to an entry (by group) or to an address, labels per language.
    create table site_menus (
      site_id uuid not null references sites(id) on delete cascade,
      key text not null check (key ~ '^[a-z0-9][a-z0-9_-]{0,63}$'),
      items jsonb not null,
      updated_at timestamptz not null,
      primary key (site_id, key)
    );
  `.execute(db);
}
