// Head tags of a page: the site's defaults, overridden by fields of the published version
// (`seo_title`, `seo_description`, `noindex`) read at request time.
import type { PageDocument } from "../../core/pages/mod.ts";
import type { PublicItem, Seo, SiteView } from "./template/mod.ts";

function textOf(value: unknown): string | null {
  if (typeof value === "string") return value.trim() || null;
  if (Array.isArray(value)) {
    return value.map((r) => (r as { text?: string }).text ?? "").join("")
      .trim() || null;
  }
  return null;
}

/** At most 160 characters, cut at a word. */
function clip(text: string): string {
  const plain = text.replace(/<[^>]*>/g, " ").replace(/\s+/g, " ").trim();
  if (plain.length <= 160) return plain;
  return plain.slice(0, 157).replace(/\s+\S*$/, "") + "…";
}

function alternatesOf(site: SiteView, item: PublicItem): Seo["alternates"] {
  return (item.alternates ?? []).map((a) => ({
    locale: a.locale,
    href: site.siteUrl +
      site.hrefOf({ model: item.model, slug: a.slug, locale: a.locale }),
  }));
}

/**
 * A title as the release's title template says (`{title}` replaced), else `<title> · <site>`.
 * The page's own SEO title, read from its published version, still wins (overrides()).
 */
function titleOf(site: SiteView, title: string): string {
  const template = site.seoDefaults?.title_template;
  return template
    ? template.replaceAll("{title}", title)
    : `${title} · ${site.siteName}`;
}

/** The page's own description, else the release's default description, else none. */
function describedAs(
  site: SiteView,
  description: string | null,
): string | null {
  return description ?? (site.seoDefaults?.default_description?.trim() || null);
}

function overrides(item: PublicItem, seo: Seo): Seo {
  const f = item.fields;
  if (typeof f.seo_title === "string" && f.seo_title.trim()) {
    seo.title = f.seo_title.trim();
  }
  if (typeof f.seo_description === "string" && f.seo_description.trim()) {
    seo.description = clip(f.seo_description);
  }
  if (f.noindex === true) seo.noindex = true;
  return seo;
}

/** A composed page: its title, and the first words its sections say. */
export function pageSeo(
  site: SiteView,
  item: PublicItem,
  doc: PageDocument,
): Seo {
  let description: string | null = null;
  let image: string | null = null;
  for (const s of doc.sections) {
    const p = doc.props[s.id] ?? {};
    description ??= textOf(p.subheading) ?? textOf(p.body) ??
      (Array.isArray(p.paragraphs) ? textOf(p.paragraphs[0]) : null);
    image ??= (p.media as { url?: string } | null | undefined)?.url ?? null;
  }
  return overrides(item, {
    title: titleOf(site, String(item.fields.title ?? item.slug)),
    description: describedAs(site, description ? clip(description) : null),
    canonical: site.preview ? null : site.siteUrl + site.hrefOf(item),
    noindex: site.preview,
    image,
    alternates: alternatesOf(site, item),
    type: "website",
  });
}

/** A post: its title, summary or opening words, and cover. */
export function postSeo(site: SiteView, item: PublicItem): Seo {
  const f = item.fields;
  const summary = textOf(f.summary) ?? textOf(f.excerpt) ?? textOf(f.body);
  const cover = item.media?.cover;
  return overrides(item, {
    title: titleOf(site, String(f.title ?? item.slug)),
    description: describedAs(site, summary ? clip(summary) : null),
    canonical: site.preview ? null : site.siteUrl + site.hrefOf(item),
    noindex: site.preview,
    image: cover && !Array.isArray(cover) ? cover.url : null,
    alternates: alternatesOf(site, item),
    type: "article",
  });
}

/** A page of the template's own (posts index, search, errors). */
export function plainSeo(site: SiteView, title: string, noindex: boolean): Seo {
  return {
    title: titleOf(site, title),
    description: noindex ? null : describedAs(site, null),
    canonical: noindex ? null : site.siteUrl + site.path,
    noindex,
    image: null,
    alternates: [],
    type: "website",
  };
}
