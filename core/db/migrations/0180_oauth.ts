// Interactive login (spec 2 part 5.2): registered loopback clients and refresh tokens, stored as digests.
import { type Kysely, sql } from "kysely";

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table oauth_clients (
      id text primary key,
      name text not null,
      redirect_uris jsonb not null,
      created_at timestamptz not null
    );

    -- A sign-in is a management credential acting as the person; its refresh token is rotated
    -- on every use, so expires_at is 30 days after the last use.
    create table oauth_refresh_tokens (
      token_digest text primary key,
      credential_id uuid not null references management_credentials(id) on delete cascade,
      client_id text not null references oauth_clients(id) on delete cascade,
      created_at timestamptz not null,
      expires_at timestamptz not null
    );
    create index oauth_refresh_tokens_credential on oauth_refresh_tokens (credential_id);
  `.execute(db);
}
