// The SQL building blocks search and suggestions share: each type's filter and rank over
// `search_documents`, English stems, and the row-to-result shape (spec 3 part 4.7).
import { type RawBuilder, sql } from "kysely";
import type { Db } from "../db/database.ts";
import { executePrepared } from "../public/prepared.ts";
import {
  type PublicContext,
  runConfirming,
} from "../public/request_context.ts";
import type { SearchPlan, TypePlan } from "./plan.ts";
import { lexeme } from "./words.ts";

/** One search result; the caller builds the link. */
export interface SearchResult {
  kind: "page" | "post" | "item";
  model: string;
  slug: string;
  locale: string;
  title: string;
  summary: string;
}

/** A matching document as search and suggestion statements select it. */
export interface DocumentRow {
  entry_id: string;
  model_id: string;
  locale: string;
  slug: string;
  title: string;
  summary: string;
  published_at: Date | string;
  rank: number;
}

/** How many of the newest documents a search or suggestion looks through before ranking all. */
const PROBE_WINDOW = 1000;

/** Where a walk newest first starts: below this (time, entry id). */
export type WalkStart = [Date, string] | null;

/** The condition on `alias`'s time and entry id that starts a newest-first walk below `after`. */
function below(alias: "d" | "t", after: WalkStart): RawBuilder<unknown> {
  return after
    ? sql`and (${sql.ref(`${alias}.published_at`)}, ${
      sql.ref(`${alias}.entry_id`)
    }) < (${after[0]}::timestamptz, ${after[1]}::uuid)`
    : sql``;
}

/**
 * The newest documents of a site and language, at most {@link PROBE_WINDOW}, as the relation
 * `d` (the order index walked for a bounded window); `after` is where the walk starts.
 */
export function newestDocuments(
  siteId: string,
  locale: string,
  after: WalkStart = null,
): RawBuilder<unknown> {
  return sql`(
    select * from search_documents d
    where d.site_id = ${siteId} and d.locale = ${locale} ${below("d", after)}
    order by d.published_at desc, d.entry_id desc
    limit ${PROBE_WINDOW}
  ) d`;
}

/**
 * Runs the statements of one search or suggestion. For a public read (`context` given) through
 * `runConfirming`: the first confirms a remembered context, and each compiled statement is kept
 * under its name and `shape` (everything it is built from, values included), so a repeated
 * search neither builds nor compiles it again. Otherwise as a prepared statement.
 */
export function statementRunner(
  db: Db,
  context: PublicContext | undefined,
  shape: unknown[],
): <R extends object>(
  name: string,
  statement: () => RawBuilder<R>,
  present: keyof R,
) => Promise<R[]> {
  const key = JSON.stringify(shape);
  return (name, statement, present) =>
    context
      ? runConfirming(db, context, name, statement, present, `${name}\n${key}`)
      : executePrepared(db, name, statement());
}

/**
 * Whether every document of the top rank holds every word among its title's whole words, so that
 * the title word lists (migration 0239) find the top of an answer newest first: every type
 * matches whole words and ranks nothing but its title at the top weight (the default ranking).
 */
export function topRankByTitle(plan: SearchPlan, top: number): boolean {
  return top > 0 && plan.types.every((t) =>
    t.mode === "whole_words" &&
    t.rank.every((r) => r.weight !== top || r.key === t.titleKey)
  );
}

/**
 * The newest documents of a site and language whose title holds every one of `words`, at most
 * {@link PROBE_WINDOW}, as the relation `d`: the words' lists in `search_title_words` merged in
 * publication order, so finding a page reads about as many entries as the page needs, however
 * many documents match. `after` (time, entry id) is where the walk starts.
 */
export function titleWordDocuments(
  siteId: string,
  locale: string,
  words: string[],
  after: WalkStart,
): RawBuilder<unknown> {
  const [first, ...rest] = [...new Set(words)];
  const others = rest.map((w) =>
    sql`and exists (
      select 1 from search_title_words o
      where o.site_id = ${siteId} and o.locale = ${locale} and o.word = ${w}
        and o.published_at = t.published_at and o.entry_id = t.entry_id)`
  );
  // Ordered by the list's own columns, and joined on the key alone: an equality on the time as
  // well made PostgreSQL expect one row from the join and sort every entry of a common word
  // (90 ms) instead of walking the list and stopping at a page.
  return sql`(
    select t.entry_id, t.published_at, ${sql.join(DOCUMENT_COLUMNS)}
    from search_title_words t
    join search_documents d on d.site_id = t.site_id and d.entry_id = t.entry_id
    where t.site_id = ${siteId} and t.locale = ${locale} and t.word = ${first} ${
    below("t", after)
  }
      ${sql.join(others, sql` `)}
    order by t.published_at desc, t.entry_id desc
    limit ${PROBE_WINDOW}
  ) d`;
}

/** The columns of `search_documents` the statements read but its key and time. */
const DOCUMENT_COLUMNS = [
  "site_id",
  "group_id",
  "model_id",
  "locale",
  "slug",
  "title",
  "summary",
  "is_english",
  "field_words",
  "field_stems",
  "title_words",
  "words",
  "stems",
  "parts",
].map((c) => sql.ref(`d.${c}`));

/** The columns of a {@link DocumentRow} but its rank. */
export const RESULT_COLUMNS =
  sql`d.entry_id, d.model_id, d.locale, d.slug, d.title, d.summary, d.published_at`;

export function toResult(row: DocumentRow, plan: SearchPlan): SearchResult {
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

/**
 * The English stems of the query words, computed by the search statement itself: each is an
 * uncorrelated subquery, which PostgreSQL runs once per execution (an InitPlan). Asking for them
 * first was a round trip of its own on every search. A stop word keeps its own form, as in the
 * documents (index_documents.ts).
 */
export function stemWords(words: string[]): RawBuilder<string>[] {
  return words.map((w) =>
    sql<
      string
    >`(select coalesce((ts_lexize('english_stem', ${w}::text))[1], ${w}::text))`
  );
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
  stems: RawBuilder<string>[],
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
        return sql`(case when d.is_english then strpos(${stemText}, ' ' || ${
          stems[i]
        } || ' ') > 0 else ${whole} end)`;
      }),
      sql` and `,
    )
  })`;
}

/** The type's filter: its model, an index prefilter on the tsvector columns, then the exact rule. */
export function typeFilter(
  t: TypePlan,
  words: string[],
  stems: RawBuilder<string>[],
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
    // Stems are letters only (words are runs of letters, marks and digits): quoting is enough.
    const stemQ = sql.join(
      full.map((s) => sql`(('''' || ${s} || '''')::tsquery)`),
      sql` && `,
    );
    const lastQ = prefixLast
      ? sql` and d.words @@ ${lexeme(words[last], true)}::tsquery`
      : sql``;
    prefilter = full.length === 0
      ? sql`d.words @@ ${wholeQ}::tsquery`
      : sql`(d.words @@ ${wholeQ}::tsquery or (d.stems @@ (${stemQ})${lastQ}))`;
  }
  return sql<boolean>`(d.model_id = ${t.model.id} and ${prefilter} and ${
    holdsAll(t, t.matchKeys, words, stems, prefixLast)
  })`;
}

/** The highest weight among ranked fields that each hold every word (untuned: title 10). */
export function rankOf(
  t: TypePlan,
  words: string[],
  stems: RawBuilder<string>[],
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
