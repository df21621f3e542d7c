// The site search page (`/search`, `/<language>/search`) and its suggestions
// (`/search?suggest=<words>&locale=<language>`), drawn from `/v1/_search` and `/v1/_search/suggest`.
import type { PublicApi } from "./api.ts";
import { addressOf } from "./paths.ts";
import { plainSeo } from "./seo.ts";
import type { SearchHit, SearchView, SiteView } from "./template/mod.ts";

interface Result {
  kind: string;
  model: string;
  slug: string;
  locale: string;
  title?: string;
  summary?: string | null;
}

function hitOf(r: Result, defaultLocale: string): SearchHit {
  return {
    title: r.title ?? r.slug,
    summary: r.summary ?? null,
    href: addressOf(r, defaultLocale),
    kind: r.kind,
  };
}

/** The search page's view; search that cannot answer leaves a notice, never a failed page. */
export async function searchPage(
  api: PublicApi,
  url: URL,
  site: SiteView,
): Promise<SearchView> {
  const query = (url.searchParams.get("q") ?? "").trim();
  const seo = plainSeo(site, query ? `Search: ${query}` : "Search", true);
  const view: SearchView = {
    site,
    seo,
    query,
    hits: [],
    nextHref: null,
    notice: null,
  };
  if (!query) return view;
  if (query.length > 200) {
    view.notice = "That search is too long. Try fewer words.";
    return view;
  }
  const cursor = url.searchParams.get("cursor") ?? undefined;
  let answer;
  try {
    answer = await api.search(query, {
      locale: site.locale,
      limit: 10,
      cursor,
    });
  } catch {
    answer = null;
  }
  if (!answer || !("page" in answer.body)) {
    const code = answer?.body && "error" in answer.body
      ? answer.body.error.code
      : undefined;
    view.notice = code === "search_off"
      ? "Search is switched off on this site."
      : answer && answer.status === 400
      ? "That search could not be read. Try other words."
      : "Search is not available right now. Please try again in a moment.";
    return view;
  }
  view.hits = answer.body.data.map((r) => hitOf(r, site.defaultLocale));
  const next = answer.body.page.next_cursor;
  if (next) {
    const here = new URL(url.pathname, "http://site.invalid");
    here.searchParams.set("q", query);
    here.searchParams.set("cursor", next);
    view.nextHref = here.pathname + here.search;
  }
  return view;
}

/** Suggestions as JSON for the search box: titles, summaries and links built for this site. */
export async function suggestAnswer(
  api: PublicApi,
  url: URL,
  options: { locale: string; defaultLocale: string },
): Promise<Response> {
  const words = url.searchParams.get("suggest") ?? "";
  const locale = url.searchParams.get("locale") ?? options.locale;
  const headers = { "cache-control": "no-store", "x-robots-tag": "noindex" };
  if (words.trim().length < 2 || words.length > 100) {
    return Response.json({ data: [] }, { headers });
  }
  const answer = await api.suggest(words, locale).catch(() => null);
  const data = (answer?.body.data ?? []).map((r) =>
    hitOf(r, options.defaultLocale)
  );
  return Response.json({ data }, { headers });
}
