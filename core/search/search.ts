// Live search over `search_documents` (spec 3 part 4.7): ranked, keyset paged; nothing about a query is stored.
import { type RawBuilder, sql } from "kysely";
import type { Db } from "../db/database.ts";
import { decodeCursor, encodeCursor, queryDigest } from "../public/cursor.ts";
import {
  type DocumentRow as Row,
  newestDocuments,
  rankOf,
  RESULT_COLUMNS,
  type SearchResult,
  statementRunner,
  stemWords,
  titleWordDocuments,
  topRankByTitle,
  toResult,
  typeFilter,
  type WalkStart,
} from "./matching.ts";
import type { SearchPlan } from "./plan.ts";
import type { PublicContext } from "../public/request_context.ts";

export type { SearchResult };

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

/** Searches; `every word must match` per type, ranked by the plan, newest next, keyset paged. */
export async function search(
  ctx: {
    db: Db;
    clock: { now(): Date };
    /**
     * The public read's context: the statements then confirm a remembered one (a stale one
     * throws `StaleContext`, request_context.ts) and keep their compiled text.
     */
    context?: PublicContext;
  },
  plan: SearchPlan,
  request: SearchRequest,
): Promise<{ ok: true; answer: SearchPage } | Refusal> {
  const { db } = ctx;
  const binding = queryDigest([
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
  const top = Math.max(
    0,
    ...plan.types.flatMap((t) => t.rank.map((r) => r.weight)),
  );
  const run = statementRunner(db, ctx.context, [
    plan.digest,
    plan.types.map((t) => t.titleKey),
    request.siteId,
    request.locale,
    request.words,
    request.limit,
    after,
  ]);
  if (after !== null && Number(after[0]) !== top) {
    const rows = await run(
      "stave_search_all",
      () => statements(plan, request, top, after).everyMatch,
      "entry_id",
    );
    return {
      ok: true,
      answer: await toPage(ctx, plan, request, binding, rows),
    };
  }
  const both = await run(
    "stave_search_first",
    () => statements(plan, request, top, after).first,
    "entry_id",
  );
  const probed = both.filter((r) => !r.every);
  const rows = probed.length > request.limit
    ? probed
    : both.filter((r) => r.every);
  return { ok: true, answer: await toPage(ctx, plan, request, binding, rows) };
}

/** The statements of a search: every match ranked, and the first look with it as fallback. */
function statements(
  plan: SearchPlan,
  request: SearchRequest,
  top: number,
  after: [number, string, string] | null,
): {
  everyMatch: RawBuilder<Row>;
  first: RawBuilder<Row & { every: boolean }>;
} {
  const stems = stemWords(request.words);
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
    sql`${RESULT_COLUMNS}, case d.model_id ${rank} else 0 end as rank`;
  const matches = sql.join(parts, sql` or `);
  const keyset = after
    ? sql`and (s.rank < ${after[0]} or (s.rank = ${after[0]} and
        (s.published_at < ${new Date(after[1])} or
         (s.published_at = ${new Date(after[1])} and s.entry_id < ${
      after[2]
    }))))`
    : sql``;
  const everyMatch = sql<Row>`
    select * from (
      select ${columns}
      from search_documents d
      where d.site_id = ${request.siteId} and d.locale = ${request.locale}
        and (${matches})
    ) s
    where true ${keyset}
    order by s.rank desc, s.published_at desc, s.entry_id desc
    limit ${request.limit + 1}
  `;
  // Most answers are all of the highest rank: look for them first among a bounded window of
  // candidates newest first (the newest documents whose title holds every word where the top
  // rank is the title's, else the newest documents), and rank every match only when that falls
  // short.
  const start: WalkStart = after ? [new Date(after[1]), after[2]] : null;
  const candidates = topRankByTitle(plan, top)
    ? titleWordDocuments(request.siteId, request.locale, request.words, start)
    : newestDocuments(request.siteId, request.locale, start);
  // One statement: the first look, and every match ranked only when it fell short (the
  // condition reads the materialized probe once, so PostgreSQL skips that branch otherwise).
  const first = sql<Row & { every: boolean }>`
    with probe as materialized (
      select * from (
        select ${columns}
        from ${candidates}
        where ${matches}
      ) s
      where s.rank = ${top}
      order by s.published_at desc, s.entry_id desc
      limit ${request.limit + 1}
    )
    select * from (
      select p.*, false as every from probe p
      union all
      select e.*, true as every from (${everyMatch}) e
      where (select count(*) from probe) <= ${request.limit}
    ) u
    order by u.every, u.rank desc, u.published_at desc, u.entry_id desc
  `;
  return { everyMatch, first };
}

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

function invalid(message: string): Refusal {
  return { ok: false, code: "public_search_invalid", message };
}

function emptyPage(limit: number): SearchPage {
  return { data: [], page: { limit, has_more: false, next_cursor: null } };
}
