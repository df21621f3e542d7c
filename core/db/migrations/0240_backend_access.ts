// The generated backend's access configuration (spec 2 parts 2.3 and 5.3): an access rule per
// model and operation, and saved queries that a declarative route may serve. A role an access
// rule or a route names cannot be deleted (SET-014); a saved query on a public route never
// selects, filters or sorts by a private column (MOD-031). See docs/backend-access.md.
import { type Kysely, sql } from "kysely";

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table backend_access_rules (
      site_id uuid not null references sites (id),
      model_id uuid not null,
      operation text not null,
      audience text not null,
      -- Only a session rule names roles; empty means any signed-in member.
      role_ids jsonb not null default '[]',
      updated_at timestamptz not null,
      primary key (site_id, model_id, operation)
    );

    create table saved_queries (
      id uuid primary key,
      site_id uuid not null references sites (id),
      model_id uuid not null,
      name text not null,
      slug text not null,
      select_fields jsonb not null,
      filter jsonb not null,
      order_by jsonb not null,
      take integer not null,
      -- Null: the query is not served on a route.
      route_audience text,
      route_role_ids jsonb not null default '[]',
      revision integer not null,
      created_at timestamptz not null,
      updated_at timestamptz not null,
      unique (site_id, slug)
    );
    create index saved_queries_model on saved_queries (site_id, model_id);
  `.execute(db);
}
