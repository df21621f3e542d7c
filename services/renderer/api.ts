// The renderer's client of the public read API: plain HTTP, as any front end reads a site.
import type { ServedRegion } from "../../core/chrome/region_answer.ts";
import { type Clock, MAX_REUSE_MS, Reuse } from "./reuse.ts";

export type { ServedRegion };

/** One answer of the public API: its status and parsed JSON body (null when not JSON). */
export interface ApiAnswer<T = unknown> {
  status: number;
  body: T;
}

/** Raised when the public API cannot be reached or answers 5xx: the renderer shows 503. */
export class ApiUnavailable extends Error {
  override name = "ApiUnavailable";
}

/** A chrome link as `/v1/_chrome` serves it. */
export interface ChromeLink {
  id: string;
  label: string;
  href: string;
  children?: ChromeLink[];
}

/** `/v1/_chrome`'s `data`. */
export interface Chrome {
  locale: string;
  menus: Record<string, { lang: string; items: ChromeLink[] }>;
  placements: { header: string | null; footer: string | null };
  footer_note: { lang: string; text: string } | null;
  /** The active template's regions in its order, each with its blocks in this language. */
  regions: ServedRegion[];
}

/** A redirect rule of `/v1/_redirects`. */
export interface RedirectRule {
  from: string;
  match: "exact" | "pattern";
  status: 301 | 302 | 307 | 308 | 410 | 451;
  to: string | null;
}

/** Options of {@link PublicApi}. */
export interface PublicApiOptions {
  clock?: Clock;
  fetch?: typeof fetch;
  /** Per-request budget; a slower answer counts as unavailable. */
  timeoutMs?: number;
}

/** Reads one site's public API at `origin` (whose host is the site's domain). */
export class PublicApi {
  readonly #fetch: typeof fetch;
  readonly #timeoutMs: number;
  readonly #chrome: Reuse<ApiAnswer<{ data?: Chrome }>>;
  readonly #redirects: Reuse<RedirectRule[]>;
  readonly #lists: Reuse<ApiAnswer>;
  readonly #searchOff: Reuse<boolean>;

  constructor(readonly origin: string, options: PublicApiOptions = {}) {
    const clock = options.clock ?? Date.now;
    this.#fetch = options.fetch ?? fetch;
    this.#timeoutMs = options.timeoutMs ?? 10_000;
    this.#chrome = new Reuse(MAX_REUSE_MS, clock);
    this.#redirects = new Reuse(MAX_REUSE_MS, clock, 1);
    // Latest-entries lists and the posts index reuse the same window as chrome.
    this.#lists = new Reuse(MAX_REUSE_MS, clock, 256);
    this.#searchOff = new Reuse(MAX_REUSE_MS, clock);
  }

  /** GET `path` with `query`; never throws for 4xx. */
  async get<T = unknown>(
    path: string,
    query: Record<string, string | undefined> = {},
  ): Promise<ApiAnswer<T>> {
    const url = new URL(path, this.origin);
    for (const [k, v] of Object.entries(query)) {
      if (v !== undefined) url.searchParams.set(k, v);
    }
    let response: Response;
    try {
      response = await this.#fetch(url, {
        headers: { accept: "application/json" },
        signal: AbortSignal.timeout(this.#timeoutMs),
      });
    } catch (error) {
      throw new ApiUnavailable(
        `Cannot read ${url.pathname}: ${(error as Error).message}`,
      );
    }
    const text = await response.text();
    if (response.status >= 500 && response.status !== 503) {
      throw new ApiUnavailable(
        `Reading ${url.pathname} answered ${response.status}`,
      );
    }
    let body: unknown = null;
    try {
      body = JSON.parse(text);
    } catch { /* not JSON: body stays null */ }
    return { status: response.status, body: body as T };
  }

  /** `/v1/_chrome` of `locale` (absent: the default language), reused at most 30 s. */
  chrome(locale?: string): Promise<ApiAnswer<{ data?: Chrome }>> {
    return this.#chrome.get(
      locale ?? "",
      () => this.get("/v1/_chrome", { locale }),
    );
  }

  /** The accepted redirect rules, reused at most 30 s per instance. */
  redirects(): Promise<RedirectRule[]> {
    return this.#redirects.get("all", async () => {
      const answer = await this.get<{ data?: RedirectRule[] }>(
        "/v1/_redirects",
      );
      return answer.status === 200 ? answer.body?.data ?? [] : [];
    });
  }

  /**
   * Whether site search is off, reused at most 30 s: the smallest suggestion read answers
   * `404 search_off` when it is (its other answers say search is on, even when it cannot answer).
   */
  searchOff(locale: string): Promise<boolean> {
    return this.#searchOff.get(locale, async () => {
      const answer = await this.get<{ error?: { code?: string } }>(
        "/v1/_search/suggest",
        { q: "aa", locale, limit: "1" },
      );
      return answer.status === 404 && answer.body?.error?.code === "search_off";
    });
  }

  /** A list read reused at most 30 s (posts index, latest entries). */
  list(
    model: string,
    query: Record<string, string | undefined>,
  ): Promise<ApiAnswer> {
    const key = `${model}?${JSON.stringify(query)}`;
    return this.#lists.get(key, () => this.get(`/v1/${model}`, query));
  }
}
