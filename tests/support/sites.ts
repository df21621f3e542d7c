// Inserts a bare site row with languages for tests that need a Host to resolve.
import type { Db } from "../../core/db/database.ts";

/** Creates a site on `domain` and answers its id. */
export async function insertSite(
  db: Db,
  options: { domain: string; slug?: string; languages?: string[] },
): Promise<string> {
  const id = crypto.randomUUID();
  const slug = options.slug ?? options.domain.replace(/[^a-z0-9]+/g, "-");
  await db.insertInto("sites").values({
    id,
    slug,
    name: slug,
    domain: options.domain,
    created_at: new Date(),
  })
    .execute();
  await db.insertInto("site_languages").values(
    (options.languages ?? ["en"]).map((code, position) => ({
      site_id: id,
      code,
      position,
      is_default: position === 0,
    })),
  ).execute();
  return id;
}
