// What the projections of one changed translation group share, so that each reads the group
// once per command instead of once per projection.
import { type RawBuilder, sql } from "kysely";
import type { Db } from "../db/database.ts";
import { heldMark } from "../db/prepared_queries.ts";
import { prebuilt, prebuiltShapes } from "../db/prebuilt.ts";

/** The group after the command's writes, as the projections need it; undefined once purged. */
export interface ChangedGroup {
  model_id: string;
  revision: number;
  trashed_at: Date | null;
  updated_at: Date;
  /**
   * Set by a command that knows no language of the group was published before it nor is after
   * it (a draft's save): public items, the sync log and search documents hold nothing for such a
   * group, before and after, so their refreshers have nothing to write and are skipped.
   */
  unpublished?: boolean;
}

/** One row `public_items` serves for the group: what the sync log compares. */
export interface ServedRow {
  model_id: string;
  requested_locale: string;
  entry_id: string;
  version_id: string;
  slug: string;
  published_at: Date;
}

/** One language's state as the sync log last recorded it for the group. */
export interface RecordedSyncRow {
  locale: string;
  model_id: string;
  fingerprint: string;
}

/** A published language of the group with its published values, as search indexes it. */
export interface LiveLanguage {
  id: string;
  locale: string;
  slug: string;
  /** A Date read on its own; ISO text when it rode in JSON. */
  published_at: Date | string | null;
  fields: unknown;
}

/** The group's published languages ({@linkcode LiveLanguage}) as one JSON array. */
export function liveLanguagesJson(
  siteId: string,
  groupId: string,
): RawBuilder<unknown> {
  return sql`(select coalesce(json_agg(json_build_object('id', e.id, 'locale', e.locale,
      'slug', e.slug, 'published_at', e.published_at, 'fields', v.fields)), '[]'::json)
    from entries e
    join entry_versions v on v.site_id = e.site_id and v.id = e.published_version_id
    where e.site_id = ${siteId} and e.group_id = ${groupId})`;
}

/** One group whose projections are being refreshed, in the command's transaction. */
export interface PublicationChange {
  siteId: string;
  groupId: string;
  group: ChangedGroup | undefined;
  /** What `public_items` serves for the group now; the public items refresher sets it. */
  served?: ServedRow[];
  /**
   * What the sync log last recorded for the group: the public items refresher reads it in its
   * first statement, so the sync log's refresher need not.
   */
  recorded?: RecordedSyncRow[];
  /**
   * The group's published languages after the command: the public items refresher reads them
   * in its first statement too, so the search documents' refresher need not.
   */
  live?: LiveLanguage[];
  /** Writes left for the end of the refresh (absent: a projection writes at once). */
  trailing?: TrailingWrite[];
}

/**
 * A write a refresh runs last, in one statement with the refresh's other last writes. It is
 * given as a builder and values, so that the statement of each combination of builders is built
 * and compiled once (core/db/prebuilt.ts) and each run binds only the values.
 */
export interface TrailingWrite<
  V extends Record<string, unknown> = Record<string, unknown>,
> {
  /**
   * Builds the write from stand-ins for `values` (bind them; never shape the text with them).
   * Made once, as a module's constant: the statement is kept under the builder itself.
   */
  build(values: V): TrailingText;
  values: V;
}

/** What a trailing write's builder makes. */
export interface TrailingText {
  /** Named CTEs `last` uses; their names are unique across the projections. */
  with: [string, RawBuilder<unknown>][];
  /** The statement itself; its answer is not read. */
  last: RawBuilder<unknown>;
}

/**
 * Runs trailing writes as one statement: alone, as written; together, every CTE of each and each
 * last statement as a CTE of its own (a data-modifying CTE runs whether or not it is read).
 */
export async function runTrailing(
  tx: Db,
  writes: readonly TrailingWrite[],
): Promise<void> {
  if (writes.length === 0) return;
  const statement = trailingStatementOf(writes);
  // Each write's values under its place in the statement, as its builder's stand-ins name them.
  const values: Record<string, unknown> = {};
  writes.forEach((write, i) => {
    for (const name in write.values) {
      values[`${i}.${name}`] = write.values[name];
    }
  });
  await statement.rows(tx, values);
}

/**
 * Adds `write` to the refresh's last writes, or runs it at once outside a refresh. Only for a
 * write that nothing after it in the refresh reads.
 */
export async function trailingWrite<V extends Record<string, unknown>>(
  tx: Db,
  change: PublicationChange,
  write: TrailingWrite<V>,
): Promise<void> {
  const any = write as unknown as TrailingWrite;
  if (change.trailing) change.trailing.push(any);
  else await runTrailing(tx, [any]);
}

/** Numbers for the trailing writes' builders, in the order they were first run. */
const builderNumbers = new WeakMap<TrailingWrite["build"], number>();
let nextBuilderNumber = 0;

function builderNumber(build: TrailingWrite["build"]): number {
  let number = builderNumbers.get(build);
  if (number === undefined) {
    builderNumbers.set(build, number = nextBuilderNumber++);
  }
  return number;
}

/**
 * The statement of a combination of trailing writes, by their builders (at most 64 combinations
 * kept compiled; past it, one is compiled on each run).
 */
const trailingStatementOf = prebuiltShapes(
  (writes: readonly TrailingWrite[]) => {
    const builds = writes.map((w) => w.build);
    return prebuilt((_db, v: Record<string, unknown>) => {
      const texts = builds.map((build, i) =>
        build(
          new Proxy({}, {
            get: (_, name) =>
              typeof name === "string" ? v[`${i}.${name}`] : undefined,
          }),
        )
      );
      const ctes = texts.flatMap((t) => t.with);
      const named = (list: [string, RawBuilder<unknown>][]) =>
        sql.join(list.map(([name, body]) => sql`${sql.id(name)} as (${body})`));
      // Nothing reads what they write or what they answer: on PostgreSQL the statement is held
      // back and sent with the next one, the transaction's `commit` when nothing follows.
      const held = sql.raw(heldMark("trailing"));
      if (texts.length === 1) {
        const [only] = texts;
        return ctes.length === 0
          ? sql`${only.last}${held}`
          : sql`with ${named(ctes)} ${only.last}${held}`;
      }
      const lasts = texts.map((t, i): [string, RawBuilder<unknown>] => [
        `trailing_${i}`,
        t.last,
      ]);
      return sql`with ${named([...ctes, ...lasts])} select 1${held}`;
    });
  },
  {
    key: (writes) => writes.map((w) => builderNumber(w.build)).join(" "),
    max: 64,
  },
);

/** Refreshes one projection of a changed group, in the caller's transaction. */
export type PublicationRefresher = (
  tx: Db,
  change: PublicationChange,
) => Promise<void>;

/** Reads the group as {@linkcode ChangedGroup} (one statement, shared by every projection). */
export async function readChangedGroup(
  tx: Db,
  siteId: string,
  groupId: string,
): Promise<ChangedGroup | undefined> {
  return await tx.selectFrom("entry_groups")
    .select(["model_id", "revision", "trashed_at", "updated_at"])
    .where("site_id", "=", siteId).where("id", "=", groupId)
    .executeTakeFirst();
}
