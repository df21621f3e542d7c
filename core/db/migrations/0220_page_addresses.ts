// A page address set in a draft version waits here until that language is published (spec 3
// part 4.7 `POST /api/pages/{id}/address`, DLV-013; ENT-030): the live page keeps its address.
import { type Kysely, sql } from "kysely";

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table page_pending_addresses (
      entry_id uuid primary key references entries(id) on delete cascade,
      site_id uuid not null,
      version_id uuid not null,
      address text check (address <> ''),
      created_at timestamptz not null
    );
  `.execute(db);
}
