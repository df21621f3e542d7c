// The typed client of the public read API (`/v1`): fetch only, for browsers, Deno, Node 18+ and
// edge runtimes. Paths, parameter names and answer shapes come from api.gen.ts.
// This module is browser compatible.
import {
  type Answers,
  type FormReceipt,
  type FormSubmission,
  type Item,
  type OperationName,
  OPERATIONS,
  type Queries,
  type SearchResponse,
  type SuggestResponse,
} from "./api.gen.ts";
import { StaveError, StaveNetworkError } from "./errors.ts";
import type {
  AnyModels,
  Chrome,
  FieldKey,
  ListAnswer,
  ModelMap,
  ModelShape,
  ReadAnswer,
  RedirectRule,
  RelationKey,
  SyncPage,
  TypedItem,
} from "./types.ts";

/** Options of {@link createClient}. */
export interface ClientOptions {
  /** The site's public API address, ending in `/v1` (`https://example.com/v1`). */
  url: string;
  /** A site API token (`sv_site_…`): needed only for private models. Sent as a bearer header. */
  token?: string;
  /** The fetch to use (a runtime's own by default). */
  fetch?: typeof fetch;
  /** Headers added to every request. */
  headers?: Record<string, string>;
  /** Per-request budget in milliseconds; a slower answer fails with {@link StaveNetworkError}. */
  timeoutMs?: number;
}

/** What every call takes besides its own parameters. */
export interface CallOptions {
  signal?: AbortSignal;
}

/** A filter on one field: equality (a list is "any of"), or a range on number and date fields. */
export type FilterValue =
  | string
  | number
  | boolean
  | readonly (string | number | boolean)[]
  | {
    gt?: string | number;
    gte?: string | number;
    lt?: string | number;
    lte?: string | number;
  };

/** Options of {@link StaveClient.list}; `E` are the relation fields to expand. */
export interface ListOptions<S extends ModelShape, E extends string>
  extends CallOptions {
  locale?: string;
  limit?: number;
  /** `page.next_cursor` of the previous page, with the same other options. */
  cursor?: string;
  order?: "asc" | "desc" | "manual";
  /** `"field"` ascending, `"-field"` descending. */
  sort?: keyof S["fields"] & string | `-${keyof S["fields"] & string}`;
  /** Where a point sort measures from. */
  origin?: string | { lat: number; lng: number };
  /** Keys to answer; the others are left out of the answer (the type keeps them). */
  fields?: readonly (FieldKey<S> | "model" | "version" | "published_at")[];
  /** Items whose relation field links to the item with this id (a list: to all of them). */
  relation?: { [K in RelationKey<S>]?: string | readonly string[] };
  /** Items whose relation field links to the item with this slug (a list: to all of them). */
  tag?: { [K in RelationKey<S>]?: string | readonly string[] };
  filter?: { [K in keyof S["fields"] & string]?: FilterValue };
  expand?: readonly E[];
}

/** Options of {@link StaveClient.single}. */
export interface SingleOptions<E extends string> extends CallOptions {
  locale?: string;
  /** A preview token (`sv_prev_…`) from the admin: the current draft instead of the published version. */
  preview?: string;
  expand?: readonly E[];
}

/** Options of {@link StaveClient.sync} and {@link StaveClient.syncPage}. */
export interface SyncOptions<K extends string> extends CallOptions {
  /** The model to sync; with a cursor it must be the cursor's own model (or left out). */
  model?: K;
  locale?: string;
  limit?: number;
  /** Where to resume: a page's `cursor` (its `next_cursor`, or the `checkpoint` once caught up). */
  cursor?: string;
}

/** A form submission; `action` is implied and `key` defaults to a fresh random key. */
export type FormInput = Omit<FormSubmission, "action" | "key"> & {
  key?: string;
};

type Wire = [string, string][];

/** How each list parameter goes on the wire; typed against the document's own parameter list. */
const LIST_PARAMS = {
  locale: (v: unknown) => one("locale", v),
  limit: (v: unknown) => one("limit", v),
  cursor: (v: unknown) => one("cursor", v),
  order: (v: unknown) => one("order", v),
  sort: (v: unknown) => one("sort", v),
  origin: (v: unknown) =>
    one(
      "origin",
      typeof v === "object" && v !== null
        ? `${(v as { lat: number }).lat},${(v as { lng: number }).lng}`
        : v,
    ),
  fields: (v: unknown) => csv("fields", v),
  relation: (v: unknown) => pairs("relation", v),
  tag: (v: unknown) => pairs("tag", v),
  expand: (v: unknown) => csv("expand", v),
  filter: (v: unknown) => filters(v),
} satisfies Record<keyof Queries["list-items"], (v: unknown) => Wire>;

