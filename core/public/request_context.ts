// The per-request context of the public read API in one SQL statement: the site by host, its
// languages, locale policy and browser origins, the site API token sent, and the model the path names.
import { type CompiledQuery, type RawBuilder, sql } from "kysely";
import type { Db } from "../db/database.ts";
import type { StoredModel } from "../models/store_rows.ts";
import type { SiteRecord } from "../sites/site_store.ts";
import { SETTINGS_DEFAULTS } from "../sites/settings_documents.ts";
import { type DefinitionKey, modelDefinitions } from "./model_definitions.ts";
import { executePrepared, executePreparedCompiled } from "./prepared.ts";
import { type LocalePlan, localePlanFrom } from "./projection.ts";
import type { SiteTokenScope } from "./site_tokens.ts";

declare module "hono" {
  interface ContextVariableMap {
    /** The verified site API token of a /v1 request, or null when none was sent. */
    siteToken: SiteTokenScope | null;
    /** The site, languages, policy, origins, token row and named model of a /v1 request. */
    publicContext: PublicContext;
  }
}

/** What every request needs to know about a live model of the site to check readability. */
export interface ModelHead extends DefinitionKey {
  slug: string;
  isPublic: boolean;
}

/** A stored site API token row, checked by `readSiteToken` against the site and the clock. */
export interface SiteTokenRow {
  id: string;
  site_id: string;
  model_ids: unknown;
  expires_at: Date | null;
  revoked_at: Date | null;
}

/** Everything a public read needs before its page query, read in one round trip. */
export interface PublicContext {
  site: SiteRecord;
  /** The site's locale plan; null when the stored policy is unusable. */
  localePlan: LocalePlan | null;
  /** The site's browser origins (empty: no cross-origin reads). */
  origins: string[];
  /** The stored token whose digest was asked for, whatever its site or state; null when none. */
  token: SiteTokenRow | null;
  /** Every live model of the site (readability is checked per request). */
  heads: ModelHead[];
  /** Full definitions of the live model(s) with the asked slug and of their relation targets. */
  definitions: Map<string, StoredModel>;
  /** The site's `search` settings document as stored (defaults when none is stored). */
  searchSettings: unknown;
  /**
   * PostgreSQL's snapshot the statement ran under (`xmin:xmax:running`): keys kept answers on a
   * handle without a change feed (a read replica).
   */
  snapshot: string;
  /**
   * The generation of the database's announced commits (core/db/change_feed.ts) when the
   * request started; null without a live feed. On a remembered context: the generation it is
   * known to be current at.
   */
  generation: number | null;
  /** The site's public context revision the context was read at (migration 0236). */
  revision: string;
  /**
   * True while the context is one an earlier request read, not yet confirmed by this request's
   * own page statement ({@link runConfirming}); nothing may be answered from it until then.
   */
  unconfirmed: boolean;
}

/** What to read the context by. */
export interface PublicContextQuery {
  /** The normalised Host name, or the site id when the site is already known. */
  site: { domain: string } | { id: string };
  /** SHA-256 hex digest of the site API token sent, if any. */
  tokenDigest: string | null;
  /** Slug of the model the path names, if any. */
  modelSlug: string | null;
}

type ContextRow = {
  id: string;
  slug: string;
  name: string;
  domain: string;
  languages: { code: string; is_default: boolean }[];
  policy: { document: unknown } | null;
  origins: { origins: unknown } | null;
  heads: {
    id: string;
    slug: string;
    is_public: boolean;
    revision: number;
    folder: string | null;
  }[];
  search: unknown;
  snapshot: string;
  revision: string;
  t_id: string | null;
  t_site_id: string | null;
  t_model_ids: unknown;
  t_expires_at: Date | null;
  t_revoked_at: Date | null;
};

/**
 * Reads the context in one statement (null when no site matches), then the definitions of the
 * model the path names and of its relation targets, which the definition cache usually holds:
 * building them as JSON in the statement was half of PostgreSQL's time per public read.
 */
export async function loadPublicContext(
  db: Db,
  query: PublicContextQuery,
): Promise<PublicContext | null> {
  // Prepared: PostgreSQL planned this statement on every request (~0.3-0.6 ms of its CPU).
  const [row] = await executePrepared(
    db,
    "stave_public_context",
    contextQuery(query),
  );
  if (!row) return null;
  const context = contextFrom(row);
  if (query.modelSlug !== null) {
    const named = context.heads.filter((h) => h.slug === query.modelSlug);
    const definitions = await modelDefinitions(db, context.site.id, named);
    const targets = new Set<string>();
    for (const model of definitions.values()) {
      for (const field of model.fields) {
        if (field.type !== "relation") continue;
        for (const id of field.config.targets) {
          if (!definitions.has(id)) targets.add(id);
        }
      }
    }
    const more = await modelDefinitions(
      db,
      context.site.id,
      context.heads.filter((h) => targets.has(h.id)),
    );
    context.definitions = new Map([...definitions, ...more]);
  }
  return context;
}

