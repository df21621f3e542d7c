// Every committed change to a table is announced on the `stave_changes` channel (LISTEN/NOTIFY),
// so a process keeping public answers learns of a commit without asking the database on every
// read (core/db/change_feed.ts). Statement triggers, not the write paths, announce: no write can
// forget it. PostgreSQL delivers a notice only when its transaction commits, collapses the
// notices of one transaction into one, and hands the writing connection its own notice before
// the commit returns, so the writing process never serves what it just changed.
//
// A table added by a later migration gets its trigger with
// `select stave_announce_changes_of('the_table')`; tests/public/change_feed_test.ts checks that
// every table has it.
import { type Kysely, sql } from "kysely";

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create function stave_announce_change() returns trigger
    language plpgsql as $$
    begin
      perform pg_notify('stave_changes', '');
      return null;
    end $$;

    create function stave_announce_changes_of(target regclass) returns void
    language plpgsql as $$
    begin
      execute format(
        'create trigger stave_announce_change after insert or update or delete or truncate '
        'on %s for each statement execute function stave_announce_change()',
        target
      );
    end $$;

    select stave_announce_changes_of(c.oid)
    from pg_class c
    where c.relkind in ('r', 'p') and c.relnamespace = current_schema()::regnamespace
      and c.relname not like 'kysely\\_%'
      and not c.relispartition;
  `.execute(db);
}
