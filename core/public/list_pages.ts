// The page queries of GET /v1/{model}: published, manual or computed order over `public_items`,
// and sorted pages driven by the typed sort keys of `public_item_values` (core/public/list.ts).
import { type RawBuilder, sql } from "kysely";
import type { Db } from "../db/database.ts";
import type { PublicRow } from "./items.ts";
import { invalid, type ListQuery } from "./list_params.ts";
import type { ListCondition, SortPlan } from "./list_plan.ts";
import { type PublicContext, runConfirming } from "./request_context.ts";
import { FACET_OMITTED, VALUE_TEXT_MAX } from "./projection.ts";

/**
 * A page row: the item and the key its cursor is made of. Columns a page does not need are not
 * read (see {@link RowRead}); `k` and `k_null` only in manual order and sorted pages.
 */
export type PageRow = PublicRow & {
  /** PostgreSQL's text of the instant: exact to the microsecond, so published-order cursors use it. */
  published_at: string | null;
  version_id: string;
  k?: unknown;
  k_null?: number;
};

/**
 * What a page reads of each row besides id, slug, language and published time. Every column and
 * JSON value the driver parses costs the service CPU per row (a `fields` selection read as the
 * whole object and four columns no page used were an eighth of the client's time per statement).
 */
export interface RowRead {
  /** The `fields` keys shaping needs (null: all of them). Absent keys read as null. */
  fieldKeys: string[] | null;
  /** Expansion binds its cursors to the version. */
  versionId: boolean;
  versionNumber: boolean;
}

/** What every page query of one list shares. */
export interface PageBase {
  siteId: string;
  modelId: string;
  locale: string;
  conditions: ListCondition[];
  /** Rows to fetch: the page size plus one, to know whether more follow. */
  limit: number;
  /** The request's context; the first page statement confirms it when it is a remembered one. */
  context: PublicContext;
  read: RowRead;
}

const FIELDS = sql`p.fields`;
const FACETS = sql`s.facets`;
const OMITTED = sql`${sql.lit(FACET_OMITTED)}::jsonb`;
const TEXT_MAX = sql.lit(VALUE_TEXT_MAX);
/** An instant as a sorted page's cursor holds it (`to_char` in {@link sortedByValues}). */
const CURSOR_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;

/**
 * The columns of a page row. The published time is text: parsed into a `Date` and formatted again
 * it cost more than the rest of a row (core/public/instants.ts). A selection reads each selected
 * key's JSON text in its own column ({@link selectedColumn}), made into `fields` by
 * {@link withSelectedFields}: PostgreSQL prints each value as it is stored instead of building
 * and printing a new object, and a plain string needs no parsing (docs/benchmarks.md).
 */
function columns(read: RowRead): RawBuilder<unknown> {
  const parts = [
    sql`p.group_id, p.slug, p.served_locale, p.published_at::text as published_at`,
  ];
  if (read.versionId) parts.push(sql`p.version_id`);
  if (read.versionNumber) parts.push(sql`p.version_number`);
  const keys = read.fieldKeys;
  if (keys === null) parts.push(FIELDS);
  else {
    for (let i = 0; i < keys.length; i++) {
      parts.push(
        sql`(p.fields -> ${keys[i]}::text)::text as ${
          sql.ref(selectedColumn(i))
        }`,
      );
    }
  }
  return sql.join(parts);
}

/** The column holding the JSON text of the selection's `i`-th key. */
function selectedColumn(i: number): string {
  return `fv${i}`;
}

/** Sets `fields` of rows read with a selection from their selected keys' columns. */
function withSelectedFields(rows: PageRow[], read: RowRead): PageRow[] {
  const keys = read.fieldKeys;
  if (keys === null) return rows;
  const names = keys.map((_, i) => selectedColumn(i));
  for (let r = 0; r < rows.length; r++) {
    const row = rows[r] as PageRow & Record<string, unknown>;
    const fields: Record<string, unknown> = {};
    for (let i = 0; i < keys.length; i++) {
      fields[keys[i]] = valueOfJsonText(row[names[i]] as string | null);
    }
    row.fields = fields;
  }
  return rows;
}

/**
 * The value of a JSON text PostgreSQL printed, null for SQL null (an absent key). PostgreSQL
 * escapes every quote, backslash and control character, so a string without a backslash is the
 * text between its quotes: the same value `JSON.parse` gives, without parsing.
 */
