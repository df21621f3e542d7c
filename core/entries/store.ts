// Reads of groups and their language instances, shared by the lifecycle commands and the workflow block.
import { type Kysely, type RawBuilder, type Selectable, sql } from "kysely";
import type { Db } from "../db/database.ts";
import type { Database, EntriesTable, EntryGroupsTable } from "../db/schema.ts";
import type { EntryState, InstanceState, LifecycleResult } from "./types.ts";
import { ENTRIES_COLUMNS, GROUP_COLUMNS } from "../db/row_columns.ts";
import { prebuilt } from "../db/prebuilt.ts";

/** A stored translation group. */
export type GroupRow = Selectable<EntryGroupsTable>;
/** A stored language instance. */
export type InstanceRow = Selectable<EntriesTable>;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** True when `id` can name a row; anything else is simply not found. */
export function isId(id: unknown): id is string {
  return typeof id === "string" && UUID.test(id);
}

/**
 * The group on the site, or undefined. `lock` takes a row lock (`for update`) so that
 * concurrent commands on one group run one after the other and see each other's result.
 */
export async function readGroup(
  db: Db,
  siteId: string,
  groupId: string,
  options: { lock?: boolean } = {},
): Promise<GroupRow | undefined> {
  if (!isId(groupId)) return undefined;
  return await GROUP[options.lock ? 1 : 0].first(db, { siteId, groupId });
}

/** The group by site and id: unlocked, then under its row lock. */
const GROUP = [false, true].map((lock) =>
  prebuilt((db, v: { siteId: string; groupId: string }) => {
    const query = db.selectFrom("entry_groups").select(GROUP_COLUMNS)
      .where("site_id", "=", v.siteId).where("id", "=", v.groupId);
    return lock ? query.forUpdate() : query;
  })
);

/** A column a caller reads with the group, built from the site's id. */
export type ExtraColumn = (siteId: string) => RawBuilder<unknown>;

/**
 * The group on the site with whether it has the language `locale` (one the site still has, as
 * {@linkcode readInstances} reads them) and the `extra` column a caller adds, in one statement;
 * undefined without the group.
 */
export async function readGroupWith(
  db: Db,
  siteId: string,
  groupId: string,
  options: { locale?: string; extra?: ExtraColumn },
): Promise<
  { group: GroupRow; hasLanguage: boolean; extra: unknown } | undefined
> {
  if (!isId(groupId)) return undefined;
  const { locale, extra = noExtra } = options;
  let statements = groupWith.get(extra);
  if (!statements) groupWith.set(extra, statements = groupWithOf(extra));
  const row = await statements[locale === undefined ? 0 : 1].first(db, {
    siteId,
    groupId,
    locale,
  });
  if (!row) return undefined;
  const { has_language, extra: extraValue, ...group } = row;
  return { group, hasLanguage: has_language, extra: extraValue };
}

const noExtra: ExtraColumn = () => sql`null`;
const groupWith = new WeakMap<ExtraColumn, ReturnType<typeof groupWithOf>>();

/** {@linkcode readGroupWith}'s statements with `extra`: without a language, then with one. */
function groupWithOf(extra: ExtraColumn) {
  return [false, true].map((withLocale) =>
    prebuilt((
      db,
      v: { siteId: string; groupId: string; locale: string | undefined },
    ) =>
      db.selectFrom("entry_groups").select(GROUP_COLUMNS)
        .select([
          (withLocale
            ? sql<boolean>`exists (
              select from entries e
              join site_languages l on l.site_id = e.site_id and l.code = e.locale
              where e.site_id = ${v.siteId} and e.group_id = entry_groups.id
                and e.locale = ${v.locale})`
            : sql<boolean>`false`).as("has_language"),
          extra(v.siteId).as("extra"),
        ])
        .where("site_id", "=", v.siteId).where("id", "=", v.groupId)
    )
  );
}

/** The group's language instances, in the site's language order. */
export async function readInstances(
  db: Db,
  siteId: string,
  groupId: string,
): Promise<InstanceRow[]> {
  return await INSTANCES.rows(db, { siteId, groupId });
}

const INSTANCES = prebuilt((db, v: { siteId: string; groupId: string }) =>
  entriesWithLanguages(db)
    .select(ENTRIES_COLUMNS)
    .where("entries.site_id", "=", v.siteId)
    .where("entries.group_id", "=", v.groupId)
    .orderBy("site_languages.position")
);

/**
 * `entries` joined to the site's languages, so that a language the site no longer has is no
 * instance, and instances can be ordered as the site orders its languages.
 */
export function entriesWithLanguages(db: Kysely<Database>) {
  return db.selectFrom("entries")
    .innerJoin(
      "site_languages",
      (join) =>
        join.onRef("site_languages.site_id", "=", "entries.site_id")
          .onRef("site_languages.code", "=", "entries.locale"),
    );
}

/** Version numbers by id, for the instances' published versions. */
export async function versionNumbers(
  db: Db,
  siteId: string,
  ids: readonly string[],
): Promise<Map<string, number>> {
  if (ids.length === 0) return new Map();
  const rows = await db.selectFrom("entry_versions").select(["id", "number"])
    .where("site_id", "=", siteId).where("id", "in", [...ids]).execute();
  return new Map(rows.map((row) => [row.id, row.number]));
}

/**
 * The group's publication pointer: the newest published version of any language (versions
 * are numbered across the group), or null when no language is published.
 */
export async function groupPublishedVersionId(
  db: Db,
  siteId: string,
  instances: readonly InstanceRow[],
): Promise<string | null> {
  const ids = instances.flatMap((i) => i.published_version_id ?? []);
  const numbers = await versionNumbers(db, siteId, ids);
  let best: string | null = null;
  for (const id of ids) {
    if (best === null || numbers.get(id)! > numbers.get(best)!) best = id;
  }
  return best;
}

/** Whether the group is trashed, has any language published, or is a draft. */
export function groupState(
  group: GroupRow,
  instances: readonly InstanceRow[],
): EntryState {
  if (group.trashed_at !== null) return "trashed";
  return instances.some((i) => i.published_version_id !== null)
    ? "published"
    : "draft";
}

/** The state of one language instance. */
export function instanceState(
  group: GroupRow,
  instance: InstanceRow,
): EntryState {
  if (group.trashed_at !== null) return "trashed";
  return instance.published_version_id !== null ? "published" : "draft";
}

/** True when the instance's current version is not the one published. */
export function hasUnpublishedChange(instance: InstanceRow): boolean {
  return instance.current_version_id !== null &&
    instance.current_version_id !== instance.published_version_id;
}

function instanceFacts(instance: InstanceRow): InstanceState {
  return {
    entry_id: instance.id,
    locale: instance.locale,
    slug: instance.slug,
    current_version_id: instance.current_version_id,
    published_version_id: instance.published_version_id,
    published_at: instance.published_at,
  };
}

/** Re-reads the group after a command and answers its workflow facts. */
export async function readResult(
  db: Db,
  siteId: string,
  groupId: string,
): Promise<LifecycleResult> {
  const group = await readGroup(db, siteId, groupId);
  if (!group) {
    throw new Error(`Cannot read group "${groupId}" after writing it`);
  }
  const instances = await readInstances(db, siteId, groupId);
  return {
    ok: true,
    group_id: group.id,
    model_id: group.model_id,
    state: groupState(group, instances),
    revision: group.revision,
    current_version_id: group.current_version_id,
    published_version_id: await groupPublishedVersionId(db, siteId, instances),
    instances: instances.map(instanceFacts),
  };
}
