// Visitor form submissions and their private attachments (spec 3 part 2.2 "Visitor submissions").
import { type Kysely, sql } from "kysely";

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table form_submissions (
      id uuid primary key,
      site_id uuid not null references sites(id) on delete cascade,
      page_id uuid not null,
      locale text not null,
      section text not null,
      key_digest text not null,
      values_digest text not null,
      values jsonb not null,
      consent boolean not null,
      created_at timestamptz not null,
      expires_at timestamptz not null,
      unique (site_id, key_digest)
    );
    create index form_submissions_site_created on form_submissions (site_id, created_at desc);
    create index form_submissions_expires on form_submissions (expires_at);
    create table form_attachments (
      id uuid primary key,
      site_id uuid not null,
      submission_id uuid not null references form_submissions(id) on delete cascade,
      field text not null,
      position int not null,
      name text not null,
      type text not null,
      size int not null,
      storage_key text not null
    );
    create index form_attachments_submission on form_attachments (submission_id, field, position);
  `.execute(db);
}
