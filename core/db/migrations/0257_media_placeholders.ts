// Image placeholders: a ThumbHash and the dominant colour of each library image, computed on upload
// and replace so front ends can paint something the size of the image before its bytes arrive.
import { type Kysely, sql } from "kysely";

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    alter table media_files add column placeholder text;
    alter table media_files add column dominant_color text;
  `.execute(db);
}
