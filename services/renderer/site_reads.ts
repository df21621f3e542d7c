// What the renderer reads to draw a page besides the item itself: the site's name, its view
// (chrome, fallback navigation, search, SEO defaults), latest-entries lists and the page
// document. Each is derived once per reused answer, so a drawing's inputs keep their identity
// while the answers they come from do (services/renderer/drawn.ts).
import { parsePageDocument } from "../../core/pages/mod.ts";
import type { Chrome, ChromeLink, PublicApi } from "./api.ts";
import type { RendererConfig } from "./config.ts";
import { addressOf, HOME_SLUG } from "./paths.ts";
import type {
  EntryList,
  PublicItem,
  SiteView,
  Template,
} from "./template/mod.ts";

/** A page document as delivery parses it. */
export type ParsedPage = ReturnType<typeof parsePageDocument>;

/** The site reads of one renderer. */
export type SiteReads = ReturnType<typeof siteReads>;

/** Builds the site reads of a renderer over `api`. */
export function siteReads(
  api: PublicApi,
  template: Template,
  config: RendererConfig,
  siteUrl: string,
) {
  let siteName = config.siteName;
  // Derived once per answer object, so what is drawn from them keeps its identity too.
  const navOfPages = new WeakMap<object, ChromeLink[]>();
  const listOfAnswer = new WeakMap<object, EntryList>();
  const documentOfItem = new WeakMap<PublicItem, ParsedPage>();

  async function nameOfSite(): Promise<string> {
    if (siteName) return siteName;
    const health = await api.get<{ site?: string }>("/health");
    const slug = health.body?.site ?? "site";
    return siteName = slug.charAt(0).toUpperCase() + slug.slice(1);
  }

  /** Fallback navigation when no header menu is placed: the site's pages, the posts, search. */
  async function fallbackNav(
    locale: string,
    defaultLocale: string,
  ): Promise<ChromeLink[]> {
    const pages = await api.list("pages", {
      locale: locale === defaultLocale ? undefined : locale,
      limit: 8,
      fields: ["title"],
      order: "asc",
    });
    const known = navOfPages.get(pages);
    if (known) return known;
    // The home page leads; the others keep the order they were first published in.
    const items = pages.body.data
      ? [...pages.body.data].sort((a, b) =>
        Number(b.slug === HOME_SLUG) - Number(a.slug === HOME_SLUG)
      )
      : [];
    const prefix = locale === defaultLocale ? "" : `/${locale}`;
    const nav = [
      ...items.map((p) => ({
        id: p.id,
        label: String(p.fields.title ?? p.slug),
        href: addressOf(
          { model: "pages", slug: p.slug, locale: p.locale },
          defaultLocale,
        ),
      })),
      { id: "posts", label: "Blog", href: `${prefix}/posts` },
    ];
    navOfPages.set(pages, nav);
    return nav;
  }

  /** What a drawing of `site` depends on besides the item: compared by identity. */
  async function siteInputs(site: SiteView): Promise<unknown[]> {
    return [
      site.siteName,
      site.locale,
      site.defaultLocale,
      site.chrome,
      site.fallbackNav,
      site.seoDefaults,
      site.searchOn,
      await template.drawing?.(),
    ];
  }

  async function siteView(
    locale: string,
    defaultLocale: string,
    chrome: Chrome | null,
    path: string,
    preview: boolean,
  ): Promise<SiteView> {
    return {
      siteName: await nameOfSite(),
      siteUrl,
      locale,
      defaultLocale,
      chrome,
      fallbackNav: chrome?.placements.header
        ? []
        : await fallbackNav(locale, defaultLocale),
      path,
      transformOrigins: config.transformOrigins,
      preview,
      hrefOf: (item) => addressOf(item, defaultLocale),
      seoDefaults: await template.seoDefaults?.() ?? null,
      searchOn: !(await api.searchOff(locale)),
    };
  }

  async function readLists(
    doc: ParsedPage & { ok: true },
    locale: string | undefined,
  ): Promise<Record<string, EntryList>> {
    const lists: Record<string, EntryList> = {};
    await Promise.all(doc.value.sections.map(async (s) => {
      if (s.type !== "latest_entries") return;
      const props = doc.value.props[s.id] as { model: string; limit: number };
      try {
        const answer = await api.list(props.model, {
          locale,
          limit: props.limit,
        });
        let list = listOfAnswer.get(answer);
        if (!list) {
          list = answer.body.data
            ? { ok: true, items: answer.body.data }
            : { ok: false }; // PAGE-056: a list that cannot be read is an error, never empty
          listOfAnswer.set(answer, list);
        }
        lists[s.id] = list;
      } catch {
        lists[s.id] = { ok: false };
      }
    }));
    return lists;
  }

  async function readPage(
    slug: string | undefined,
    locale: string,
    defaultLocale: string,
    previewToken: string | undefined,
  ): Promise<{ status: number; item: PublicItem } | null> {
    const apiLocale = locale === defaultLocale ? undefined : locale;
    if (slug !== undefined) {
      const answer = await api.single("pages", slug, {
        locale: apiLocale,
        preview: previewToken,
      });
      return answer.body.data ? { status: 200, item: answer.body.data } : null;
    }
    // The home page of another language is the home page's translation, at its own slug.
    const home = await api.single("pages", HOME_SLUG, {
      preview: previewToken,
    });
    if (!home.body.data) return null;
    if (locale === defaultLocale) return { status: 200, item: home.body.data };
    const alternate = home.body.data.alternates?.find((a) =>
      a.locale === locale
    );
    if (!alternate) return null;
    const answer = await api.single("pages", alternate.slug, {
      locale,
      preview: previewToken,
    });
    return answer.body.data ? { status: 200, item: answer.body.data } : null;
  }

  /** The page document of a page item, parsed once per answer. */
  function documentOf(item: PublicItem): ParsedPage {
    let doc = documentOfItem.get(item);
    if (!doc) {
      doc = parsePageDocument(item.fields.slides, { purpose: "deliver" });
      documentOfItem.set(item, doc);
    }
    return doc;
  }

  return {
    /** The site's name once known (for an error page drawn while nothing can be read). */
    knownSiteName: () => siteName,
    nameOfSite,
    siteView,
    siteInputs,
    readLists,
    readPage,
    documentOf,
  };
}
