// Keeps `public_items` current: one row per published group and requested language, resolved
// through the site's locale policy, written in the transaction of the command that changed it.
import { type RawBuilder, sql } from "kysely";
import type { Db } from "../db/database.ts";
import { prebuilt, prebuiltShapes, rowsOf } from "../db/prebuilt.ts";
import {
  type LiveLanguage,
  liveLanguagesJson,
  type PublicationChange,
  type RecordedSyncRow,
  type ServedRow,
} from "../entries/publication_change.ts";
import { localeChain } from "../sites/locale_chain.ts";
import {
  SETTINGS_DEFAULTS,
  SETTINGS_SCHEMAS,
  type SettingsDocument,
} from "../sites/settings_documents.ts";

/** The languages of a site and its locale policy, as the projection and reads need them. */
export interface LocalePlan {
  languages: string[];
  defaultLanguage: string;
  policy: SettingsDocument<"language-fallback">;
}

/** Reads the site's languages and policy; an unusable stored policy reads as null. */
export async function readLocalePlan(
  db: Db,
  siteId: string,
): Promise<LocalePlan | null> {
  const { rows } = await localePlanRows(siteId).execute(db);
  return localePlanOf(rows);
}

/** A site language with the stored language policy beside it, as one statement answers both. */
interface LocalePlanRow {
  code: string;
  is_default: boolean;
  /** Whether a policy is stored (else the default applies), and the stored document. */
  stored: boolean;
  document: unknown;
  /** What a caller asked to read in the same statement (the same on every row). */
  alongside: unknown;
}

/** The site's languages in position order, each carrying the stored policy: one statement. */
function localePlanRows(
  siteId: string,
  alongside: RawBuilder<unknown> = sql`null`,
): RawBuilder<LocalePlanRow> {
  return sql<LocalePlanRow>`select code, is_default,
      exists (select from site_settings
        where site_id = ${siteId} and key = 'language-fallback') as stored,
      (select document from site_settings
        where site_id = ${siteId} and key = 'language-fallback') as document,
      ${alongside} as alongside
    from site_languages where site_id = ${siteId} order by position`;
}

function localePlanOf(rows: LocalePlanRow[]): LocalePlan | null {
  const first = rows[0];
  return localePlanFrom(
    rows,
    first?.stored ? { document: first.document } : undefined,
  );
}

/**
 * The locale plan of languages (in position order) and the stored policy row (undefined when
 * none is stored, so the default applies); null when unusable.
 */
export function localePlanFrom(
  languages: { code: string; is_default: boolean }[],
  stored: { document: unknown } | undefined,
): LocalePlan | null {
  const parsed = SETTINGS_SCHEMAS["language-fallback"].safeParse(
    stored ? stored.document : SETTINGS_DEFAULTS["language-fallback"],
  );
  const defaultLanguage = languages.find((l) => l.is_default)?.code;
  if (!parsed.success || !defaultLanguage) return null;
  return {
    languages: languages.map((l) => l.code),
    defaultLanguage,
    policy: parsed.data,
  };
}

/**
 * Rewrites the rows of one group (or of every group of the site when `groupId` is null):
 * a trashed, deleted or unpublished group ends with no rows. Answers the rows the group is
 * served by now (none for a whole site: nothing needs them there).
 */
export async function refreshPublicItems(
  tx: Db,
  siteId: string,
  groupId: string | null,
  change?: PublicationChange,
): Promise<ServedRow[]> {
  // Clears the rows and reads the locale plan in one statement (the values have no foreign
  // key to their items, so neither delete waits for the other).
  const planRows = await CLEAR_AND_PLAN[groupId === null ? 0 : 1][
    change ? 1 : 0
  ].rows(tx, {
    siteId,
    groupId,
    changeSiteId: change?.siteId,
    changeGroupId: change?.groupId,
  });
  // The sync log's recorded state of the group and its published languages, read here for the
  // refreshers after this one (they read no row this one writes); absent when the site has no
  // language row to carry them.
  if (change && planRows.length > 0) {
    const raw = planRows[0].alongside;
    const alongside = (typeof raw === "string" ? JSON.parse(raw) : raw) as {
      recorded: RecordedSyncRow[];
      live: LiveLanguage[];
    };
    change.recorded = alongside.recorded;
    change.live = alongside.live;
  }
  // An unusable policy is served strictly: nothing is shown in a language it was not written in.
  const plan = localePlanOf(planRows) ?? strictPlan(planRows);
  if (plan.languages.length === 0) return [];
  const steps = plan.languages.flatMap((requested) =>
    localeChain(plan.policy, requested, plan.defaultLanguage).map((
      loc,
      ord,
    ) => ({
      requested,
      loc,
      ord,
    }))
  );
  const rows = await writeItemsOf({
    group: groupId !== null,
    count: steps.length,
  })
    .rows(tx, { siteId, groupId, steps });
  return rows;
}

