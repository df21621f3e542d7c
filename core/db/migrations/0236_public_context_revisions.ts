// One number per site that moves whenever anything a public read's context is made of changes:
// the site row, its languages, locale and search settings, browser origins, models and site API
// tokens. A public read can then reuse the context an earlier request read and confirm it inside
// its own page statement by comparing this number (core/public/request_context.ts), one
// statement instead of two. Triggers keep it, so no write path can forget it.
//
// The triggers are deferred constraint triggers: they run at commit, the last thing a
// transaction does, so taking this row's lock never stands between two other locks and cannot
// add a deadlock. No foreign key: a site's own deletion cascades to its child rows, whose
// triggers then name a site that is gone.
import { type Kysely, sql } from "kysely";

/** Tables whose rows carry `site_id` and feed the public read context. */
const SITE_TABLES = [
  "site_languages",
  "site_browser_origins",
  "models",
  "site_api_tokens",
];

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table public_context_revisions (
      site_id uuid primary key,
      revision bigint not null
    );

    create function bump_public_context_revision(site uuid) returns void
    language sql as $$
      insert into public_context_revisions (site_id, revision) values (site, 1)
      on conflict (site_id) do update set revision = public_context_revisions.revision + 1
    $$;

    create function public_context_changed_by_site_row() returns trigger
    language plpgsql as $$
    begin
      perform bump_public_context_revision(case when tg_op = 'DELETE' then old.site_id else new.site_id end);
      if tg_op = 'UPDATE' and old.site_id is distinct from new.site_id then
        perform bump_public_context_revision(old.site_id);
      end if;
      return null;
    end $$;

    create function public_context_changed_by_site() returns trigger
    language plpgsql as $$
    begin
      perform bump_public_context_revision(case when tg_op = 'DELETE' then old.id else new.id end);
      return null;
    end $$;

    create constraint trigger public_context_changed after insert or update or delete on sites
      deferrable initially deferred for each row execute function public_context_changed_by_site();
  `.execute(db);
  for (const table of SITE_TABLES) {
    await sql`
      create constraint trigger public_context_changed
        after insert or update or delete on ${sql.table(table)}
        deferrable initially deferred
        for each row execute function public_context_changed_by_site_row()
    `.execute(db);
  }
  // Of the settings, only the two documents the context reads: redirects added by page moves
  // and other settings must not make every remembered context stale.
  await sql`
    create constraint trigger public_context_changed
      after insert or update on site_settings deferrable initially deferred
      for each row when (new.key in ('language-fallback', 'search'))
      execute function public_context_changed_by_site_row();
    create constraint trigger public_context_dropped
      after delete on site_settings deferrable initially deferred
      for each row when (old.key in ('language-fallback', 'search'))
      execute function public_context_changed_by_site_row();
  `.execute(db);
}
