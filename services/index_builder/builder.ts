// An external search index built from the public read API: a scope of (site, model, locale)
// tuples is crawled page by page into a staged, empty generation; any failure aborts the whole
// build and the active generation stays; a complete generation becomes active atomically, unless
// another builder activated one since this build staged (stale writer).

/** One (site, model, locale) tuple: `site` is the site's public origin (its host picks the site). */
export interface Scope {
  site: string;
  model: string;
  locale: string;
}

/** A document of the index, keyed by site, model, stable item id and the locale it was served in. */
export interface IndexDocument {
  key: string;
  site: string;
  model: string;
  id: string;
  locale: string;
  slug: string;
  fields: Record<string, unknown>;
}

/** Where generations live (a Deno KV implementation is below). */
export interface IndexStore {
  /** Stages a new, empty generation; answers it and the active generation it was staged against. */
  stage(): Promise<{ generation: string; against: unknown }>;
  write(generation: string, docs: IndexDocument[]): Promise<void>;
  /** Makes `generation` active when the active one is still `against`; false when it is not. */
  activate(generation: string, against: unknown): Promise<boolean>;
  /** Removes a generation's data; never the active one. */
  discard(generation: string): Promise<boolean>;
  active(): Promise<string | null>;
  documents(generation: string): Promise<IndexDocument[]>;
}

/** Why a build stopped; the active generation did not change. */
export type BuildFailure =
  | "http_error"
  | "timeout"
  | "invalid_response"
  | "invalid_item"
  | "missing_cursor"
  | "repeated_cursor"
  | "inconsistent_cursor"
  | "repeated_item"
  | "scope_failure"
  | "stale_writer";

/** Options of {@link buildIndex}. */
export interface BuildOptions {
  scopes: Scope[];
  store: IndexStore;
  fetch?: typeof fetch;
  /** Each request's time limit. */
  timeoutMs?: number;
  pageSize?: number;
}

/** The outcome of one build. */
export type BuildOutcome =
  | { ok: true; generation: string; documents: number }
  | { ok: false; reason: BuildFailure; scope: Scope | null; detail: string };

