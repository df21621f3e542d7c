// Managed renderer releases and the site's addresses (spec 3 part 3 and 4.8 rule 8): a release
// pins an accepted candidate to an origin; the binding says which host serves the site now and
// which one it may go back to for seven days.
import { type Kysely, sql } from "kysely";

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table managed_releases (
      site_id uuid not null references sites (id) on delete cascade,
      number integer not null,
      candidate_id uuid not null references template_candidates (id),
      -- proven, active or retired.
      state text not null,
      origin text not null,
      installation_id text not null,
      -- SHA-256 over the canonical JSON of the release (candidate, compiled digest, origin, ...).
      digest text not null,
      signature text not null,
      prepared_at timestamptz not null,
      activated_at timestamptz,
      retired_at timestamptz,
      primary key (site_id, number)
    );
    create unique index managed_releases_one_active
      on managed_releases (site_id) where state = 'active';
    create table managed_addresses (
      site_id uuid not null references sites (id) on delete cascade,
      host text not null,
      -- active: serves the site; previous: kept for going back until rollback_until.
      role text not null,
      switched_at timestamptz not null,
      rollback_until timestamptz,
      primary key (site_id, role)
    );
  `.execute(db);
}