export function valueOfJsonText(text: string | null): unknown {
  if (text === null) return null;
  if (text.charCodeAt(0) === 34 && text.indexOf("\\") === -1) {
    return text.slice(1, -1);
  }
  return JSON.parse(text);
}

/** A page in published or manual order, or sorted by a value computed from the JSON fields. */
export async function scanned(
  db: Db,
  base: PageBase,
  order: string,
  sort: SortPlan | null,
  after: unknown[] | null,
): Promise<PageRow[]> {
  const build = () => {
    const { key, orderBy, keyset } = ordering(order, sort, after);
    const where = [
      sql`p.site_id = ${base.siteId}`,
      sql`p.model_id = ${base.modelId}`,
      sql`p.requested_locale = ${base.locale}`,
      ...base.conditions.map((c) => c.on(FIELDS)),
      ...(keyset ? [keyset] : []),
    ];
    const manualJoin = order === "manual" && !sort
      ? sql`left join public_manual_order m on m.site_id = p.site_id and m.model_id = p.model_id and m.group_id = p.group_id`
      : sql``;
    // In published order the cursor uses `published_at`, already text: no key columns.
    const keyed = order === "manual" || sort !== null;
    return sql<PageRow>`
      select ${columns(base.read)}${
      keyed ? sql`, ${key} as k, (${key} is null)::int as k_null` : sql``
    }
      from public_items p ${manualJoin}
      where ${sql.join(where, sql` and `)}
      order by ${orderBy}
      limit ${pageLimit(base.limit)}
    `;
  };
  // The plain published-order page (4 shapes: asc/desc, with or without a cursor) is prepared.
  // Filtered pages are not: which index serves them (the GIN index on `fields` or the order
  // index) depends on how rare the filtered values are, and a prepared statement's generic plan
  // would fix one choice for every value. Manual order and computed sorts were never measured
  // as hot, so they run unprepared too.
  const prepared = base.conditions.length === 0 && !sort && order !== "manual";
  // A first page of that kind is built from these values alone: its compiled statement is kept.
  const kept = prepared && after === null
    ? JSON.stringify([
      base.siteId,
      base.modelId,
      base.locale,
      order,
      base.limit,
      base.read.fieldKeys,
      base.read.versionId,
      base.read.versionNumber,
    ])
    : null;
  return withSelectedFields(
    await runConfirming(
      db,
      base.context,
      prepared ? "stave_public_page" : null,
      build,
      "group_id",
      kept,
    ),
    base.read,
  );
}

/**
 * A page sorted by a field `public_item_values` holds: items with a value come from an index
 * range scan in sort order (filtered on the index entries, then probed by primary key), then
 * (only when the page is not full yet) items without one, by id. Same order and cursors as
 * {@link scanned}.
 */
