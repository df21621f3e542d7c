// `/v1/_sitemap` and its chunks (spec 3 parts 4.1, 4.8 rule 9, 8; PAUX-019, DLV-017): every
// published address of the site's public models, 5,000 per chunk, read at request time so a
// renderer's /robots.txt, /sitemap.xml and /sitemap-<model>-<number>.xml need no release.
import { sql } from "kysely";
import type { Db } from "../db/database.ts";
import type { ModelHead } from "./request_context.ts";

/** Addresses per sitemap chunk. */
export const SITEMAP_CHUNK = 5_000;

/** The sitemap index: one chunk per 5,000 addresses of each public model, and robots rules. */
export async function sitemapIndex(
  db: Db,
  siteId: string,
  models: readonly ModelHead[],
  languages: readonly string[],
) {
  const publicModels = models.filter((m) => m.isPublic);
  const counts = publicModels.length === 0 ? [] : (await sql<
    { model_id: string; n: number; lastmod: Date | null }
  >`
    select model_id, count(*)::int as n, max(published_at) as lastmod from public_items
    where site_id = ${siteId} and requested_locale = served_locale
      and model_id in (${sql.join(publicModels.map((m) => m.id))})
    group by model_id
  `.execute(db)).rows;
  const chunks = publicModels.flatMap((m) => {
    const row = counts.find((c) => c.model_id === m.id);
    if (!row) return [];
    return Array.from(
      { length: Math.ceil(row.n / SITEMAP_CHUNK) },
      (_, i) => ({
        model: m.slug,
        number: i + 1,
        count: Math.min(SITEMAP_CHUNK, row.n - i * SITEMAP_CHUNK),
        lastmod: new Date(row.lastmod!).toISOString(),
        path: `/v1/_sitemap/${m.slug}/${i + 1}`,
      }),
    );
  });
  return {
    data: {
      chunks,
      chunk_size: SITEMAP_CHUNK,
      // Site search pages are never indexed (spec 3 part 4.7 rule 6).
      robots: {
        disallow: ["/search", ...languages.map((l) => `/${l}/search`)],
      },
    },
  };
}

/** One chunk: addresses ordered by item and language, each with its other languages. */
export async function sitemapChunk(
  db: Db,
  siteId: string,
  model: ModelHead,
  number: number,
) {
  const rows = (await sql<
    {
      group_id: string;
      locale: string;
      slug: string;
      lastmod: Date;
      alternates: { locale: string; slug: string }[];
    }
  >`
    select p.group_id, p.served_locale as locale, p.slug, p.published_at as lastmod,
      (select coalesce(json_agg(json_build_object('locale', o.served_locale, 'slug', o.slug)
          order by o.served_locale), '[]'::json)
        from public_items o where o.site_id = p.site_id and o.model_id = p.model_id
          and o.group_id = p.group_id and o.requested_locale = o.served_locale
          and o.served_locale <> p.served_locale) as alternates
    from public_items p
    where p.site_id = ${siteId} and p.model_id = ${model.id}
      and p.requested_locale = p.served_locale
    order by p.group_id, p.served_locale
    limit ${SITEMAP_CHUNK} offset ${(number - 1) * SITEMAP_CHUNK}
  `.execute(db)).rows;
  return {
    data: rows.map((r) => ({
      id: r.group_id,
      locale: r.locale,
      slug: r.slug,
      lastmod: new Date(r.lastmod).toISOString(),
      alternates: r.alternates,
    })),
    model: model.slug,
    number,
  };
}