/** Reads one site's public API; `M` are its models (`stave-client types` writes them). */
export class StaveClient<M extends ModelMap<M> = AnyModels> {
  readonly url: string;
  readonly #options: ClientOptions;

  constructor(options: ClientOptions) {
    if (!/^https?:\/\/[^/]+(\/.*)?\/v1$/.test(options.url.replace(/\/$/, ""))) {
      throw new TypeError(
        `Cannot use "${options.url}" as the API address: expected the site's /v1 address, such as https://example.com/v1`,
      );
    }
    this.url = options.url.replace(/\/$/, "");
    this.#options = options;
  }

  /** One page of a model's published items, newest first unless `order` or `sort` says otherwise. */
  list<K extends keyof M & string, const E extends RelationKey<M[K]> = never>(
    model: K,
    options: ListOptions<M[K], E> = {},
  ): Promise<ListAnswer<TypedItem<M[K], E>>> {
    const query: Wire = [];
    for (const [name, value] of Object.entries(options)) {
      if (name === "signal" || value === undefined) continue;
      const write = LIST_PARAMS[name as keyof typeof LIST_PARAMS];
      if (!write) throw new TypeError(`Unknown list option "${name}"`);
      query.push(...write(value));
    }
    return this.#call("list-items", { model }, query, options);
  }

  /** Every published item of a list, page after page (for builds and exports). */
  async *listAll<
    K extends keyof M & string,
    const E extends RelationKey<M[K]> = never,
  >(
    model: K,
    options: ListOptions<M[K], E> = {},
  ): AsyncGenerator<TypedItem<M[K], E>, void, undefined> {
    let cursor = options.cursor;
    do {
      const page = await this.list<K, E>(model, { ...options, cursor });
      yield* page.data;
      cursor = page.page.next_cursor ?? undefined;
    } while (cursor);
  }

  /** One published item by its slug in the requested language. */
  single<K extends keyof M & string, const E extends RelationKey<M[K]> = never>(
    model: K,
    slug: string,
    options: SingleOptions<E> = {},
  ): Promise<ReadAnswer<TypedItem<M[K], E>>> {
    return this.#call("read-item", { model, slug }, [
      ...one("locale", options.locale),
      ...one("preview", options.preview),
      ...csv("expand", options.expand),
    ], options);
  }

  /**
   * The targets of an expanded relation field past its first 25: `model` is the item's model,
   * `cursor` the field's `expanded.<field>.page.next_cursor` (then this answer's).
   */
  related<I = Item>(
    model: keyof M & string,
    cursor: string,
    options: CallOptions & { limit?: number } = {},
  ): Promise<ListAnswer<I>> {
    return this.#call("list-related", { model }, [
      ...one("cursor", cursor),
      ...one("limit", options.limit),
    ], options);
  }

  /** Published content matching every word of `q`, best matches first. */
  search(
    q: string,
    options: CallOptions & {
      locale?: string;
      limit?: number;
      cursor?: string;
    } = {},
  ): Promise<SearchResponse> {
    return this.#call("search", {}, [
      ...one("q", q),
      ...one("locale", options.locale),
      ...one("limit", options.limit),
      ...one("cursor", options.cursor),
    ], options);
  }

  /** A few titles for what a reader is typing (2 to 100 characters). */
  suggest(
    q: string,
    options: CallOptions & { locale: string; limit?: number },
  ): Promise<SuggestResponse> {
    return this.#call("suggest", {}, [
      ...one("q", q),
      ...one("locale", options.locale),
      ...one("limit", options.limit),
    ], options);
  }

  /** One page of sync: snapshot pages, then changes; its `cursor` is where the next page starts. */
  async syncPage<K extends keyof M & string = keyof M & string>(
    options: SyncOptions<K> = {},
  ): Promise<SyncPage<TypedItem<M[K]>>> {
    const answer: Answers["sync"] = await this.#call("sync", {}, [
      ...one("cursor", options.cursor),
      ...one("limit", options.limit),
      ...one("model", options.model),
      ...one("locale", options.locale),
    ], options);
    return {
      ...answer,
      data: answer.data as unknown as TypedItem<M[K]>[],
      cursor: (answer.next_cursor ?? answer.checkpoint)!,
    };
  }

  /**
   * Pages of sync until caught up: the last page carries `checkpoint` (also its `cursor`); keep it
   * and pass it as `cursor` later to read only what changed since. A `StaveError` with code
   * `reset_required` means the checkpoint cannot be continued: start again without a cursor.
   */
  async *sync<K extends keyof M & string = keyof M & string>(
    options: SyncOptions<K> = {},
  ): AsyncGenerator<SyncPage<TypedItem<M[K]>>, void, undefined> {
    let cursor = options.cursor;
    while (true) {
      const page = await this.syncPage<K>({ ...options, cursor });
      yield page;
      if (page.checkpoint !== null) return;
      cursor = page.cursor;
    }
  }

  /** The site chrome of one language: menus, placements, footer note and regions. */
  chrome(
    options: CallOptions & { locale?: string } = {},
  ): Promise<{ data: Chrome }> {
    return this.#call(
      "read-chrome",
      {},
      one("locale", options.locale),
      options,
    );
  }

  /** The site's redirects in precedence order. */
  redirects(options: CallOptions = {}): Promise<{ data: RedirectRule[] }> {
    return this.#call("list-redirects", {}, [], options);
  }

  /**
   * Sends a visitor's answer to a page's form section: JSON, or a `FormData` with
   * `values.<name>`, `checks.<name>` and `files.<name>` parts when files go along.
   */
  submitForm(
    submission: FormInput | FormData,
    options: CallOptions = {},
  ): Promise<FormReceipt> {
    const body = submission instanceof FormData ? submission : JSON.stringify({
      action: "form.submit",
      ...submission,
      key: submission.key ?? crypto.randomUUID().replaceAll("-", ""),
    });
    return this.#call("submit-form", {}, [], {
      ...options,
      method: "POST",
      body,
      type: submission instanceof FormData ? undefined : "application/json",
    });
  }

  async #call<T>(
    operation: OperationName,
    params: Record<string, string>,
    query: Wire,
    init: CallOptions & {
      method?: string;
      body?: BodyInit;
      type?: string;
    },
  ): Promise<T> {
    const path = OPERATIONS[operation].path.replace(
      /\{(\w+)\}/g,
      (_, name: string) => encodeURIComponent(params[name]),
    );
    const search = new URLSearchParams(query).toString();
    const url = `${this.url}${path}${search ? `?${search}` : ""}`;
    const headers: Record<string, string> = {
      accept: "application/json",
      ...this.#options.headers,
    };
    if (this.#options.token) {
      headers.authorization = `Bearer ${this.#options.token}`;
    }
    if (init.type) headers["content-type"] = init.type;
    let response: Response;
    try {
      response = await (this.#options.fetch ?? fetch)(url, {
        method: init.method ?? "GET",
        headers,
        body: init.body,
        signal: signalOf(init.signal, this.#options.timeoutMs),
      });
    } catch (error) {
      throw new StaveNetworkError(path, error);
    }
    let text: string;
    try {
      text = await response.text();
    } catch (error) {
      throw new StaveNetworkError(path, error);
    }
    let body: unknown = null;
    try {
      body = JSON.parse(text);
    } catch { /* not JSON: a refusal without a code */ }
    if (!response.ok || body === null) {
      throw new StaveError(response.status, body, {
        path,
        retryAfter: response.headers.get("retry-after"),
      });
    }
    return body as T;
  }
}