export async function sortedByValues(
  db: Db,
  base: PageBase,
  sort: SortPlan,
  query: ListQuery,
  after: unknown[] | null,
): Promise<PageRow[]> {
  const bad = () =>
    invalid("Invalid cursor: it cannot be read; start from the first page");
  const col = sql.ref(`s.${sort.indexed}`);
  const text = sort.indexed === "text_value";
  const typed = (v: string) =>
    sort.indexed === "num_value"
      ? sql`${v}::numeric`
      : sort.indexed === "time_value"
      ? sql`${v}::timestamptz`
      : sql`(${v}::text collate "C")`;
  // The index keeps a long string's first characters; the page orders by the whole value, read
  // from the item where the index entry is such a prefix (its ties come after the index order).
  const indexed = (v: string) =>
    text ? sql`(left(${v}::text, ${TEXT_MAX}) collate "C")` : typed(v);
  // The item's side (`p`) is the lateral read below, which has a `fields` column only without a
  // selection: the whole value is its own column.
  const exact = text
    ? sql`(case when char_length(s.text_value) < ${TEXT_MAX} then s.text_value
        else p.sort_text collate "C" end)`
    : col;
  const sortText = text
    ? sql`, p.fields ->> ${sort.key}::text as sort_text`
    : sql``;
  // A timestamp's cursor value is written in UTC with every digit, whatever the session's zone.
  const k = sort.indexed === "time_value"
    ? sql`to_char(s.time_value at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`
    : exact;
  const dir = sort.desc ? sql`desc` : sql`asc`;
  let inNulls = false;
  let afterId: string | null = null;
  let afterValue: string | null = null;
  if (after) {
    const [wasNull, value, id] = after;
    if (typeof id !== "string" || (wasNull !== 0 && wasNull !== 1)) bad();
    if (wasNull === 0 && typeof value !== "string") bad();
    inNulls = wasNull === 1;
    afterId = id as string;
    afterValue = wasNull === 0 ? value as string : null;
    // Signed, but perhaps by a version that wrote instants another way: refused, not cast.
    if (
      sort.indexed === "time_value" && afterValue !== null &&
      !CURSOR_INSTANT.test(afterValue)
    ) bad();
  }
  const rows: PageRow[] = [];
  if (!inNulls) {
    const where = [
      sql`s.site_id = ${base.siteId}`,
      sql`s.model_id = ${base.modelId}`,
      sql`s.requested_locale = ${base.locale}`,
      sql`s.field_key = ${sort.key}`,
      sql`${col} is not null`,
    ];
    // A number range or equality on the sorted field is the index range itself. An entry has a
    // `num_value` exactly when the item's value is a JSON number, and it is that number, so the
    // range decides the filter alone: its row conditions, which read the value again from the
    // entry's copy and from `fields`, are left out (on the bench's filtered page they ran for 321
    // entries to keep 21).
    const own = query.filters.get(sort.key);
    const decidedByRange = sort.indexed === "num_value" && own !== undefined;
    if (own?.kind === "range" && sort.indexed === "num_value") {
      if (own.lower) {
        const op = own.lower.op === "gt" ? sql`>` : sql`>=`;
        where.push(sql`${col} ${op} ${typed(own.lower.value)}`);
      }
      if (own.upper) {
        const op = own.upper.op === "lt" ? sql`<` : sql`<=`;
        where.push(sql`${col} ${op} ${typed(own.upper.value)}`);
      }
    }
    // Equality on the sorted field is the index range itself (for text and instants it stays a
    // row condition: the index keeps a long string's prefix, and one instant has many spellings).
    if (own?.kind === "eq") {
      const values = own.values.map(indexed);
      where.push(
        values.length === 1
          ? sql`${col} = ${values[0]}`
          : sql`${col} in (${sql.join(values)})`,
      );
    }
    if (afterValue !== null) {
      const v = typed(afterValue);
      const at = indexed(afterValue);
      const same = sql`${exact} = ${v} and s.group_id > ${afterId}::uuid`;
      where.push(
        sort.desc
          ? sql`${col} <= ${at} and (${exact} < ${v} or (${same}))`
          : sql`${col} >= ${at} and (${exact} > ${v} or (${same}))`,
      );
    }
    // Conditions run on the index entries' copy of the item's short values (facets), so only
    // survivors are probed. Where the copy lacks the entry a condition reads (too long, or no
    // copy), the index entry passes and the probe reads `p.fields`. Exact: a usable copy holds
    // that entry as `fields` does (or lacks it as `fields` does), and the condition reads no other.
    const probe: RawBuilder<unknown>[] = [];
    for (const c of base.conditions) {
      if (decidedByRange && c.key === sort.key) continue;
      if (c.key === null) {
        probe.push(c.on(FIELDS));
        continue;
      }
      const usable = sql`(s.facets is not null
        and (s.facets -> ${c.key}::text) is distinct from ${OMITTED})`;
      where.push(sql`(not ${usable} or ${c.on(FACETS)})`);
      probe.push(sql`(${usable} or ${c.on(FIELDS)})`);
    }
    const conditions = probe.length > 0
      ? sql`and ${sql.join(probe, sql` and `)}`
      : sql``;
    // `offset 0` keeps the item lookup a per-row probe, so the sorted range scan drives the plan.
    const page = sql<PageRow>`
      select p.*, ${k} as k, 0 as k_null
      from public_item_values s
      cross join lateral (
        select ${columns(base.read)}${sortText} from public_items p
        where p.site_id = s.site_id and p.model_id = s.model_id
          and p.requested_locale = s.requested_locale and p.group_id = s.group_id
          ${conditions}
        offset 0
      ) p
      where ${sql.join(where, sql` and `)}
      order by ${col} ${dir}, ${
      text ? sql`${exact} ${dir},` : sql``
    } s.group_id asc
      limit ${pageLimit(base.limit)}
    `;
    // Prepared with its filters too. When the page size was a bound parameter, the generic plan
    // of a filtered page read the whole range and sorted it (36-50 ms instead of about 1 ms).
    // With the size written in, the generic plan is the index order with its limit, the plan
    // every custom one chose (docs/benchmarks.md, issue 18 round two): with the range and any
    // equality on the sorted field in the index condition, no other plan reads fewer entries.
    const result = await runConfirming(
      db,
      base.context,
      "stave_public_sorted",
      page,
      "group_id",
    );
    rows.push(...withSelectedFields(result, base.read));
  }
  // Any filter on the sorted field matches only items that have its value.
  if (rows.length >= base.limit || query.filters.has(sort.key)) return rows;
  const where = [
    sql`p.site_id = ${base.siteId}`,
    sql`p.model_id = ${base.modelId}`,
    sql`p.requested_locale = ${base.locale}`,
    ...base.conditions.map((c) => c.on(FIELDS)),
    sql`not exists (select 1 from public_item_values s where s.site_id = p.site_id
      and s.model_id = p.model_id and s.requested_locale = p.requested_locale
      and s.group_id = p.group_id and s.field_key = ${sort.key} and ${col} is not null)`,
    ...(inNulls ? [sql`p.group_id > ${afterId}::uuid`] : []),
  ];
  const result = await runConfirming(
    db,
    base.context,
    null,
    sql<PageRow>`
    select ${columns(base.read)}, null as k, 1 as k_null
    from public_items p
    where ${sql.join(where, sql` and `)}
    order by p.group_id asc
    limit ${base.limit - rows.length}
  `,
    "group_id",
  );
  rows.push(...withSelectedFields(result, base.read));
  return rows;
}