class Abort extends Error {
  constructor(
    readonly reason: BuildFailure,
    readonly scope: Scope | null,
    detail: string,
  ) {
    super(detail);
  }
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

const LOCALE = /^[A-Za-z0-9_-]{1,64}$/;

async function crawl(
  scope: Scope,
  options: BuildOptions,
  write: (docs: IndexDocument[]) => Promise<void>,
  stored: Set<string>,
): Promise<number> {
  const fetchFn = options.fetch ?? fetch;
  let origin: URL;
  try {
    origin = new URL(scope.site);
  } catch {
    throw new Abort("scope_failure", scope, `Not an origin: ${scope.site}`);
  }
  if (
    !LOCALE.test(scope.locale) || !/^[a-z][a-z0-9_-]{0,63}$/.test(scope.model)
  ) {
    throw new Abort("scope_failure", scope, "Invalid model or locale");
  }
  const query = new URLSearchParams({
    locale: scope.locale,
    limit: String(options.pageSize ?? 100),
  });
  const seenCursors = new Set<string>();
  const seenKeys = new Set<string>();
  let cursor: string | null = null;
  let count = 0;
  for (;;) {
    const params = new URLSearchParams(query);
    // The cursor goes back exactly as it came, with exactly the same query.
    if (cursor !== null) params.set("cursor", cursor);
    const url = `${origin.origin}/v1/${scope.model}?${params}`;
    let res: Response;
    try {
      res = await fetchFn(url, {
        headers: { accept: "application/json" },
        signal: AbortSignal.timeout(options.timeoutMs ?? 10_000),
      });
    } catch (e) {
      const name = e instanceof Error ? e.name : "";
      throw new Abort(
        name === "TimeoutError" ? "timeout" : "http_error",
        scope,
        `${url}: ${name || "failed"}`,
      );
    }
    if (res.status !== 200) {
      await res.body?.cancel();
      throw new Abort("http_error", scope, `${url}: ${res.status}`);
    }
    let body: unknown;
    try {
      body = await res.json();
    } catch {
      throw new Abort("invalid_response", scope, `${url}: not JSON`);
    }
    if (!isObject(body) || !Array.isArray(body.data) || !isObject(body.page)) {
      throw new Abort("invalid_response", scope, `${url}: no data or page`);
    }
    const page = body.page;
    if (typeof page.has_more !== "boolean") {
      throw new Abort("invalid_response", scope, `${url}: page.has_more`);
    }
    const next = page.next_cursor;
    if (page.has_more && (typeof next !== "string" || next === "")) {
      throw new Abort(
        "missing_cursor",
        scope,
        `${url}: has_more without next_cursor`,
      );
    }
    if (!page.has_more && next !== null) {
      throw new Abort(
        "inconsistent_cursor",
        scope,
        `${url}: next_cursor on the last page`,
      );
    }
    const docs: IndexDocument[] = [];
    for (const item of body.data) {
      if (
        !isObject(item) || typeof item.id !== "string" || item.id === "" ||
        typeof item.slug !== "string" || item.model !== scope.model ||
        typeof item.locale !== "string" || !LOCALE.test(item.locale) ||
        !isObject(item.fields)
      ) {
        throw new Abort("invalid_item", scope, `${url}: an item does not read`);
      }
      // Keyed by the locale actually served: a fallback answer is not the requested language.
      const key = [origin.host, scope.model, item.id, item.locale].join("|");
      if (seenKeys.has(key)) {
        throw new Abort("repeated_item", scope, `${url}: ${key} twice`);
      }
      seenKeys.add(key);
      // Another scope may serve the same document (a fallback language): it is one document.
      if (stored.has(key)) continue;
      stored.add(key);
      docs.push({
        key,
        site: origin.host,
        model: scope.model,
        id: item.id,
        locale: item.locale,
        slug: item.slug,
        fields: item.fields,
      });
    }
    await write(docs);
    count += docs.length;
    if (!page.has_more) return count;
    if (seenCursors.has(next as string)) {
      throw new Abort(
        "repeated_cursor",
        scope,
        `${url}: a cursor came back twice`,
      );
    }
    seenCursors.add(next as string);
    cursor = next as string;
  }
}

/**
 * Builds a complete generation of every scope and activates it; on any failure the staged
 * generation is discarded and the active one stays. Content may change during the crawl: a
 * generation is what each page answered when it was read, not one moment's snapshot.
 */
export async function buildIndex(options: BuildOptions): Promise<BuildOutcome> {
  const { generation, against } = await options.store.stage();
  try {
    let documents = 0;
    const seenScopes = new Set<string>();
    const stored = new Set<string>();
    for (const scope of options.scopes) {
      const id = `${scope.site}|${scope.model}|${scope.locale}`;
      if (seenScopes.has(id)) {
        throw new Abort("scope_failure", scope, "Scope listed twice");
      }
      seenScopes.add(id);
      documents += await crawl(
        scope,
        options,
        (docs) => options.store.write(generation, docs),
        stored,
      );
    }
    if (!(await options.store.activate(generation, against))) {
      throw new Abort(
        "stale_writer",
        null,
        "Another build activated a generation since this one staged",
      );
    }
    return { ok: true, generation, documents };
  } catch (e) {
    await options.store.discard(generation);
    if (e instanceof Abort) {
      return { ok: false, reason: e.reason, scope: e.scope, detail: e.message };
    }
    throw e;
  }
}

/** Generations in Deno KV under `prefix`: the active pointer changes only by an atomic check. */
export function kvIndexStore(
  kv: Deno.Kv,
  prefix: Deno.KvKey = ["index"],
): IndexStore {
  const activeKey = [...prefix, "active"];
  return {
    async stage() {
      const active = await kv.get<string>(activeKey);
      const generation = crypto.randomUUID();
      await kv.set([...prefix, "staged", generation], true);
      return { generation, against: active.versionstamp };
    },
    async write(generation, docs) {
      for (let i = 0; i < docs.length; i += 10) {
        const op = kv.atomic();
        for (const d of docs.slice(i, i + 10)) {
          op.set([...prefix, "docs", generation, d.key], d);
        }
        await op.commit();
      }
    },
    async activate(generation, against) {
      const result = await kv.atomic()
        .check({ key: activeKey, versionstamp: against as string | null })
        .set(activeKey, generation)
        .delete([...prefix, "staged", generation])
        .commit();
      return result.ok;
    },
    async discard(generation) {
      const active = await kv.get<string>(activeKey);
      if (active.value === generation) return false;
      for await (
        const e of kv.list({ prefix: [...prefix, "docs", generation] })
      ) {
        await kv.delete(e.key);
      }
      await kv.delete([...prefix, "staged", generation]);
      return true;
    },
    async active() {
      return (await kv.get<string>(activeKey)).value;
    },
    async documents(generation) {
      const docs: IndexDocument[] = [];
      for await (
        const e of kv.list<IndexDocument>({
          prefix: [...prefix, "docs", generation],
        })
      ) {
        docs.push(e.value);
      }
      return docs;
    },
  };
}
