// The model builder's ContentFacts answered from the entries tables: entries, their current values, kept versions.
import { sql } from "kysely";
import type { Db } from "../db/database.ts";
import type { ContentFacts, StoredModel } from "../models/mod.ts";

/** One language's values of one entry (group), as stored in a version or a working draft. */
interface ValueRow {
  group_id: string;
  locale: string;
  fields: unknown;
}

/**
 * The facts of `model`'s content on `siteId`, read through `db` (inside the model save's
 * transaction when the builder passes its `trx`). Rules, written down in docs/management-api.md:
 *
 * - An entry is a translation group; Trash counts (a restore must not bring back content the
 *   model can no longer hold).
 * - "Current values" are each language's current version (`entries.current_version_id`);
 *   an entry holds a value when any language does, and misses one when any language does.
 * - "Kept versions" are every row of `entry_versions` plus every working draft
 *   (`entry_drafts`), since a draft's values are saved as a version later.
 * - A path is a dotted key path without list indexes (`seo.meta_title`, `faqs.question`);
 *   a list on the way (a repeatable component) is walked item by item.
 * - Empty is absent, null, blank text, an empty list or object, or rich text with nothing
 *   to read (only tags and spaces, no media, embed or block figure).
 */
export function entryContentFacts(
  db: Db,
  siteId: string,
  model: Pick<StoredModel, "id">,
): ContentFacts {
  const currentValues = (): Promise<ValueRow[]> =>
    db.selectFrom("entries as e")
      .innerJoin("entry_groups as g", (join) =>
        join.onRef("g.id", "=", "e.group_id").onRef(
          "g.site_id",
          "=",
          "e.site_id",
        ))
      .innerJoin("entry_versions as v", (join) =>
        join.onRef("v.id", "=", "e.current_version_id").onRef(
          "v.site_id",
          "=",
          "e.site_id",
        ))
      .select(["e.group_id", "e.locale", "v.fields"])
      .where("e.site_id", "=", siteId)
      .where("g.model_id", "=", model.id)
      .execute();

  return {
    async countEntries() {
      const row = await db.selectFrom("entry_groups")
        .select((eb) => eb.fn.countAll<string | number>().as("n"))
        .where("site_id", "=", siteId).where("model_id", "=", model.id)
        .executeTakeFirstOrThrow();
      return Number(row.n);
    },
    async countEntriesWithValue(path) {
      const groups = new Set<string>();
      for (const row of await currentValues()) {
        if (valuesAt(row.fields, path).some(isFilled)) groups.add(row.group_id);
      }
      return groups.size;
    },
    async countEntriesMissingValue(path) {
      const groups = new Set<string>();
      for (const row of await currentValues()) {
        if (missesValue(row.fields, path)) groups.add(row.group_id);
      }
      return groups.size;
    },
    async countVersionsWithValue(path) {
      const top = path.split(".")[0];
      const versions = await db.selectFrom("entry_versions as v")
        .innerJoin(
          "entry_groups as g",
          (join) =>
            join.onRef("g.id", "=", "v.group_id").onRef(
              "g.site_id",
              "=",
              "v.site_id",
            ),
        )
        .select(["v.fields"])
        .where("v.site_id", "=", siteId).where("g.model_id", "=", model.id)
        .where(sql<boolean>`v.fields ? ${top}`)
        .execute();
      const drafts = await db.selectFrom("entry_drafts as d")
        .innerJoin(
          "entry_groups as g",
          (join) =>
            join.onRef("g.id", "=", "d.group_id").onRef(
              "g.site_id",
              "=",
              "d.site_id",
            ),
        )
        .select(["d.fields"])
        .where("d.site_id", "=", siteId).where("g.model_id", "=", model.id)
        .where(sql<boolean>`d.fields ? ${top}`)
        .execute();
      return [...versions, ...drafts].filter((row) =>
        valuesAt(row.fields, path).some(isFilled)
      ).length;
    },
    async countDuplicateValues(paths, scope) {
      const holders = new Map<string, Set<string>>();
      for (const row of await currentValues()) {
        const members = paths.map((path) =>
          valuesAt(row.fields, path).find(isFilled)
        );
        if (members.some((m) => m === undefined)) continue;
        const claim = JSON.stringify([
          scope === "language" ? row.locale : "",
          ...members,
        ]);
        if (!holders.has(claim)) holders.set(claim, new Set());
        holders.get(claim)!.add(row.group_id);
      }
      const duplicated = new Set<string>();
      for (const groups of holders.values()) {
        if (groups.size > 1) groups.forEach((g) => duplicated.add(g));
      }
      return duplicated.size;
    },
  };
}

/** The values under a dotted key path, walking into lists item by item. */
export function valuesAt(fields: unknown, path: string): unknown[] {
  const segments = path.split(".");
  let containers = [fields];
  for (const segment of segments.slice(0, -1)) {
    containers = containers.flatMap((c) => objectsOf(childOf(c, segment)));
  }
  const last = segments[segments.length - 1];
  return containers.map((c) => childOf(c, last));
}

/** True when some object that should hold the last key of `path` holds nothing under it. */
export function missesValue(fields: unknown, path: string): boolean {
  const segments = path.split(".");
  let containers = [fields];
  for (const segment of segments.slice(0, -1)) {
    // An absent or empty component asks nothing of its fields.
    containers = containers.flatMap((c) => objectsOf(childOf(c, segment)));
  }
  const last = segments[segments.length - 1];
  return containers.some((c) => !isFilled(childOf(c, last)));
}

function childOf(container: unknown, key: string): unknown {
  return isObject(container) ? container[key] : undefined;
}

function objectsOf(value: unknown): Record<string, unknown>[] {
  if (Array.isArray(value)) return value.filter(isObject);
  return isObject(value) ? [value] : [];
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

const READABLE_ELEMENT = /<(figure|img|hr)\b/i;

/** A value that is not empty (see {@link entryContentFacts}). */
export function isFilled(value: unknown): boolean {
  if (value === undefined || value === null) return false;
  if (typeof value === "string") {
    if (value.trim() === "") return false;
    if (!value.includes("<")) return true;
    if (READABLE_ELEMENT.test(value)) return true;
    const text = value.replace(/<[^>]*>/g, "").replace(/&nbsp;|&#160;/g, " ");
    return text.trim() !== "" || !/^\s*</.test(value);
  }
  if (Array.isArray(value)) return value.length > 0;
  if (isObject(value)) return Object.keys(value).length > 0;
  return true;
}
