// Plugin installations, delegations and the outbound lifecycle-notification queue (spec 1 parts 2.1 to 2.4, 6).
import { type Kysely, sql } from "kysely";

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table plugin_installations (
      id uuid primary key,
      site_id uuid not null references sites(id) on delete cascade,
      plugin_id text not null,
      name text not null,
      version text not null,
      protocol_version int not null,
      state text not null check (state in ('pending', 'active', 'disabled', 'revoked')),
      token_hash text,
      previous_token_hash text,
      previous_token_expires_at timestamptz,
      grant_capabilities jsonb not null,
      grant_model_ids jsonb not null,
      manifest jsonb not null,
      manifest_url text not null,
      installed_by uuid,
      created_at timestamptz not null,
      updated_at timestamptz not null,
      revoked_at timestamptz,
      unique (site_id, id),
      check ((state = 'revoked') = (revoked_at is not null)),
      check (state <> 'revoked' or (token_hash is null and previous_token_hash is null)),
      check ((previous_token_hash is null) = (previous_token_expires_at is null))
    );
    create unique index plugin_installations_token on plugin_installations (token_hash)
      where token_hash is not null;
    create unique index plugin_installations_previous_token on plugin_installations (previous_token_hash)
      where previous_token_hash is not null;
    create index plugin_installations_site on plugin_installations (site_id, created_at);

    create table plugin_delegations (
      id uuid primary key,
      site_id uuid not null,
      installation_id uuid not null,
      source text not null check (source in ('launch', 'invocation')),
      user_id uuid not null,
      user_email text not null,
      action text not null,
      view text,
      instance_id uuid,
      group_id uuid,
      model_ids jsonb not null,
      invocation_id uuid,
      created_at timestamptz not null,
      foreign key (site_id, installation_id) references plugin_installations (site_id, id) on delete cascade,
      check ((instance_id is null) = (group_id is null))
    );
    create index plugin_delegations_installation on plugin_delegations (site_id, installation_id);

    create table plugin_notifications (
      id uuid primary key,
      site_id uuid not null,
      installation_id uuid not null,
      event text not null,
      payload jsonb not null,
      status text not null check (status in ('pending', 'delivered', 'failed')),
      attempts int not null default 0,
      next_attempt_at timestamptz not null,
      last_code text,
      created_at timestamptz not null,
      updated_at timestamptz not null,
      foreign key (site_id, installation_id) references plugin_installations (site_id, id) on delete cascade
    );
    create index plugin_notifications_due on plugin_notifications (next_attempt_at)
      where status = 'pending';
  `.execute(db);
}
