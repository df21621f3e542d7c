// The media library: files, per-language originals, folders, pending storage cleanups, and keyed write answers.
import { type Kysely, sql } from "kysely";

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    -- Folders of a site's library; parent null is the top level. Names are unique under one
    -- parent ignoring letter case (the unique index below), depth and count are checked by the service.
    create table media_folders (
      id uuid primary key,
      site_id uuid not null references sites(id) on delete cascade,
      parent_id uuid references media_folders(id) on delete cascade,
      name text not null check (char_length(name) between 1 and 80),
      revision integer not null default 1,
      created_at timestamptz not null,
      updated_at timestamptz not null
    );
    create unique index media_folders_name on media_folders
      (site_id, coalesce(parent_id, '00000000-0000-0000-0000-000000000000'::uuid), lower(name));
    create index media_folders_site on media_folders (site_id, parent_id);

    -- One library item. object_id names the stored bytes of the default original; a replace
    -- writes a new object and changes it, so a delivery URL naming it never changes meaning.
    create table media_files (
      id uuid primary key,
      site_id uuid not null references sites(id) on delete cascade,
      folder_id uuid references media_folders(id) on delete set null,
      kind text not null check (kind in ('image', 'document', 'audio', 'video', 'file')),
      object_id uuid not null,
      storage_key text not null,
      file_name text not null,
      mime_type text not null,
      format text not null,
      byte_length bigint not null,
      width integer,
      height integer,
      aspect_ratio text,
      digest text not null,
      alt_texts jsonb not null default '{}',
      default_focal jsonb,
      loading text not null default 'lazy' check (loading in ('eager', 'lazy')),
      fetch_priority text not null default 'auto' check (fetch_priority in ('high', 'low', 'auto')),
      tags jsonb not null default '[]',
      credit text,
      attribution jsonb,
      external boolean not null default false,
      edited_from uuid,
      revision integer not null default 1,
      created_at timestamptz not null,
      updated_at timestamptz not null
    );
    create index media_files_digest on media_files (site_id, digest);
    create index media_files_list on media_files (site_id, created_at desc, id desc);
    create index media_files_folder on media_files (site_id, folder_id);
    create unique index media_files_object on media_files (object_id);

    -- Per-language overrides of a file's original; without one, delivery follows the fallback chain.
    create table media_originals (
      site_id uuid not null references sites(id) on delete cascade,
      media_id uuid not null references media_files(id) on delete cascade,
      lang text not null,
      object_id uuid not null unique,
      storage_key text not null,
      mime_type text not null,
      format text not null,
      byte_length bigint not null,
      width integer,
      height integer,
      created_at timestamptz not null,
      primary key (site_id, media_id, lang)
    );

    -- Stored objects whose row is gone but whose bytes storage did not delete yet (storage_cleanup: pending).
    create table media_cleanup (
      storage_key text primary key,
      site_id uuid not null,
      since timestamptz not null,
      attempts integer not null default 0
    );

    -- The answer of a keyed media write, written in the same transaction as its effect, so a
    -- retry after a lost answer is answered from it (spec 2 part 4.3, settlement).
    create table media_writes (
      site_id uuid not null references sites(id) on delete cascade,
      key_digest text not null,
      answer jsonb not null,
      created_at timestamptz not null,
      primary key (site_id, key_digest)
    );
  `.execute(db);
}
