// Plugin operation invocations (spec 1 parts 2.4, 2.5, 2.9; spec 2 part 4.3): one row per run,
// with digests of input and answer only, the exchange's delegation and the classified outcome.
import { type Kysely, sql } from "kysely";

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table plugin_invocations (
      id uuid primary key,
      site_id uuid not null,
      installation_id uuid not null,
      operation_id text not null,
      scope text not null check (scope in ('site', 'entry', 'page')),
      caller_id uuid not null,
      caller_via text not null,
      model_id text,
      group_id uuid,
      instance_id uuid,
      input_digest text not null,
      status text not null check (status in ('sent', 'exchanged', 'completed', 'refused', 'failed')),
      outcome text,
      answer_digest text,
      delegation_id uuid,
      created_at timestamptz not null,
      exchanged_at timestamptz,
      finished_at timestamptz,
      foreign key (site_id, installation_id) references plugin_installations (site_id, id) on delete cascade
    );
    create index plugin_invocations_installation on plugin_invocations (site_id, installation_id, created_at);
  `.execute(db);
}
