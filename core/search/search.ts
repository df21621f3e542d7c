// Live search and suggestions over `search_documents` (spec 3 part 4.7). Nothing about a query is stored.
import { type RawBuilder, sql } from "kysely";
import type { Db } from "../db/database.ts";
import { decodeCursor, encodeCursor, queryDigest } from "../public/cursor.ts";
import type { SearchPlan, TypePlan } from "./plan.ts";
import { lexeme } from "./words.ts";
import { executePrepared } from "../public/prepared.ts";

/** One search result; the caller builds the link. */
export interface SearchResult {
  kind: "page" | "post" | "item";
  model: string;
  slug: string;
  locale: string;
  title: string;
  summary: string;
}

/** What a search or suggestion asks, already validated. */
export interface SearchRequest {
  siteId: string;
  locale: string;
  /** Normalised words of `q`, at least one. */
  words: string[];
  limit: number;
  cursor?: string;
}

/** A search answer page. */
export interface SearchPage {
  data: SearchResult[];
  page: { limit: number; has_more: boolean; next_cursor: string | null };
}

type Refusal = { ok: false; code: "public_search_invalid"; message: string };

interface Row {
  entry_id: string;
  model_id: string;
  locale: string;
  slug: string;
  title: string;
  summary: string;
  published_at: Date | string;
  rank: number;
}

/** Searches; `every word must match` per type, ranked by the plan, newest next, keyset paged. */
export async function search(
  ctx: { db: Db; clock: { now(): Date } },
  plan: SearchPlan,
  request: SearchRequest,
): Promise<{ ok: true; answer: SearchPage } | Refusal> {
  const { db } = ctx;
  const binding = await queryDigest([
    "search",
    request.siteId,
    request.locale,
    request.words,
  ]);
  let after: [number, string, string] | null = null;
  if (request.cursor !== undefined) {
    const decoded = await decodeCursor(db, request.cursor, ctx.clock.now());
    if (!decoded || decoded.q !== binding) {
      return invalid(
        "Cannot use the cursor: send it back with the same q and locale",
      );
    }
    if (decoded.x !== plan.digest) {
      return invalid(
        "The cursor is from before a ranking or matching change: search again",
      );
    }
    after = decoded.k as [number, string, string];
  }
  if (plan.types.length === 0) {
    return { ok: true, answer: emptyPage(request.limit) };
  }
  const stems = await stemWords(db, request.words, plan);
  const parts = plan.types.map((t) =>
    typeFilter(t, request.words, stems, false)
  );
  const rank = sql.join(
    plan.types.map((t) =>
      sql`when ${t.model.id} then ${rankOf(t, request.words, stems)}`
    ),
    sql` `,
  );
  const columns =
    sql`d.entry_id, d.model_id, d.locale, d.slug, d.title, d.summary, d.published_at,
        case d.model_id ${rank} else 0 end as rank`;
  const matches = sql.join(parts, sql` or `);
  // Most answers are all of the highest rank: look for them among the newest documents first
  // (the order index walked for a bounded window), and rank every match only when that falls short.
  const top = Math.max(
    0,
    ...plan.types.flatMap((t) => t.rank.map((r) => r.weight)),
  );
  if (after === null || Number(after[0]) === top) {
    const seek = after
      ? sql`and (d.published_at, d.entry_id) < (${new Date(
        after[1],
      )}::timestamptz, ${after[2]}::uuid)`
      : sql``;
    const probe = await executePrepared(
      db,
      "stave_search_probe",
      sql<Row>`
      select * from (
        select ${columns}
        from (
          select * from search_documents d
          where d.site_id = ${request.siteId} and d.locale = ${request.locale} ${seek}
          order by d.published_at desc, d.entry_id desc
          limit ${PROBE_WINDOW}
        ) d
        where ${matches}
      ) s
      where s.rank = ${top}
      order by s.published_at desc, s.entry_id desc
      limit ${request.limit + 1}
    `,
    );
    if (probe.length > request.limit) {
      return {
        ok: true,
        answer: await toPage(ctx, plan, request, binding, probe),
      };
    }
  }
  const keyset = after
    ? sql`and (s.rank < ${after[0]} or (s.rank = ${after[0]} and
        (s.published_at < ${new Date(after[1])} or
         (s.published_at = ${new Date(after[1])} and s.entry_id < ${
      after[2]
    }))))`
    : sql``;
  const rows = await executePrepared(
    db,
    "stave_search_all",
    sql<Row>`
    select * from (
      select ${columns}
      from search_documents d
      where d.site_id = ${request.siteId} and d.locale = ${request.locale}
        and (${matches})
    ) s
    where true ${keyset}
    order by s.rank desc, s.published_at desc, s.entry_id desc
    limit ${request.limit + 1}
  `,
  );
  return { ok: true, answer: await toPage(ctx, plan, request, binding, rows) };
}

