// Parses the query strings of `/v1/_search` and `/v1/_search/suggest` into search requests.
import { PUBLIC_QUERY_PARAMETERS } from "../public/query_parameters.ts";
import type { SiteRecord } from "../sites/site_store.ts";
import { boundedInt, singleParams } from "../sync/query.ts";
import { searchWords } from "./words.ts";

/** Limits of search (our choice where spec 3 is silent) and of suggestions (spec 3 part 8). */
export const SEARCH_LIMITS = {
  q: { min: 1, max: 200 },
  words: 32,
  limit: { min: 1, max: 50, default: 10 },
  suggestQ: { min: 2, max: 100 },
  suggestLimit: { min: 1, max: 10, default: 5 },
} as const;

/** A parsed request, or the reason it is `public_search_invalid`. */
export type ParsedSearch =
  | {
    ok: true;
    q: string;
    words: string[];
    locale: string;
    limit: number;
    cursor?: string;
  }
  | { ok: false; message: string };

/** Parses a search (`suggest: false`) or suggestion query for `site`. */
export function parseSearchQuery(
  url: URL,
  site: SiteRecord,
  suggest: boolean,
): ParsedSearch {
  const parsed = singleParams(
    url,
    suggest ? PUBLIC_QUERY_PARAMETERS.suggest : PUBLIC_QUERY_PARAMETERS.search,
  );
  if (!parsed.ok) return parsed;
  const { q, locale, limit: rawLimit, cursor } = parsed.params;
  const bounds = suggest ? SEARCH_LIMITS.suggestQ : SEARCH_LIMITS.q;
  if (q === undefined) return { ok: false, message: "Expected q" };
  const length = [...q].length;
  if (length < bounds.min || length > bounds.max) {
    return {
      ok: false,
      message: `Expected q of ${bounds.min} to ${bounds.max} characters`,
    };
  }
  const words = [...new Set(searchWords(q))];
  if (words.length === 0) {
    return { ok: false, message: "Expected q to hold a word" };
  }
  if (words.length > SEARCH_LIMITS.words) {
    return {
      ok: false,
      message: `Expected at most ${SEARCH_LIMITS.words} words in q`,
    };
  }
  if (suggest && locale === undefined) {
    return { ok: false, message: "Expected locale" };
  }
  const language = locale ?? site.defaultLanguage;
  if (!site.languages.includes(language)) {
    return { ok: false, message: `Unknown language "${language}"` };
  }
  const lim = suggest ? SEARCH_LIMITS.suggestLimit : SEARCH_LIMITS.limit;
  const limit = boundedInt(rawLimit, lim.min, lim.max, lim.default);
  if (limit === null) {
    return {
      ok: false,
      message: `Expected limit from ${lim.min} to ${lim.max}`,
    };
  }
  return { ok: true, q, words, locale: language, limit, cursor };
}
