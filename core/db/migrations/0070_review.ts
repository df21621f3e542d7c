// Review stages of an item's draft and who acts next on it.
import { type Kysely, sql } from "kysely";

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table entry_reviews (
      site_id uuid not null,
      group_id uuid not null,
      stage text not null check (stage in ('draft', 'in_review', 'changes_requested', 'approved')),
      -- The group's current version the stage speaks about; a newer save makes it stale.
      version_id uuid,
      updated_at timestamptz not null,
      primary key (site_id, group_id)
    );

    create table entry_assignments (
      site_id uuid not null,
      group_id uuid not null,
      assignee_id uuid not null references users(id) on delete cascade,
      assigned_by uuid,
      assigned_at timestamptz not null,
      primary key (site_id, group_id)
    );
  `.execute(db);
}
