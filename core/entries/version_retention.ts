// Version retention: `editorial.version_retention_days` deletes old versions nothing still needs.
import { sql } from "kysely";
import type { Db } from "../db/database.ts";
import { readCheckedSettings } from "../sites/settings.ts";

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * Deletes the site's versions created more than `version_retention_days` before `now`
 * (nothing when the setting is null). A version is kept, however old, while anything still
 * names it: an entry's current or published version, the base of an entry proposal or a
 * working draft, the version a review stage speaks about, or a served public item. So
 * retention never changes what is live, what a pin compares against, or what can be applied;
 * it only shortens the history a person can restore from. Answers the number deleted.
 */
export async function pruneOldVersions(
  db: Db,
  siteId: string,
  now: Date,
): Promise<number> {
  const editorial = await readCheckedSettings({ db, siteId }, "editorial");
  const days = editorial?.version_retention_days ?? null;
  if (days === null) return 0;
  const cutoff = new Date(now.getTime() - days * DAY_MS);
  const deleted = await sql<{ id: string }>`
    delete from entry_versions v
    where v.site_id = ${siteId} and v.created_at < ${cutoff}
      and not exists (select 1 from entries e where e.site_id = v.site_id
        and (e.current_version_id = v.id or e.published_version_id = v.id))
      and not exists (select 1 from entry_proposals p where p.site_id = v.site_id
        and (p.base_version_id = v.id or p.applied_version_id = v.id))
      and not exists (select 1 from entry_drafts d where d.site_id = v.site_id
        and d.base_version_id = v.id)
      and not exists (select 1 from entry_reviews r where r.site_id = v.site_id
        and r.version_id = v.id)
      and not exists (select 1 from public_items i where i.site_id = v.site_id
        and i.version_id = v.id)
    returning v.id
  `.execute(db);
  return deleted.rows.length;
}
