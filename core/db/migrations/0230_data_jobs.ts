// Imports and exports (spec 2 part 4.2, IMP-001..008): import sources, import and export jobs,
// the files they hold in parts (archive uploads, built exports, receipts, problem files), the
// step records that settle a retried job step (MAPI-016), and an import's staged records and
// id map. The shapes are Stave's (docs/imports-exports.md).
import { type Kysely, sql } from "kysely";

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table import_sources (
      id uuid primary key,
      site_id uuid not null references sites(id) on delete cascade,
      name text not null,
      format text not null,
      options jsonb not null,
      key_digest text,
      created_by jsonb not null,
      created_at timestamptz not null,
      unique (site_id, name)
    );
    create unique index import_sources_key on import_sources (site_id, key_digest);

    create table data_jobs (
      id uuid primary key,
      site_id uuid not null references sites(id) on delete cascade,
      kind text not null check (kind in ('import', 'export')),
      source_id uuid references import_sources(id),
      state text not null,
      position int not null default 0 check (position >= 0),
      cursor jsonb not null default '{}',
      options jsonb not null default '{}',
      plan jsonb,
      counts jsonb not null default '{}',
      problems jsonb not null default '[]',
      file_bytes bigint,
      file_sha256 text,
      file_parts int,
      error jsonb,
      busy_until timestamptz,
      key_digest text,
      created_by jsonb not null,
      created_at timestamptz not null,
      updated_at timestamptz not null,
      finished_at timestamptz
    );
    create index data_jobs_list on data_jobs (site_id, kind, created_at desc, id desc);
    create unique index data_jobs_key on data_jobs (site_id, key_digest);

    create table data_job_parts (
      job_id uuid not null references data_jobs(id) on delete cascade,
      file text not null check (file in ('archive', 'export', 'receipt', 'problems')),
      part int not null check (part > 0),
      bytes bytea not null,
      sha256 text not null,
      primary key (job_id, file, part)
    );

    create table data_job_steps (
      job_id uuid not null references data_jobs(id) on delete cascade,
      key_digest text not null,
      from_position int not null,
      status text not null check (status in ('running', 'done', 'errored')),
      created_at timestamptz not null,
      primary key (job_id, key_digest)
    );

    create table data_import_records (
      job_id uuid not null references data_jobs(id) on delete cascade,
      seq int not null,
      type text not null,
      record jsonb not null,
      primary key (job_id, seq)
    );
    create index data_import_records_type on data_import_records (job_id, type, seq);

    create table data_import_ids (
      job_id uuid not null references data_jobs(id) on delete cascade,
      old_id text not null,
      new_id text not null,
      kind text not null check (kind in ('model', 'media', 'entry')),
      primary key (job_id, old_id)
    );
  `.execute(db);
}