/** `and <column> = <the group>` for a group's rows; nothing for a whole site's. */
function ofGroup(
  group: boolean,
  column: string,
  v: { groupId: string | null },
): RawBuilder<unknown> {
  return group ? sql`and ${sql.ref(column)} = ${v.groupId}` : sql``;
}

/**
 * {@linkcode refreshPublicItems}'s first statement: the group's (or the site's) rows cleared and
 * the locale plan read, by whether it is one group's, then whether the sync log's recorded state
 * and the group's published languages ride along for the change's later refreshers.
 */
const CLEAR_AND_PLAN = [false, true].map((group) =>
  [false, true].map((change) =>
    prebuilt((_db, v: {
      siteId: string;
      groupId: string | null;
      changeSiteId: string | undefined;
      changeGroupId: string | undefined;
    }) =>
      sql<LocalePlanRow>`
    with cleared_values as (
      delete from public_item_values where site_id = ${v.siteId} ${
        ofGroup(group, "group_id", v)
      }
    ), cleared_items as (
      delete from public_items where site_id = ${v.siteId} ${
        ofGroup(group, "group_id", v)
      }
    )
    ${
        localePlanRows(
          v.siteId,
          change
            ? sql`json_build_object('recorded', ${
              recordedSyncState(v.changeSiteId!, v.changeGroupId!)
            },
          'live', ${liveLanguagesJson(v.changeSiteId!, v.changeGroupId!)})`
            : undefined,
        )
      }
  `
    )
  )
);

/** One requested language's step through the locale chain: the language served, in order. */
type Step = { requested: string; loc: string; ord: number };

/**
 * {@linkcode refreshPublicItems}'s second statement, by whether it is one group's and how many
 * steps the site's locale chains take: the items, then the typed sort keys of the items just
 * written, each with the facets of its item (computed once per item: the lateral subquery is
 * joined before the values are spread), in one statement that answers what the group is served
 * by.
 */
const writeItemsOf = prebuiltShapes(
  ({ group, count }: { group: boolean; count: number }) =>
    prebuilt((
      _db,
      v: { siteId: string; groupId: string | null; steps: Step[] },
    ) =>
      sql<ServedRow>`
    with written as (
      insert into public_items (site_id, model_id, group_id, requested_locale, entry_id,
        served_locale, slug, version_id, version_number, published_at, fields, alternates)
      select distinct on (g.id, p.requested) g.site_id, g.model_id, g.id, p.requested, e.id,
        e.locale, e.slug, v.id, v.number, e.published_at, v.fields,
        coalesce(alt.alternates, '[]'::json)
      from entry_groups g
      join entries e on e.site_id = g.site_id and e.group_id = g.id
        and e.published_version_id is not null
      join entry_versions v on v.site_id = e.site_id and v.id = e.published_version_id
      join (values ${
        sql.join(
          rowsOf(v.steps, count, ["requested", "loc", "ord"]).map((s) =>
            sql`(${s.requested}::text, ${s.loc}::text, ${s.ord}::int)`
          ),
        )
      }) as p(requested, loc, ord) on p.loc = e.locale
      -- Every group's alternates in one grouped pass. A subquery ran once per written row, and
      -- on a site whose rows were just written (no statistics yet) the bench seeder's site-wide
      -- rebuild of 100,000 groups ran 16 minutes without finishing; this way it takes seconds.
      left join (
        select a.group_id, json_agg(json_build_object('locale', a.locale, 'slug', a.slug)
            order by a.locale) as alternates
        from entries a
        where a.site_id = ${v.siteId} and a.published_version_id is not null
          ${ofGroup(group, "a.group_id", v)}
        group by a.group_id
      ) alt on alt.group_id = g.id
      where g.site_id = ${v.siteId} and g.trashed_at is null
        ${ofGroup(group, "g.id", v)}
      order by g.id, p.requested, p.ord
      returning site_id, model_id, requested_locale, group_id, entry_id, version_id, slug,
        published_at, fields
    ), written_values as (
      insert into public_item_values (site_id, model_id, requested_locale, group_id,
        field_key, num_value, text_value, time_value, facets)
      select p.site_id, p.model_id, p.requested_locale, p.group_id, kv.key,
        case when jsonb_typeof(kv.value) = 'number' then (kv.value #>> '{}')::numeric end,
        case when jsonb_typeof(kv.value) = 'string'
          then left(kv.value #>> '{}', ${VALUE_TEXT_MAX}) end,
        case when jsonb_typeof(kv.value) = 'string'
          then public_value_instant(kv.value #>> '{}') end,
        f.facets
      from written p
      cross join lateral (select ${
        facetsOf(sql`p.fields`)
      } as facets offset 0) f
      cross join lateral jsonb_each(p.fields) kv
      where jsonb_typeof(kv.value) in ('number', 'string')
    )
    select model_id, requested_locale, entry_id, version_id, slug, published_at
    from written ${group ? sql`` : sql`where false`}
  `
    ),
  { key: ({ group, count }) => `${group} ${count}` },
);