/** The one statement {@link loadPublicContext} runs (exported for the benchmark's EXPLAIN). */
export function contextQuery(
  query: PublicContextQuery,
): RawBuilder<ContextRow> {
  const siteWhere: RawBuilder<unknown> = "domain" in query.site
    ? sql`domain = ${query.site.domain}`
    : sql`id = ${query.site.id}`;
  return sql<ContextRow>`
    with s as (select id, slug, name, domain from sites where ${siteWhere})
    select s.id, s.slug, s.name, s.domain,
      (select coalesce(json_agg(json_build_object('code', l.code, 'is_default', l.is_default)
        order by l.position), '[]'::json)
        from site_languages l where l.site_id = s.id) as languages,
      (select jsonb_build_object('document', st.document) from site_settings st
        where st.site_id = s.id and st.key = 'language-fallback') as policy,
      (select jsonb_build_object('origins', o.origins) from site_browser_origins o
        where o.site_id = s.id) as origins,
      (select coalesce(json_agg(json_build_object('id', m.id, 'slug', m.slug,
        'is_public', m.is_public, 'revision', m.revision, 'folder', m.folder)), '[]'::json)
        from models m where m.site_id = s.id and m.deleted_at is null) as heads,
      (select st.document from site_settings st
        where st.site_id = s.id and st.key = 'search') as search,
      pg_current_snapshot()::text as snapshot,
      coalesce((select r.revision from public_context_revisions r where r.site_id = s.id), 0)::text
        as revision,
      t.id as t_id, t.site_id as t_site_id, t.model_ids as t_model_ids,
      t.expires_at as t_expires_at, t.revoked_at as t_revoked_at
    from s left join site_api_tokens t on t.digest = ${query.tokenDigest}
  `;
}

function contextFrom(row: ContextRow): PublicContext {
  const positional = row.languages;
  const languages = [
    ...positional.filter((l) => l.is_default),
    ...positional.filter((l) => !l.is_default),
  ].map((l) => l.code);
  return {
    site: {
      id: row.id,
      slug: row.slug,
      name: row.name,
      domain: row.domain,
      languages,
      defaultLanguage: languages[0],
    },
    localePlan: localePlanFrom(positional, row.policy ?? undefined),
    origins: (row.origins?.origins as string[] | undefined) ?? [],
    token: row.t_id === null ? null : {
      id: row.t_id,
      site_id: row.t_site_id!,
      model_ids: row.t_model_ids,
      expires_at: row.t_expires_at,
      revoked_at: row.t_revoked_at,
    },
    heads: row.heads.map((h) => ({
      id: h.id,
      slug: h.slug,
      isPublic: h.is_public,
      revision: h.revision,
      folder: h.folder,
    })),
    definitions: new Map(),
    searchSettings: row.search ?? SETTINGS_DEFAULTS.search,
    snapshot: row.snapshot,
    generation: null,
    revision: row.revision,
    unconfirmed: false,
  };
}

/**
 * Contexts read by earlier requests, per database handle, by host name, token digest and model
 * slug. A public list or item read reuses one and confirms it inside its page statement
 * ({@link runConfirming}): the site's context revision moves with every change to what a context
 * is made of, so an equal revision means an equal context. Nothing is shared between processes
 * and a remembered context never changes an answer; a stale one costs the request one more
 * statement.
 */
const remembered = new WeakMap<Db, Map<string, PublicContext>>();

/** Beyond this many remembered contexts per handle the memory starts over (random slugs, tokens). */
const REMEMBERED_MAX = 1000;

function rememberedKey(query: PublicContextQuery): string | null {
  if (!("domain" in query.site)) return null;
  return `${query.site.domain}\n${query.tokenDigest ?? ""}\n${
    query.modelSlug ?? ""
  }`;
}

/**
 * A copy of the context an earlier request read for `query`; null when none. With the change
 * feed at `generation` and no commit announced since it was known current, the copy is as good
 * as one read now (confirmed); otherwise it is unconfirmed, and carries `generation` for the
 * request.
 */
export function rememberedContext(
  db: Db,
  query: PublicContextQuery,
  generation: number | null = null,
): PublicContext | null {
  const key = rememberedKey(query);
  const context = key === null ? null : remembered.get(db)?.get(key);
  if (!context) return null;
  const current = generation !== null && context.generation === generation;
  return { ...context, snapshot: "", generation, unconfirmed: !current };
}

/**
 * Records that the context remembered for `query` is current at `generation`: a request started
 * at that generation confirmed its revision in a page statement it sent afterwards, so a commit
 * that changed the context either showed there or moved the generation since.
 */
export function rememberCurrent(
  db: Db,
  query: PublicContextQuery,
  confirmed: PublicContext,
): void {
  const key = rememberedKey(query);
  const context = key === null ? null : remembered.get(db)?.get(key);
  if (
    context && confirmed.generation !== null &&
    context.site.id === confirmed.site.id &&
    context.revision === confirmed.revision &&
    (context.generation === null || context.generation < confirmed.generation)
  ) {
    context.generation = confirmed.generation;
  }
}

