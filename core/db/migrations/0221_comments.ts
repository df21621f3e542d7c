// Visitor comments on published items and their reactions (spec 3 part 4.1, FORM-014, FORM-015;
// the shapes are Stave's, docs/forms.md).
import { type Kysely, sql } from "kysely";

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table comments (
      id uuid primary key,
      site_id uuid not null references sites(id) on delete cascade,
      model_id text not null,
      item_id uuid not null,
      locale text not null,
      parent_id uuid references comments(id) on delete cascade,
      author text not null,
      body text not null,
      status text not null check (status in ('pending', 'approved', 'rejected')),
      key_digest text not null,
      values_digest text not null,
      up int not null default 0,
      down int not null default 0,
      created_at timestamptz not null,
      moderated_at timestamptz,
      moderated_by uuid,
      unique (site_id, key_digest)
    );
    create index comments_item on comments (site_id, item_id, locale, status, created_at, id);
    create index comments_queue on comments (site_id, status, created_at, id);
    create table comment_reactions (
      comment_id uuid not null references comments(id) on delete cascade,
      visitor_digest text not null,
      reaction text not null check (reaction in ('up', 'down')),
      primary key (comment_id, visitor_digest)
    );
  `.execute(db);
}
