// Registered section versions pinned by saved or published pages: what acceptance must not strand,
// what activation must still draw, and what the section diff counts (spec 3 part 4.8 rules 3, 6).
import { sql } from "kysely";
import type { Db } from "../db/database.ts";

/** One pin: a page's custom section naming a registered key at a version. */
export interface SectionPin {
  key: string;
  version: number;
  group_id: string;
}

/** Every distinct (page, key, version) pinned by a page's current or published version. */
export async function pinnedSections(
  db: Db,
  siteId: string,
  options: { publishedOnly?: boolean } = {},
): Promise<SectionPin[]> {
  const rows = await db.selectFrom("entry_versions as v")
    .innerJoin(
      "entries as e",
      (j) =>
        j.onRef("e.site_id", "=", "v.site_id").on((eb) =>
          options.publishedOnly
            ? eb("e.published_version_id", "=", eb.ref("v.id"))
            : eb.or([
              eb("e.current_version_id", "=", eb.ref("v.id")),
              eb("e.published_version_id", "=", eb.ref("v.id")),
            ])
        ),
    )
    .select(["v.group_id", "v.fields"])
    .where("v.site_id", "=", siteId)
    // Only documents that may hold a custom section are parsed.
    .where(sql<boolean>`v.fields::text like '%"definition"%'`)
    .execute();
  const seen = new Set<string>();
  const pins: SectionPin[] = [];
  for (const row of rows) {
    const fields = (typeof row.fields === "string"
      ? JSON.parse(row.fields)
      : row.fields) as Record<string, unknown>;
    for (const value of Object.values(fields ?? {})) {
      const sections = (value as { sections?: unknown })?.sections;
      if (!Array.isArray(sections)) {
        continue;
      }
      for (const s of sections) {
        const def = (s as { definition?: { key?: unknown; version?: unknown } })
          ?.definition;
        if (typeof def?.key !== "string" || typeof def?.version !== "number") {
          continue;
        }
        const id = `${row.group_id}|${def.key}|${def.version}`;
        if (seen.has(id)) {
          continue;
        }
        seen.add(id);
        pins.push({
          key: def.key,
          version: def.version,
          group_id: row.group_id,
        });
      }
    }
  }
  return pins;
}