/**
 * Characters of a string kept in `public_item_values.text_value`: a longer one keeps this many
 * (btree entries are bounded), and a sorted page orders the items sharing that prefix by their
 * whole values (migration 0237).
 */
export const VALUE_TEXT_MAX = 255;

/** Longest JSON text (bytes) of one field value copied as is into `facets`. */
export const FACET_VALUE_MAX = 255;

/** Longest JSON text (bytes) of a whole `facets` object; a longer one is stored as NULL. */
export const FACETS_MAX = 1024;

/**
 * Largest stored size (bytes, `pg_column_size`) of a `facets` object; a larger one is NULL. JSON
 * text is no bound on it (arrays of small numbers take about four times their text), and a btree
 * entry holds at most about 2,700 bytes: this leaves room for the key columns, a 255-character
 * `text_value` of four-byte characters included, without counting on compression.
 */
export const FACETS_STORED_MAX = 1400;

/**
 * What `facets` holds in place of a value longer than {@link FACET_VALUE_MAX}: an object no
 * filter matches, and that a reader takes as "read `fields` instead" (a field really holding it
 * is read from `fields` too, which stays exact).
 */
export const FACET_OMITTED = '{"~": true}';

/**
 * The facets of an item from its `fields` (a jsonb expression): every top-level entry whose JSON
 * text is short, the key of every other with {@link FACET_OMITTED}; NULL when the whole is
 * longer than {@link FACETS_MAX} or stored larger than {@link FACETS_STORED_MAX}. They ride in the sort indexes of `public_item_values` so list
 * filters run on index entries; the bounds keep those entries small.
 */
export function facetsOf(fields: RawBuilder<unknown>): RawBuilder<unknown> {
  const whole = sql.lit(FACETS_MAX);
  const stored = sql.lit(FACETS_STORED_MAX);
  const each = sql.lit(FACET_VALUE_MAX);
  const omitted = sql`${sql.lit(FACET_OMITTED)}::jsonb`;
  return sql`(select case when octet_length(o::text) <= ${whole}
      and pg_column_size(o) <= ${stored} then o end
    from (select coalesce(jsonb_object_agg(e.key, case when octet_length(e.value::text) <= ${each}
        then e.value else ${omitted} end), '{}'::jsonb) as o
      from jsonb_each(${fields}) e) x)`;
}

function strictPlan(rows: readonly LocalePlanRow[]): LocalePlan {
  return {
    languages: rows.map((l) => l.code),
    defaultLanguage: rows[0]?.code ?? "",
    policy: { policy: "strict", chains: {} },
  };
}

/** The refresher registered in the publication hook; leaves what it serves for the sync log. */
export async function refreshPublicItemsOfGroup(
  tx: Db,
  change: PublicationChange,
): Promise<void> {
  change.served = await refreshPublicItems(
    tx,
    change.siteId,
    change.groupId,
    change,
  );
}

/** Rebuilds every row of a site; called after its locale policy or languages change. */
export async function rebuildPublicItems(
  db: Db,
  siteId: string,
): Promise<void> {
  await refreshPublicItems(db, siteId, null);
}

/** What the sync log recorded for the group, as JSON: its refresher compares it with `served`. */
function recordedSyncState(
  siteId: string,
  groupId: string,
): RawBuilder<unknown> {
  return sql`(select coalesce(json_agg(json_build_object('locale', locale,
      'model_id', model_id, 'fingerprint', fingerprint)), '[]'::json)
    from sync_entry_state
    where site_id = ${siteId} and group_id = ${groupId})`;
}
