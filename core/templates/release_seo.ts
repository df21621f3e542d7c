// The SEO defaults a release carries: only the ones the site changed, so a site on the defaults
// sends none (spec 3 part 4.8 rule 9). Page-level overrides are read from the published version at
// request time, never from the release.
import type { Db } from "../db/database.ts";
import { readCheckedSettings } from "../sites/settings.ts";
import { SETTINGS_DEFAULTS } from "../sites/settings_documents.ts";

/** SEO defaults a release carries: only the ones a site changed. */
export interface ReleaseSeo {
  title_template?: string;
  default_description?: string;
}
/** The site's SEO defaults that differ from the defaults, or null when none does. */
export async function releaseSeoDefaults(
  db: Db,
  siteId: string,
): Promise<ReleaseSeo | null> {
  const seo = await readCheckedSettings({ db, siteId }, "seo");
  if (!seo) return null;
  const defaults = SETTINGS_DEFAULTS.seo;
  const out: ReleaseSeo = {};
  if (seo.title_template !== defaults.title_template) {
    out.title_template = seo.title_template;
  }
  if (seo.default_description !== defaults.default_description) {
    out.default_description = seo.default_description;
  }
  return Object.keys(out).length > 0 ? out : null;
}
