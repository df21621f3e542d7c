// Search speed: a title prefix index, so suggestions find titles starting with the typed words
// without ranking every match (core/search/search.ts).
import { type Kysely, sql } from "kysely";

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create index search_documents_title_prefix on search_documents
      (site_id, locale, title_words text_pattern_ops);
  `.execute(db);
}
