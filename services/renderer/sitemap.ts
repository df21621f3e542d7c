// /robots.txt, /sitemap.xml and /sitemap-<model>-<number>.xml, read from `/v1/_sitemap` at request
// time so a publication shows without a release (template rule 9).
import type { PublicApi } from "./api.ts";
import { addressOf, HOME_SLUG } from "./paths.ts";

interface SitemapIndex {
  data: {
    chunks: { model: string; number: number; lastmod: string }[];
    robots: { disallow: string[] };
  };
}

interface SitemapChunk {
  data: {
    id: string;
    locale: string;
    slug: string;
    lastmod: string;
    alternates: { locale: string; slug: string }[];
  }[];
}

const XML = { "content-type": "application/xml; charset=utf-8" };

function escapeXml(text: string): string {
  return text.replace(/[<>&'"]/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** robots.txt: the sitemap route's rules and the sitemap's address. */
export async function robotsTxt(
  api: PublicApi,
  siteUrl: string,
): Promise<Response> {
  const answer = await api.get<SitemapIndex>("/v1/_sitemap");
  const disallow = answer.status === 200
    ? answer.body.data.robots.disallow
    : [];
  const lines = [
    "User-agent: *",
    ...disallow.map((p) => `Disallow: ${p}`),
    disallow.length === 0 ? "Allow: /" : null,
    "",
    `Sitemap: ${siteUrl}/sitemap.xml`,
    "",
  ].filter((l) => l !== null);
  return new Response(lines.join("\n"), {
    headers: { "content-type": "text/plain; charset=utf-8" },
  });
}

/** The sitemap index: one file per chunk of the models the template gives addresses. */
export async function sitemapXml(
  api: PublicApi,
  siteUrl: string,
  models: readonly string[],
): Promise<Response> {
  const answer = await api.get<SitemapIndex>("/v1/_sitemap");
  const chunks = answer.status === 200
    ? answer.body.data.chunks.filter((c) => models.includes(c.model))
    : [];
  const body = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">',
    ...chunks.map((c) =>
      `<sitemap><loc>${
        escapeXml(`${siteUrl}/sitemap-${c.model}-${c.number}.xml`)
      }</loc><lastmod>${escapeXml(c.lastmod)}</lastmod></sitemap>`
    ),
    "</sitemapindex>",
  ].join("\n");
  return new Response(body, { headers: XML });
}

/** One chunk as a urlset with each address's other languages; null when there is none. */
export async function sitemapChunkXml(
  api: PublicApi,
  options: {
    siteUrl: string;
    model: string;
    number: number;
    defaultLocale: string;
  },
): Promise<Response | null> {
  const { siteUrl, model, number, defaultLocale } = options;
  const answer = await api.get<SitemapChunk>(
    `/v1/_sitemap/${model}/${number}`,
  );
  if (answer.status !== 200) return null;
  // The home page and its translations are listed at their language roots.
  const homeId = model === "pages"
    ? answer.body.data.find((u) =>
      u.locale === defaultLocale && u.slug === HOME_SLUG
    )?.id
    : undefined;
  const address = (id: string, locale: string, slug: string) =>
    id === homeId
      ? (locale === defaultLocale ? "/" : `/${locale}`)
      : addressOf({ model, slug, locale }, defaultLocale);
  const urls = answer.body.data.map((u) => {
    const loc = (locale: string, slug: string) =>
      escapeXml(siteUrl + address(u.id, locale, slug));
    return [
      `<url><loc>${loc(u.locale, u.slug)}</loc><lastmod>${
        escapeXml(u.lastmod)
      }</lastmod>`,
      ...u.alternates.map((a) =>
        `<xhtml:link rel="alternate" hreflang="${escapeXml(a.locale)}" href="${
          loc(a.locale, a.slug)
        }"/>`
      ),
      "</url>",
    ].join("");
  });
  const body = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:xhtml="http://www.w3.org/1999/xhtml">',
    ...urls,
    "</urlset>",
  ].join("\n");
  return new Response(body, { headers: XML });
}
