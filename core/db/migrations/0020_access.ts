// Access: marks the roles a site is seeded with, which can never be deleted.
import { type Kysely, sql } from "kysely";

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    alter table roles add column seeded boolean not null default false;
  `.execute(db);
}
