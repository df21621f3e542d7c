// Managed templates: candidates (stored once per site and digest; their files live under
// TEMPLATE_ARTIFACTS and are bound here by digest), acceptances in order, and the promoted,
// immutable versions of registered sections (spec 3 part 4.8 rules 1, 3 and 6).
import { type Kysely, sql } from "kysely";

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table template_candidates (
      id uuid primary key,
      site_id uuid not null references sites (id) on delete cascade,
      -- SHA-256 over the canonical JSON of { manifest, source }: one candidate per site and digest.
      digest text not null,
      name text not null,
      manifest jsonb not null,
      -- Each registered section's key, label, component path and identity.
      sections jsonb not null,
      -- The page contract version the candidate was built against.
      contract integer not null,
      origin text not null,
      build_id text not null,
      sandbox_image text not null,
      source_digest text not null,
      compiled_digest text not null,
      report_digest text not null,
      created_by uuid,
      created_at timestamptz not null,
      unique (site_id, digest)
    );
    create index template_candidates_site on template_candidates (site_id, created_at);
    create table template_acceptances (
      site_id uuid not null references sites (id) on delete cascade,
      sequence integer not null,
      candidate_id uuid not null references template_candidates (id),
      accepted_by uuid,
      accepted_at timestamptz not null,
      primary key (site_id, sequence)
    );
    create table registered_section_versions (
      site_id uuid not null references sites (id) on delete cascade,
      key text not null,
      version integer not null,
      -- SHA-256 over the canonical JSON of { definition, source }.
      identity text not null,
      -- The page contract's definition.digest: the definition's canonical JSON, then the component bytes.
      digest text not null,
      definition jsonb not null,
      candidate_id uuid not null references template_candidates (id),
      promoted_at timestamptz not null,
      primary key (site_id, key, version),
      unique (site_id, key, identity)
    );
  `.execute(db);
}