/** How many of the newest documents a search or suggestion looks through before ranking all. */
const PROBE_WINDOW = 1000;

async function toPage(
  ctx: { db: Db; clock: { now(): Date } },
  plan: SearchPlan,
  request: SearchRequest,
  binding: string,
  rows: Row[],
): Promise<SearchPage> {
  const { db } = ctx;
  const page = rows.slice(0, request.limit);
  const hasMore = rows.length > request.limit;
  const last = page.at(-1);
  return {
    data: page.map((r) => toResult(r, plan)),
    page: {
      limit: request.limit,
      has_more: hasMore,
      next_cursor: hasMore && last
        ? await encodeCursor(db, {
          q: binding,
          k: [
            Number(last.rank),
            new Date(last.published_at).toISOString(),
            last.entry_id,
          ],
          x: plan.digest,
          t: ctx.clock.now().getTime(),
        })
        : null,
    },
  };
}

/**
 * Suggestions: the last word may be unfinished (start of a word; anywhere inside under Parts of
 * words). Title starting with the typed words first, then title containing them, then the rest.
 */
export async function suggest(
  db: Db,
  plan: SearchPlan,
  request: Omit<SearchRequest, "cursor">,
): Promise<SearchResult[]> {
  if (plan.types.length === 0) return [];
  const { words } = request;
  const stems = await stemWords(db, words.slice(0, -1), plan);
  const parts = plan.types.map((t) => typeFilter(t, words, stems, true));
  const start = ` ${words.join(" ")}`;
  const inTitle = sql.join(
    words.map((w, i) =>
      sql`strpos(d.title_words, ${
        i === words.length - 1 ? ` ${w}` : ` ${w} `
      }) > 0`
    ),
    sql` and `,
  );
  const matches = sql.join(parts, sql` or `);
  const columns =
    sql`d.entry_id, d.model_id, d.locale, d.slug, d.title, d.summary, d.published_at, 0 as rank`;
  const level = sql`case when strpos(d.title_words, ${start}) = 1 then 0
      when ${inTitle} then 1 else 2 end`;
  // Titles starting with the words, from the title prefix index (0110_search_speed). A byte
  // range rather than LIKE: a prepared statement's generic plan can use it with the bound values.
  const first = await executePrepared(
    db,
    "stave_suggest_start",
    sql<Row>`
    select ${columns}
    from search_documents d
    where d.site_id = ${request.siteId} and d.locale = ${request.locale}
      and d.title_words ~>=~ ${start} and d.title_words ~<~ ${prefixEnd(start)}
      and strpos(d.title_words, ${start}) = 1 and (${matches})
    order by d.published_at desc, d.entry_id desc
    limit ${request.limit}
  `,
  );
  if (first.length === request.limit) {
    return first.map((r) => toResult(r, plan));
  }
  // Then titles containing them, looked for among the newest documents first.
  const need = request.limit - first.length;
  const next = await executePrepared(
    db,
    "stave_suggest_newest",
    sql<Row>`
    select ${columns}
    from (
      select * from search_documents d
      where d.site_id = ${request.siteId} and d.locale = ${request.locale}
      order by d.published_at desc, d.entry_id desc
      limit ${PROBE_WINDOW}
    ) d
    where (${matches}) and ${level} = 1
    order by d.published_at desc, d.entry_id desc
    limit ${need}
  `,
  );
  if (next.length === need) {
    return [...first, ...next].map((r) => toResult(r, plan));
  }
  const rows = await executePrepared(
    db,
    "stave_suggest_all",
    sql<Row>`
    select ${columns}
    from search_documents d
    where d.site_id = ${request.siteId} and d.locale = ${request.locale}
      and (${matches})
    order by ${level}, d.published_at desc, d.entry_id desc
    limit ${request.limit}
  `,
  );
  return rows.map((r) => toResult(r, plan));
}

/**
 * The least text above every text starting with `prefix`, in byte order (`~<~`): the last code
 * point moved up by one (past the surrogates; a last U+10FFFF is dropped and the one before it
 * moves). UTF-8 keeps code point order, so byte order agrees.
 */
export function prefixEnd(prefix: string): string {
  const points = [...prefix].map((ch) => ch.codePointAt(0)!);
  while (points.length > 0) {
    const last = points.pop()!;
    if (last < 0x10ffff) {
      points.push(last + 1 === 0xd800 ? 0xe000 : last + 1);
      return String.fromCodePoint(...points);
    }
  }
  // Suggestions always pass " <words>": a space is there to move up.
  throw new Error("A prefix of only U+10FFFF characters has no end");
}