/**
 * The page size written into the statement, not bound. A bound `limit $n` made every prepared
 * page plan again on each execution: its generic plan, costed for a tenth of the table, never
 * beat the custom plans, so PostgreSQL kept planning (0.07 ms of its CPU per read). The size is
 * checked (1 to 101), so at most 101 shapes per statement exist.
 */
function pageLimit(limit: number): RawBuilder<unknown> {
  if (!Number.isInteger(limit) || limit < 1 || limit > 101) {
    throw new Error(`page limit out of range: ${limit}`);
  }
  return sql.lit(limit);
}

const MANUAL_LAST = 2147483647;

function ordering(
  order: string,
  sort: SortPlan | null,
  after: unknown[] | null,
): {
  key: RawBuilder<unknown>;
  orderBy: RawBuilder<unknown>;
  keyset: RawBuilder<unknown> | null;
} {
  const bad = () =>
    invalid("Invalid cursor: it cannot be read; start from the first page");
  if (sort) {
    const dir = sort.desc ? sql`desc` : sql`asc`;
    const orderBy =
      sql`(${sort.value} is null) asc, ${sort.value} ${dir}, p.group_id asc`;
    if (!after) return { key: sort.value, orderBy, keyset: null };
    const [wasNull, value, id] = after;
    if (typeof id !== "string" || (wasNull !== 0 && wasNull !== 1)) bad();
    if (wasNull === 1) {
      return {
        key: sort.value,
        orderBy,
        keyset: sql`(${sort.value} is null and p.group_id > ${id}::uuid)`,
      };
    }
    if (typeof value !== "string") bad();
    const v = sql`${value}::${sql.raw(sort.cast)}`;
    const typed = sort.cast === "text" ? sql`(${v} collate "C")` : v;
    const beyond = sort.desc
      ? sql`${sort.value} < ${typed}`
      : sql`${sort.value} > ${typed}`;
    return {
      key: sort.value,
      orderBy,
      keyset:
        sql`(${sort.value} is null or ${beyond} or (${sort.value} = ${typed} and p.group_id > ${id}::uuid))`,
    };
  }
  if (order === "manual") {
    const key = sql`coalesce(m.position, ${sql.lit(MANUAL_LAST)})`;
    const orderBy = sql`${key} asc, p.group_id asc`;
    if (!after) return { key, orderBy, keyset: null };
    const [position, id] = after;
    if (typeof position !== "number" || typeof id !== "string") bad();
    return {
      key,
      orderBy,
      keyset: sql`(${key}, p.group_id) > (${position}::int, ${id}::uuid)`,
    };
  }
  const desc = order === "desc";
  const key = sql`p.published_at`;
  const orderBy = desc
    ? sql`p.published_at desc, p.group_id desc`
    : sql`p.published_at asc, p.group_id asc`;
  if (!after) return { key, orderBy, keyset: null };
  const [at, id] = after;
  if (typeof at !== "string" || typeof id !== "string") bad();
  return {
    key,
    orderBy,
    keyset: desc
      ? sql`(p.published_at, p.group_id) < (${at}::timestamptz, ${id}::uuid)`
      : sql`(p.published_at, p.group_id) > (${at}::timestamptz, ${id}::uuid)`,
  };
}
