// The per-request context of the public read API in one SQL statement: the site by host, its
// languages, locale policy and browser origins, the site API token sent, and the model the path names.
import { type RawBuilder, sql } from "kysely";
import type { Db } from "../db/database.ts";
import {
  type FieldRowLike,
  type StoredModel,
  toStoredModel,
} from "../models/store_rows.ts";
import type { SiteRecord } from "../sites/site_store.ts";
import { executePrepared } from "./prepared.ts";
import { type LocalePlan, localePlanFrom } from "./projection.ts";

/** What every request needs to know about a live model of the site to check readability. */
export interface ModelHead {
  id: string;
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
  heads: { id: string; slug: string; is_public: boolean }[];
  definitions: StoredModelJson[];
  t_id: string | null;
  t_site_id: string | null;
  t_model_ids: unknown;
  t_expires_at: Date | null;
  t_revoked_at: Date | null;
};

type StoredModelJson = {
  id: string;
  name: string;
  slug: string;
  description: string;
  kind: StoredModel["kind"];
  is_public: boolean;
  enable_i18n: boolean;
  settings: unknown;
  folder: string | null;
  revision: number;
  created_at: string;
  updated_at: string;
  fields: Record<string, unknown>[];
};

/** Reads the context in one statement; null when no site matches. */
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
  return contextFrom(row);
}

/** The one statement {@link loadPublicContext} runs (exported for the benchmark's EXPLAIN). */
export function contextQuery(
  query: PublicContextQuery,
): RawBuilder<ContextRow> {
  const siteWhere: RawBuilder<unknown> = "domain" in query.site
    ? sql`domain = ${query.site.domain}`
    : sql`id = ${query.site.id}`;
  const slug = query.modelSlug;
  const definitions = slug === null ? sql`'[]'::jsonb` : sql`(
    select coalesce(jsonb_agg(to_jsonb(m) || jsonb_build_object('fields', (
      select coalesce(jsonb_agg(to_jsonb(f) order by f.position), '[]'::jsonb)
      from model_fields f where f.site_id = m.site_id and f.model_id = m.id))), '[]'::jsonb)
    from models m
    where m.site_id = s.id and m.deleted_at is null and (m.slug = ${slug}
      or m.id::text in (
        select jsonb_array_elements_text(rf.config -> 'targets')
        from models r join model_fields rf on rf.site_id = r.site_id and rf.model_id = r.id
        where r.site_id = s.id and r.slug = ${slug} and r.deleted_at is null
          and rf.type = 'relation' and jsonb_typeof(rf.config -> 'targets') = 'array')))`;
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
        'is_public', m.is_public)), '[]'::json)
        from models m where m.site_id = s.id and m.deleted_at is null) as heads,
      ${definitions} as definitions,
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
    })),
    definitions: new Map(
      row.definitions.map((m) => [m.id, storedModel(m)]),
    ),
  };
}

/** The same shape `loadModels` answers, from the row JSON. */
function storedModel(m: StoredModelJson): StoredModel {
  return toStoredModel(m, m.fields as unknown as FieldRowLike[]);
}