function invalid(message: string): Refusal {
  return { ok: false, code: "public_search_invalid", message };
}

function emptyPage(limit: number): SearchPage {
  return { data: [], page: { limit, has_more: false, next_cursor: null } };
}

function toResult(row: Row, plan: SearchPlan): SearchResult {
  const model = plan.types.find((t) => t.model.id === row.model_id)!.model;
  return {
    kind: model.slug === "pages"
      ? "page"
      : model.slug === "posts"
      ? "post"
      : "item",
    model: model.slug,
    slug: row.slug,
    locale: row.locale,
    title: row.title,
    summary: row.summary,
  };
}

/** English stems of the query words, only when some type matches English word forms. */
async function stemWords(
  db: Db,
  words: string[],
  plan: SearchPlan,
): Promise<string[]> {
  if (words.length === 0) return [];
  if (!plan.types.some((t) => t.mode === "english_word_forms")) return words;
  const { rows } = await sql<{ s: string; n: number }>`
    select coalesce((ts_lexize('english_stem', w))[1], w) as s, n
    from unnest(${words}::text[]) with ordinality as u(w, n) order by n
  `.execute(db);
  return rows.map((r) => r.s);
}

/** The concatenated ` word ` text of some fields of the document. */
function fieldsText(
  keys: readonly string[],
  column: "field_words" | "field_stems",
): RawBuilder<string> {
  if (keys.length === 0) return sql<string>`''`;
  return sql<string>`(${
    sql.join(
      keys.map((k) => sql`coalesce(d.${sql.ref(column)}->>${k}, '')`),
      sql` || `,
    )
  })`;
}

/** True when the union of `keys` holds every word under `mode`; the last word may be a prefix. */
function holdsAll(
  t: TypePlan,
  keys: readonly string[],
  words: string[],
  stems: string[],
  prefixLast: boolean,
): RawBuilder<boolean> {
  if (keys.length === 0) return sql<boolean>`false`;
  const text = fieldsText(keys, "field_words");
  const stemText = fieldsText(keys, "field_stems");
  return sql<boolean>`(${
    sql.join(
      words.map((w, i) => {
        const prefix = prefixLast && i === words.length - 1;
        if (t.mode === "parts_of_words") return sql`strpos(${text}, ${w}) > 0`;
        if (prefix) return sql`strpos(${text}, ${` ${w}`}) > 0`;
        const whole = sql`strpos(${text}, ${` ${w} `}) > 0`;
        if (t.mode === "whole_words") return whole;
        return sql`(case when d.is_english then strpos(${stemText}, ${` ${
          stems[i]
        } `}) > 0 else ${whole} end)`;
      }),
      sql` and `,
    )
  })`;
}

/** The type's filter: its model, an index prefilter on the tsvector columns, then the exact rule. */
function typeFilter(
  t: TypePlan,
  words: string[],
  stems: string[],
  prefixLast: boolean,
): RawBuilder<boolean> {
  const last = words.length - 1;
  const wholeQ = words.map((w, i) => lexeme(w, prefixLast && i === last))
    .join(" & ");
  let prefilter: RawBuilder<unknown>;
  if (t.mode === "parts_of_words") {
    prefilter = sql`d.parts @@ ${
      words.map((w) => lexeme(w, true)).join(" & ")
    }::tsquery`;
  } else if (t.mode === "whole_words") {
    prefilter = sql`d.words @@ ${wholeQ}::tsquery`;
  } else {
    const full = prefixLast ? stems.slice(0, last) : stems;
    const stemQ = full.map((s) => lexeme(s)).join(" & ");
    const lastQ = prefixLast
      ? sql` and d.words @@ ${lexeme(words[last], true)}::tsquery`
      : sql``;
    prefilter = full.length === 0
      ? sql`d.words @@ ${wholeQ}::tsquery`
      : sql`(d.words @@ ${wholeQ}::tsquery or (d.stems @@ ${stemQ}::tsquery${lastQ}))`;
  }
  return sql<boolean>`(d.model_id = ${t.model.id} and ${prefilter} and ${
    holdsAll(t, t.matchKeys, words, stems, prefixLast)
  })`;
}

/** The highest weight among ranked fields that each hold every word (untuned: title 10). */
function rankOf(
  t: TypePlan,
  words: string[],
  stems: string[],
): RawBuilder<number> {
  if (t.rank.length === 0) return sql<number>`0`;
  return sql<number>`greatest(${
    sql.join(
      t.rank.map((r) =>
        sql`case when ${
          holdsAll(t, [r.key], words, stems, false)
        } then ${r.weight}::int else 0 end`
      ),
    )
  }, 0)`;
}
