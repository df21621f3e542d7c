// Suggestions while typing (spec 3 part 4.7): titles starting with the typed words first, from
// the title prefix index; nothing about a query is stored.
import { sql } from "kysely";
import type { Db } from "../db/database.ts";
import { executePrepared } from "../public/prepared.ts";
import {
  type DocumentRow as Row,
  newestDocuments,
  RESULT_COLUMNS,
  stemWords,
  toResult,
  typeFilter,
} from "./matching.ts";
import type { SearchPlan } from "./plan.ts";
import type { SearchRequest, SearchResult } from "./search.ts";

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
  const newest = sql`order by d.published_at desc, d.entry_id desc limit ${n}`;
  // One statement. Titles starting with the words: among the newest documents first (when
  // those hold a full page, it is the newest page overall), else from the title prefix index
  // (0110_search_speed; a byte range rather than LIKE, which a generic plan cannot use), whose
  // plan sorts every match: 0.6 s when nearly every title starts that way. Then titles
  // containing them among the newest documents. Each later part is gated on the earlier falling
  // short (an InitPlan: a One-Time Filter, not run otherwise).
  const found = await executePrepared(
    db,
    "stave_suggest_start",
    sql<Row & { lvl: number }>`
    with recent as materialized (
      select ${columns}, 0 as lvl
      from ${newestDocuments(request.siteId, request.locale)}
      where strpos(d.title_words, ${start}) = 1 and (${matches})
      ${newest}
    ), first as materialized (
      select * from recent where (select count(*) from recent) = ${n}
      union all
      select * from (
        select ${columns}, 0 as lvl
        from search_documents d
        where d.site_id = ${request.siteId} and d.locale = ${request.locale}
          and d.title_words ~>=~ ${start} and d.title_words ~<~ ${
      prefixEnd(start)
    }
          and strpos(d.title_words, ${start}) = 1 and (${matches})
        ${newest}
      ) g
      where (select count(*) from recent) < ${n}
    )
    select * from (
      select * from first
      union all
      select * from (
        select ${columns}, 1 as lvl
        from ${newestDocuments(request.siteId, request.locale)}
        where (${matches}) and ${level} = 1
        ${newest}
      ) c
      where (select count(*) from first) < ${n}
    ) u
    order by u.lvl, u.published_at desc, u.entry_id desc
    limit ${n}
  `,
  );
  if (found.length === request.limit) {
    return found.map((r) => toResult(r, plan));
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
