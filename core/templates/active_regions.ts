// The regions of the site's active template (spec 3 part 4.8 rule 7): the accepted candidate's
// manifest, or the built-in template's while nothing was accepted.
import type { Db } from "../db/database.ts";
import { BUILT_IN_REGIONS, type DeclaredRegion } from "./builtin_regions.ts";
import type { TemplateManifest } from "./manifest.ts";

export type { DeclaredRegion };

/** The declared regions of the template accepted last, in their declared order. */
export async function activeTemplateRegions(
  db: Db,
  siteId: string,
): Promise<readonly DeclaredRegion[]> {
  const row = await db.selectFrom("template_acceptances as a")
    .innerJoin(
      "template_candidates as c",
      (j) =>
        j.onRef("c.site_id", "=", "a.site_id").onRef(
          "c.id",
          "=",
          "a.candidate_id",
        ),
    )
    .select("c.manifest").where("a.site_id", "=", siteId)
    .orderBy("a.sequence", "desc").limit(1).executeTakeFirst();
  if (!row) return BUILT_IN_REGIONS;
  const manifest =
    (typeof row.manifest === "string"
      ? JSON.parse(row.manifest)
      : row.manifest) as TemplateManifest;
  return manifest.regions ?? [];
}