/**
 * Reads the context afresh (as {@link loadPublicContext}) and remembers it for later requests,
 * as current at `generation` (taken before the read).
 */
export async function loadAndRememberContext(
  db: Db,
  query: PublicContextQuery,
  generation: number | null = null,
): Promise<PublicContext | null> {
  const key = rememberedKey(query);
  const context = await loadPublicContext(db, query);
  if (context) context.generation = generation;
  if (key === null) return context;
  // Replaced only once the fresh one is read: forgotten while reading, every concurrent
  // request would read afresh too, and under load they kept each other reading.
  let contexts = remembered.get(db);
  if (!context) {
    contexts?.delete(key);
    return null;
  }
  if (!contexts) remembered.set(db, contexts = new Map());
  if (contexts.size >= REMEMBERED_MAX) contexts.clear();
  // Remembered as a copy: the request's own context is confirmed and changed in place.
  contexts.set(key, { ...context });
  return context;
}

/** Thrown when a remembered context turns out stale: the request starts over with a fresh one. */
export class StaleContext extends Error {
  constructor() {
    super("The remembered public context is stale");
  }
}

/**
 * Runs a page statement (`name` given: prepared). When `context` is unconfirmed, the statement
 * also reads the site's current context revision and snapshot, in the same snapshot as the page:
 * the context is then confirmed (and `snapshot` set) or {@link StaleContext} thrown. One round
 * trip either way. `present` names a column every page row has (never null): the one row of an
 * empty page has it null. Rows keep the extra column `ctx_check`.
 *
 * `page` may be given as a function with a `kept` key: a text that names everything the page
 * statement is built from (values included). The compiled statement is then kept per database
 * handle and key, and later runs neither build nor compile it: a first list page is the same
 * statement, values and all, on every request for its URL.
 */
export async function runConfirming<R extends object>(
  db: Db,
  context: PublicContext,
  name: string | null,
  page: RawBuilder<R> | (() => RawBuilder<R>),
  present: keyof R,
  kept: string | null = null,
): Promise<R[]> {
  const build = typeof page === "function" ? page : () => page;
  const confirming = context.unconfirmed;
  const compile = () =>
    (confirming ? confirmingPage(context, build()) : build()).compile(db);
  const compiled = kept === null ? compile() : keptCompiled(
    db,
    `${confirming ? context.site.domain : ""}\n${kept}`,
    compile,
  );
  const rows = name === null
    ? (await db.executeQuery(compiled)).rows
    : await executePreparedCompiled(
      db,
      confirming ? `${name}_confirming` : name,
      compiled,
      kept !== null,
    );
  if (!confirming) return rows;
  return confirmedRows(context, rows as (R & { ctx_check: string })[], present);
}

/** Compiled page statements kept by key, per database handle; bounded like prepared shapes. */
const compiledPages = new WeakMap<Db, Map<string, CompiledQuery<unknown>>>();
const COMPILED_PAGES_MAX = 500;

function keptCompiled<R>(
  db: Db,
  key: string,
  compile: () => CompiledQuery<R>,
): CompiledQuery<R> {
  let kept = compiledPages.get(db);
  if (!kept) compiledPages.set(db, kept = new Map());
  let compiled = kept.get(key) as CompiledQuery<R> | undefined;
  if (compiled === undefined) {
    compiled = compile();
    if (kept.size >= COMPILED_PAGES_MAX) kept.clear();
    kept.set(key, compiled);
  }
  return compiled;
}

function confirmingPage<R>(
  context: PublicContext,
  page: RawBuilder<R>,
): RawBuilder<R & { ctx_check: string }> {
  // A left join on `true` can only be a nested loop with the one confirmation row outside, so
  // the page's rows keep their order; an empty page still gives one row, with the page's null.
  // `offset 0` keeps the confirmation a subquery read once: flattened, PostgreSQL read the
  // revision and the snapshot again for every row of the page. One text column: the driver
  // parses it on every row.
  return sql<R & { ctx_check: string }>`
    select c.ctx_check, p.*
    from (
      select s.id::text || ' ' ||
        coalesce((select r.revision from public_context_revisions r where r.site_id = s.id), 0)
        || ' ' || pg_current_snapshot()::text as ctx_check
      from sites s where s.domain = ${context.site.domain}
      offset 0
    ) c left join (${page}) p on true
  `;
}

function confirmedRows<R extends object>(
  context: PublicContext,
  rows: (R & { ctx_check: string })[],
  present: keyof R,
): R[] {
  const expected = `${context.site.id} ${context.revision} `;
  const check = rows[0]?.ctx_check;
  if (check === undefined || !check.startsWith(expected)) {
    throw new StaleContext();
  }
  context.unconfirmed = false;
  context.snapshot = check.slice(expected.length);
  return rows.length === 1 && rows[0][present] === null ? [] : rows;
}
