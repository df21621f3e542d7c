// Reads and creates sites and their languages.
import type { Db } from "../db/database.ts";

/** A site as the rest of the service sees it. */
export interface SiteRecord {
  id: string;
  slug: string;
  name: string;
  domain: string;
  /** Language codes in order; the first is the default. */
  languages: string[];
  defaultLanguage: string;
}

/** Finds the site whose stored domain is exactly `domain`. */
export async function findSiteByDomain(
  db: Db,
  domain: string,
): Promise<SiteRecord | null> {
  const site = await db.selectFrom("sites").selectAll().where(
    "domain",
    "=",
    domain,
  ).executeTakeFirst();
  return site ? await withLanguages(db, site) : null;
}

/** Finds a site by id. */
export async function findSiteById(
  db: Db,
  id: string,
): Promise<SiteRecord | null> {
  const site = await db.selectFrom("sites").selectAll().where("id", "=", id)
    .executeTakeFirst();
  return site ? await withLanguages(db, site) : null;
}

async function withLanguages(
  db: Db,
  site: { id: string; slug: string; name: string; domain: string },
): Promise<SiteRecord> {
  const rows = await db.selectFrom("site_languages").select([
    "code",
    "is_default",
  ])
    .where("site_id", "=", site.id).orderBy("position").execute();
  return siteRecordOf(site, rows);
}

/** The record of a site row and its language rows (in position order), however they were read. */
export function siteRecordOf(
  site: { id: string; slug: string; name: string; domain: string },
  rows: readonly { code: string; is_default: boolean }[],
): SiteRecord {
  const languages = [
    ...rows.filter((r) => r.is_default),
    ...rows.filter((r) => !r.is_default),
  ].map((r) => r.code);
  return {
    id: site.id,
    slug: site.slug,
    name: site.name,
    domain: site.domain,
    languages,
    defaultLanguage: languages[0],
  };
}
