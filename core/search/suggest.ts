// Suggestions while typing (spec 3 part 4.7): titles starting with the typed words first, from
// the title prefix index; nothing about a query is stored.
import { sql } from "kysely";
import type { Db } from "../db/database.ts";
import type { PublicContext } from "../public/request_context.ts";
import {
  type DocumentRow as Row,
  newestDocuments,
  RESULT_COLUMNS,
  statementRunner,
  stemWords,
  toResult,
  typeFilter,
} from "./matching.ts";
import type { SearchPlan } from "./plan.ts";
import type { SearchRequest, SearchResult } from "./search.ts";

/** Past this many titles in the prefix range, suggestions look among the newest documents. */
const PREFIXED_MAX = 200;

/**
 * Suggestions: the last word may be unfinished (start of a word; anywhere inside under Parts of
 * words). Title starting with the typed words first, then title containing them, then the rest.
 */
export async function suggest(
  db: Db,
  plan: SearchPlan,
  request: Omit<SearchRequest, "cursor">,
  /** The public read's context, confirmed by the first statement (see search.ts). */
  context?: PublicContext,
): Promise<SearchResult[]> {
  if (plan.types.length === 0) return [];
  const run = statementRunner(db, context, [
    plan.digest,
    request.siteId,
    request.locale,
    request.words,
    request.limit,
  ]);
  const { words } = request;
  const stems = stemWords(words.slice(0, -1));
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
  const columns = sql`${RESULT_COLUMNS}, 0 as rank`;
  const level = sql`case when strpos(d.title_words, ${start}) = 1 then 0
      when ${inTitle} then 1 else 2 end`;
  const n = request.limit;
  const newest = sql`order by d.published_at desc, d.entry_id desc`;
  const prefixRange =
    sql`d.site_id = ${request.siteId} and d.locale = ${request.locale}
    and d.title_words ~>=~ ${start} and d.title_words ~<~ ${prefixEnd(start)}`;
  // Titles starting with the words, from the title prefix index (0110_search_speed; a byte range
  // rather than LIKE, which a generic plan cannot use), then titles containing them among the
  // newest documents, in one statement. It first counts, up to PREFIXED_MAX + 1, the titles in
  // the prefix range (an index-only scan that stops there), and reads matches only when there
  // are few: with many (nearly every title starts that way) its plan sorted every match, 0.1 s.
  // Each part runs only when the earlier ones call for it (InitPlans: One-Time Filters). It
  // always answers at least one row, carrying the count.
  const counted = await run(
    "stave_suggest_start",
    () =>
      sql<Partial<Row> & { many: string | number }>`
    with starts as materialized (
      select count(*) as many from (
        select 1 from search_documents d where ${prefixRange} limit ${
        PREFIXED_MAX + 1
      }
      ) x
    ), first as materialized (
      select ${columns}, 0 as lvl
      from search_documents d
      where ${prefixRange} and strpos(d.title_words, ${start}) = 1 and (${matches})
        and (select many from starts) <= ${PREFIXED_MAX}
      ${newest}
      limit ${n}
    ), found as (
      select * from first
      union all
      select * from (
        select ${columns}, 1 as lvl
        from ${newestDocuments(request.siteId, request.locale)}
        where (${matches}) and ${level} = 1
        ${newest}
        limit ${n}
      ) c
      where (select count(*) from first) < ${n}
        and (select many from starts) <= ${PREFIXED_MAX}
    )
    select f.*, s.many from starts s left join lateral (
      select * from found u order by u.lvl, u.published_at desc, u.entry_id desc limit ${n}
    ) f on true
  `,
    "many",
  );
  const found = counted.filter((r) => r.entry_id != null) as Row[];
  if (found.length === n) return found.map((r) => toResult(r, plan));
  if (Number(counted[0].many) > PREFIXED_MAX) {
    // Many titles start that way: the newest documents nearly always hold a page of them, which
    // is then the newest page overall; if not, every match is ranked below.
    const recent = await run(
      "stave_suggest_recent",
      () =>
        sql<Row>`
      select ${columns}
      from ${newestDocuments(request.siteId, request.locale)}
      where strpos(d.title_words, ${start}) = 1 and (${matches})
      ${newest}
      limit ${n}
    `,
      "entry_id",
    );
    if (recent.length === n) return recent.map((r) => toResult(r, plan));
  }
  const rows = await run(
    "stave_suggest_all",
    () =>
      sql<Row>`
    select ${columns}
    from search_documents d
    where d.site_id = ${request.siteId} and d.locale = ${request.locale}
      and (${matches})
    order by ${level}, d.published_at desc, d.entry_id desc
    limit ${request.limit}
  `,
    "entry_id",
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
