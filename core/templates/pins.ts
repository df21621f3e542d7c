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
    for (const pin of pinsOfValues(fields)) {
      const id = `${row.group_id}|${pin.key}|${pin.version}`;
      if (seen.has(id)) {
        continue;
      }
      seen.add(id);
      pins.push({ key: pin.key, version: pin.version, group_id: row.group_id });
    }
  }
  return pins;
}

/** One pin of a page's values, with the path of its section. */
export interface ValuePin {
  key: string;
  version: number;
  path: string;
}

/** The registered section pins of an entry's values (a page's custom sections). */
export function pinsOfValues(
  values: Record<string, unknown> | null | undefined,
): ValuePin[] {
  const pins: ValuePin[] = [];
  for (const [field, value] of Object.entries(values ?? {})) {
    const sections = (value as { sections?: unknown })?.sections;
    if (!Array.isArray(sections)) {
      continue;
    }
    sections.forEach((s, i) => {
      const def = (s as { definition?: { key?: unknown; version?: unknown } })
        ?.definition;
      if (typeof def?.key === "string" && typeof def?.version === "number") {
        pins.push({
          key: def.key,
          version: def.version,
          path: `${field}.sections[${i}].definition`,
        });
      }
    });
  }
  return pins;
}

/**
 * The pins the active release's template does not draw (TPL-028), in one statement: the active
 * release's sections beside the identities of the pinned keys' promoted versions. Without an
 * active release nothing is refused: the site is served by the built-in renderer or its own.
 */
export async function undrawnPins(
  db: Db,
  siteId: string,
  pins: readonly ValuePin[],
): Promise<ValuePin[]> {
  if (pins.length === 0) return [];
  const keys = [...new Set(pins.map((p) => p.key))];
  const row = await db.selectFrom("managed_releases as r")
    .innerJoin("template_candidates as c", "c.id", "r.candidate_id")
    .select([
      "c.sections",
      sql<
        unknown
      >`(select coalesce(json_agg(json_build_array(v.key, v.version, v.identity)), '[]'::json)
        from registered_section_versions v
        where v.site_id = r.site_id and v.key in (${sql.join(keys)}))`.as(
        "versions",
      ),
    ])
    .where("r.site_id", "=", siteId).where("r.state", "=", "active")
    .executeTakeFirst();
  if (!row) return [];
  const read = <T>(v: unknown) =>
    (typeof v === "string" ? JSON.parse(v) : v) as T;
  const drawn = new Set(
    read<{ key: string; identity: string }[]>(row.sections).map((s) =>
      `${s.key}|${s.identity}`
    ),
  );
  const identityOf = new Map(
    read<[string, number, string][]>(row.versions).map((
      [key, version, identity],
    ) => [`${key}@${version}`, identity]),
  );
  return pins.filter((p) => {
    const identity = identityOf.get(`${p.key}@${p.version}`);
    return !identity || !drawn.has(`${p.key}|${identity}`);
  });
}
