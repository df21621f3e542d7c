// The renderer's client of the public read API: the same @stave/client a front end installs
// (imported from the repository), with answers reused as the template rules allow.
import {
  createClient,
  type ListOptions,
  type SearchResponse,
  StaveClient,
  StaveError,
  type SuggestResponse,
} from "../../clients/js/src/mod.ts";
import type {
  AnyModels,
  ListAnswer,
  ReadAnswer,
  RedirectRule,
} from "../../clients/js/src/mod.ts";
import type { PublicItem } from "./template/mod.ts";
import type {
  ChromeAnswer as Chrome,
  ChromeLink,
  ServedRegion,
} from "../../core/pages/mod.ts";
import { type Clock, MAX_REUSE_MS, Reuse } from "./reuse.ts";

export type { Chrome, ChromeLink, RedirectRule, ServedRegion };

/** One answer of the public API: its status and parsed JSON body (null when not JSON). */
export interface ApiAnswer<T = unknown> {
  status: number;
  body: T;
}

/** The body of a refusal as the renderer looks at it. */
export interface Refusal {
  data?: undefined;
  error: { code: string };
}

/** Raised when the public API cannot be reached or answers 5xx: the renderer shows 503. */
export class ApiUnavailable extends Error {
  override name = "ApiUnavailable";
}

/** Options of {@link PublicApi}. */
export interface PublicApiOptions {
  clock?: Clock;
  fetch?: typeof fetch;
  /** Per-request budget; a slower answer counts as unavailable. */
  timeoutMs?: number;
  /**
   * How long a page or post read serves every request for it (0: read each time; concurrent
   * requests for one item still share the read in flight). Previews are never reused.
   */
  singleReuseMs?: number;
}

/** The list options the renderer uses (any model). */
export type RendererListOptions = Pick<
  ListOptions<AnyModels[string], never>,
  "locale" | "limit" | "cursor" | "order" | "fields" | "filter" | "tag"
>;

/** Reads one site's public API at `origin` (whose host is the site's domain). */
export class PublicApi {
  readonly client: StaveClient;
  readonly #fetch: typeof fetch;
  readonly #timeoutMs: number;
  readonly #chrome: Reuse<ApiAnswer<{ data?: Chrome }>>;
  readonly #redirects: Reuse<RedirectRule[]>;
  readonly #lists: Reuse<ApiAnswer<ListAnswer<PublicItem> | Refusal>>;
  readonly #searchOff: Reuse<boolean>;
  readonly #singles: Reuse<ApiAnswer<ReadAnswer<PublicItem> | Refusal>>;

  constructor(readonly origin: string, options: PublicApiOptions = {}) {
    const clock = options.clock ?? Date.now;
    this.#fetch = options.fetch ?? fetch;
    this.#timeoutMs = options.timeoutMs ?? 10_000;
    this.client = createClient({
      url: `${origin.replace(/\/$/, "")}/v1`,
      fetch: (input, init) => this.#fetch(input, init),
      timeoutMs: this.#timeoutMs,
    });
    this.#chrome = new Reuse(MAX_REUSE_MS, clock);
    this.#redirects = new Reuse(MAX_REUSE_MS, clock, 1);
    // Latest-entries lists and the posts index reuse the same window as chrome.
    this.#lists = new Reuse(MAX_REUSE_MS, clock, 256);
    this.#searchOff = new Reuse(MAX_REUSE_MS, clock);
    // A short window: a publication shows within it, and a burst of visitors to one page
    // costs the API one read per window instead of one per visitor.
    this.#singles = new Reuse(options.singleReuseMs ?? 0, clock, 1024);
  }

  /** GET `path` (outside the client's operations: `/health`, the sitemap); never throws for 4xx. */
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
      async () =>
        // The same answer: a shared section's document is the page contract's document.
        (await answerOf(() => this.client.chrome({ locale }))) as ApiAnswer<
          { data?: Chrome }
        >,
    );
  }

  /** The accepted redirect rules, reused at most 30 s per instance. */
  redirects(): Promise<RedirectRule[]> {
    return this.#redirects.get("all", async () => {
      const answer = await answerOf(() => this.client.redirects());
      return answer.body.data ?? [];
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
    options: RendererListOptions,
  ): Promise<ApiAnswer<ListAnswer<PublicItem> | Refusal>> {
    const key = `${model}?${JSON.stringify(options)}`;
    return this.#lists.get(
      key,
      () =>
        answerOf(async () =>
          await this.client.list(model, options) as ListAnswer<PublicItem>
        ),
    );
  }

  /**
   * One item, reused for the page reuse window (a publication shows within it); a preview is
   * read every time, as it shows a draft to the holder of its token alone.
   */
  single(
    model: string,
    slug: string,
    options: { locale?: string; preview?: string },
  ): Promise<ApiAnswer<ReadAnswer<PublicItem> | Refusal>> {
    const read = () =>
      answerOf(async () =>
        await this.client.single(model, slug, options) as ReadAnswer<
          PublicItem
        >
      );
    if (options.preview !== undefined) return read();
    return this.#singles.get(`${model}/${slug}?${options.locale ?? ""}`, read);
  }

  /** Site search; never reused. */
  search(
    q: string,
    options: { locale: string; limit: number; cursor?: string },
  ): Promise<ApiAnswer<SearchResponse | Refusal>> {
    return answerOf(() => this.client.search(q, options));
  }

  /** Suggestions while a reader types; never reused. */
  suggest(
    q: string,
    locale: string,
  ): Promise<ApiAnswer<SuggestResponse | Refusal>> {
    return answerOf(() => this.client.suggest(q, { locale }));
  }
}

/**
 * The client's answer as status and body: refusals (4xx, and 503, which pages show as a notice)
 * become answers; an unreachable API or another 5xx is {@link ApiUnavailable}.
 */
async function answerOf<T>(
  call: () => Promise<T>,
): Promise<ApiAnswer<T | Refusal>> {
  try {
    return { status: 200, body: await call() };
  } catch (error) {
    if (
      error instanceof StaveError && error.status >= 400 &&
      (error.status < 500 || error.status === 503)
    ) {
      return { status: error.status, body: { error: { code: error.code } } };
    }
    throw new ApiUnavailable((error as Error).message);
  }
}
