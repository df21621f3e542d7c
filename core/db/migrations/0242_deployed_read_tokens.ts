// Deployed API read tokens: secrets a generated backend accepts for reading models, kept here
// only as SHA-256 digests and written into the backend's access configuration on generation.
// Scopes are model ids; see docs/generated-backend.md.
import { type Kysely, sql } from "kysely";

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table deployed_read_tokens (
      id uuid primary key,
      site_id uuid not null references sites (id) on delete cascade,
      name text not null,
      -- Model ids; never empty while the token is live, never '*'.
      model_ids jsonb not null,
      digest text not null unique,
      -- The token this one was issued to replace (rotation keeps both live until revoked).
      replaces uuid references deployed_read_tokens (id),
      created_by uuid,
      created_at timestamptz not null,
      revoked_at timestamptz,
      revoked_by uuid
    );
    create index deployed_read_tokens_site
      on deployed_read_tokens (site_id, created_at);
  `.execute(db);
}