/** A client of the site whose `/v1` address is `options.url`. */
export function createClient<M extends ModelMap<M> = AnyModels>(
  options: ClientOptions,
): StaveClient<M> {
  return new StaveClient<M>(options);
}

function signalOf(
  signal: AbortSignal | undefined,
  timeoutMs: number | undefined,
): AbortSignal | undefined {
  if (timeoutMs === undefined) return signal;
  const timeout = AbortSignal.timeout(timeoutMs);
  if (!signal) return timeout;
  // AbortSignal.any arrived in Node 20; on Node 18 the caller's signal wins over the budget.
  const any = (AbortSignal as { any?: (s: AbortSignal[]) => AbortSignal }).any;
  return any ? any([signal, timeout]) : signal;
}

function one(name: string, value: unknown): Wire {
  return value === undefined || value === null ? [] : [[name, String(value)]];
}

function csv(name: string, value: unknown): Wire {
  const list = value as readonly string[] | undefined;
  return list && list.length > 0 ? [[name, list.join(",")]] : [];
}

function pairs(name: string, value: unknown): Wire {
  const wire: Wire = [];
  for (const [field, targets] of Object.entries(value as object)) {
    if (targets === undefined) continue;
    for (const target of [targets].flat() as string[]) {
      wire.push([name, `${field}:${target}`]);
    }
  }
  return wire;
}

function filters(value: unknown): Wire {
  const wire: Wire = [];
  for (const [field, condition] of Object.entries(value as object)) {
    if (condition === undefined) continue;
    if (
      typeof condition === "object" && condition !== null &&
      !Array.isArray(condition)
    ) {
      for (const [bound, limit] of Object.entries(condition)) {
        if (limit !== undefined) {
          wire.push([`filter[${field}][${bound}]`, String(limit)]);
        }
      }
    } else {
      for (const v of [condition].flat()) {
        wire.push([`filter[${field}]`, String(v)]);
      }
    }
  }
  return wire;
}
