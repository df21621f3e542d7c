// What a template draws and what the renderer hands it: the seam between request handling
// (services/renderer/server.ts) and drawing (the built-in template under ./builtin/).
import type {
  ChromeAnswer as Chrome,
  ChromeLink,
  PageDocument,
} from "../../../core/pages/mod.ts";

/**
 * The SEO defaults a release carries, only those a site changed (the same shape the CMS's
 * core/templates/release_seo.ts sends; a template imports nothing but the page contract).
 */
export interface ReleaseSeo {
  title_template?: string;
  default_description?: string;
}

/** One published item as `/v1/{model}` and `/v1/{model}/{slug}` serve it. */
export interface PublicItem {
  id: string;
  slug: string;
  model: string;
  locale: string;
  version?: number;
  published_at?: string;
  fields: Record<string, unknown>;
  media?: Record<string, MediaObject | MediaObject[] | null>;
  alternates?: { locale: string; slug: string }[];
}

/** A media object of an item's media field. */
export interface MediaObject {
  id: string;
  kind: "image" | "video" | "audio" | "document" | string;
  url: string;
  mime_type?: string;
  file_name?: string;
  byte_length?: number;
  width?: number | null;
  height?: number | null;
  alt?: string | null;
  focal?: { x: number; y: number } | null;
}

/** Head tags of one page. */
export interface Seo {
  title: string;
  description: string | null;
  canonical: string | null;
  noindex: boolean;
  image: string | null;
  alternates: { locale: string; href: string }[];
  type: "website" | "article";
}

/** What every view shares: the site, its chrome and how to build links. */
export interface SiteView {
  siteName: string;
  siteUrl: string;
  locale: string;
  defaultLocale: string;
  /** Null when `/v1/_chrome` could not answer: the template draws its fallback navigation. */
  chrome: Chrome | null;
  /** Pages to offer when the chrome places no header menu. */
  fallbackNav: ChromeLink[];
  path: string;
  /** Image transform hosts; the first draws `srcset`. */
  transformOrigins: readonly string[];
  /** Previews and unsaved renders: forms are drawn disabled and nothing is indexed. */
  preview: boolean;
  /** Builds the address of an item in a language. */
  hrefOf(item: { model: string; slug: string; locale: string }): string;
  /** False while site search is off: no link leads to the search page then. */
  searchOn?: boolean;
  /** SEO defaults the active release carries (only those the site changed); absent: none. */
  seoDefaults?: ReleaseSeo | null;
}

/** The state of one form section after a submission without JavaScript. */
export interface FormOutcome {
  section: string;
  sent: boolean;
  code: string | null;
}

/** A latest-entries list as the renderer read it: items, or an error for that section. */
export type EntryList = { ok: true; items: PublicItem[] } | { ok: false };

/** A composed page. */
export interface PageView {
  site: SiteView;
  seo: Seo;
  item: PublicItem;
  document: PageDocument;
  lists: Record<string, EntryList>;
  form: FormOutcome | null;
  /** A fresh idempotency key for each form on this render. */
  formKey: string;
}

/** A post. */
export interface PostView {
  site: SiteView;
  seo: Seo;
  item: PublicItem;
}

/** The posts index, one page of it. */
export interface PostsView {
  site: SiteView;
  seo: Seo;
  /** An archive's heading (`News`, `Deno`); absent on the whole posts index. */
  heading?: string;
  items: PublicItem[];
  nextHref: string | null;
  firstHref: string | null;
}

/** One search result with its link built. */
export interface SearchHit {
  title: string;
  summary: string | null;
  href: string;
  kind: string;
}

/** The site search page. */
export interface SearchView {
  site: SiteView;
  seo: Seo;
  query: string;
  hits: SearchHit[];
  nextHref: string | null;
  /** Why results are missing (search off, unavailable, invalid query), or null. */
  notice: string | null;
}

/** An error page (404, 410, 451, 400, 500, 503). */
export interface ErrorView {
  site: SiteView;
  seo: Seo;
  status: number;
}

/** A static file a template serves under `/_site/`. */
export interface TemplateAsset {
  name: string;
  type: string;
  body: string;
}

/**
 * A template: what it draws and the files it serves. The built-in template draws in process; a
 * release of an accepted candidate draws in the sandbox, so its answers may be promises
 * (services/renderer/release.ts).
 */
export interface Template {
  name: string;
  /** Models whose items have their own address (also the sitemap's models). */
  routableModels: readonly string[];
  /** Chrome regions the template declares (`{ key, label }`, 0 to 8). */
  regions: readonly { key: string; label: string }[];
  assets: readonly TemplateAsset[];
  /**
   * True while a generated site (a release) draws: its search page answers 404 while search is
   * off, where the managed built-in template shows the page with a notice.
   */
  generated?(): Promise<boolean>;
  /**
   * What draws now, compared by identity: a page drawn earlier is served again only while this
   * is the same value (a release answers its active release; absent: the drawing never changes).
   */
  drawing?(): Promise<unknown>;
  /** The SEO defaults the drawing release carries, or null (the built-in template has none). */
  seoDefaults?(): Promise<ReleaseSeo | null>;
  /** A file served under `/_site/` that is not among `assets` (a release's own), or null. */
  asset?(path: string): Promise<TemplateAsset | null>;
  page(view: PageView): string | Promise<string>;
  post(view: PostView): string | Promise<string>;
  posts(view: PostsView): string | Promise<string>;
  search(view: SearchView): string | Promise<string>;
  error(view: ErrorView): string | Promise<string>;
}

/** A template drawing in process, at once (the built-in template). */
export interface InProcessTemplate extends Template {
  page(view: PageView): string;
  post(view: PostView): string;
  posts(view: PostsView): string;
  search(view: SearchView): string;
  error(view: ErrorView): string;
}
