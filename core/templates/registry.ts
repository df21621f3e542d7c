// The site's promoted registered sections as the page parser's registry: what a page save or a
// publication reads `custom` sections with (spec 3 parts 2.2 and 4.8 rule 6).
import type { Db } from "../db/database.ts";
import {
  type RegisteredDefinition,
  type SectionRegistry,
  sectionRegistry,
} from "../pages/mod.ts";
import { definitionProps, type SectionDefinition } from "./manifest.ts";

/** Every promoted version of the site's registered sections, as a registry. */
export async function siteSectionRegistry(
  db: Db,
  siteId: string,
): Promise<SectionRegistry> {
  const rows = await db.selectFrom("registered_section_versions")
    .select(["key", "version", "digest", "definition"])
    .where("site_id", "=", siteId).execute();
  const definitions: RegisteredDefinition[] = rows.map((r) => {
    const definition = (typeof r.definition === "string"
      ? JSON.parse(r.definition)
      : r.definition) as SectionDefinition;
    return {
      key: r.key,
      version: r.version,
      digest: r.digest,
      props: definitionProps(definition),
      // Component pins of format 3 belong to the component registry, not to templates.
      components: [],
    };
  });
  return sectionRegistry(definitions);
}
