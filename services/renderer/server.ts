// The renderer's request handler: reads the site through the public API and hands the answers to
// the template. Pages and posts are reused for the page window (RENDERER_PAGE_REUSE_MS, default
// 1 s), chrome, redirects and lists at most 30 s; a drawn page is kept while all of those it was
// drawn from are the same answers.
import { ApiUnavailable, type Chrome, PublicApi } from "./api.ts";
import type { RendererConfig } from "./config.ts";
import { DrawnPages, FORM_KEY_SLOT, withFormKey } from "./drawn.ts";
import { handleFormPost } from "./forms.ts";
import {
  addressOf,
  HOME_SLUG,
  malformedPath,
  mayBeLocale,
  routeOf,
} from "./paths.ts";
import { matchRedirect } from "./redirects.ts";
import type { Clock } from "./reuse.ts";
import { searchPage, suggestAnswer } from "./search.ts";
import { siteReads } from "./site_reads.ts";
import { pageSeo, plainSeo, postSeo } from "./seo.ts";
import { robotsTxt, sitemapChunkXml, sitemapXml } from "./sitemap.ts";
import type {
  FormOutcome,
  PublicItem,
  Seo,
  SiteView,
  Template,
} from "./template/mod.ts";

/** Options of {@link createRenderer}. */
export interface RendererOptions {
  config: RendererConfig;
  template: Template;
  /** The address visitors use (the listening address when `config.siteUrl` is unset). */
  siteUrl: string;
  clock?: Clock;
  fetch?: typeof fetch;
}

const HTML = { "content-type": "text/html; charset=utf-8" };

/** Builds the handler `Deno.serve` calls. */
export function createRenderer(
  options: RendererOptions,
): (request: Request, info?: Deno.ServeHandlerInfo) => Promise<Response> {
  const { config, template, siteUrl } = options;
  const api = new PublicApi(config.apiUrl, {
    clock: options.clock,
    fetch: options.fetch,
    singleReuseMs: config.pageReuseMs,
  });
  const assets = new Map(template.assets.map((a) => [`/_site/${a.name}`, a]));
  const reads = siteReads(api, template, config, siteUrl);
  const { siteView, siteInputs, readLists, readPage } = reads;
  const drawn = new DrawnPages();

  // A cache in front may keep a page but must ask again each time, so a publication shows at once.
  function html(body: string, status = 200, extra: HeadersInit = {}): Response {
    return new Response(body, {
      status,
      headers: { ...HTML, "cache-control": "no-cache", ...extra },
    });
  }

  async function errorPage(
    status: number,
    ctx: {
      locale: string;
      defaultLocale: string;
      chrome: Chrome | null;
      path: string;
    },
  ): Promise<Response> {
    const site = await siteView(
      ctx.locale,
      ctx.defaultLocale,
      ctx.chrome,
      ctx.path,
      false,
    )
      .catch(() => null);
    const fallback: SiteView = site ?? {
      siteName: reads.knownSiteName() ?? "Site",
      siteUrl,
      locale: ctx.locale,
      defaultLocale: ctx.defaultLocale,
      chrome: null,
      fallbackNav: [],
      path: ctx.path,
      transformOrigins: config.transformOrigins,
      preview: false,
      hrefOf: (item) => addressOf(item, ctx.defaultLocale),
    };
    return html(
      await template.error({
        site: fallback,
        seo: plainSeo(fallback, `${status}`, true),
        status,
      }),
      status,
      { "cache-control": "no-store" },
    );
  }

  async function handle(
    request: Request,
    info?: Deno.ServeHandlerInfo,
  ): Promise<Response> {
    const url = new URL(request.url);
    const rawPath = url.pathname;
    if (
      request.method === "POST" && rawPath === "/v1/interactions/form.submit"
    ) {
      // Without the key the service counts every post against this renderer's address.
      const address = (info?.remoteAddr as Deno.NetAddr | undefined)?.hostname;
      return await handleFormPost(
        request,
        config.apiUrl,
        options.fetch ?? fetch,
        config.forwardingKey && address
          ? { key: config.forwardingKey, address }
          : null,
      );
    }
    if (request.method !== "GET" && request.method !== "HEAD") {
      return new Response("Method not allowed", {
        status: 405,
        headers: { allow: "GET, HEAD" },
      });
    }
    const asset = assets.get(rawPath);
    if (asset) {
      return new Response(asset.body, {
        headers: {
          "content-type": asset.type,
          "cache-control": "public, max-age=31536000, immutable",
        },
      });
    }
    // A release's files keep their names from one release to the next: ask again each time.
    const released = rawPath.startsWith("/_site/") && template.asset
      ? await template.asset(rawPath.slice("/_site/".length))
      : null;
    if (released) {
      return new Response(released.body, {
        headers: {
          "content-type": released.type,
          "cache-control": "no-cache",
          "x-content-type-options": "nosniff",
        },
      });
    }
    const rootChrome = await api.chrome();
    const defaultLocale = rootChrome.body?.data?.locale ?? "en";
    const base = {
      locale: defaultLocale,
      defaultLocale,
      chrome: rootChrome.body?.data ?? null,
      path: rawPath,
    };
    if (malformedPath(rawPath)) return await errorPage(400, base);
    const route = routeOf(rawPath);
    if (route.kind === "robots") return await robotsTxt(api, siteUrl);
    if (route.kind === "sitemap") {
      return await sitemapXml(api, siteUrl, template.routableModels);
    }
    if (route.kind === "sitemap_chunk") {
      const answer = template.routableModels.includes(route.model)
        ? await sitemapChunkXml(api, {
          siteUrl,
          model: route.model,
          number: route.number,
          defaultLocale,
        })
        : null;
      return answer ?? await errorPage(404, base);
    }
    let segments = route.segments;
    let locale = defaultLocale;
    let chrome = base.chrome;
    if (
      segments.length > 0 && mayBeLocale(segments[0]) &&
      segments[0] !== defaultLocale
    ) {
      const localized = await api.chrome(segments[0]);
      if (localized.status === 200 && localized.body?.data) {
        locale = segments[0];
        chrome = localized.body.data;
        segments = segments.slice(1);
      }
    } else if (segments[0] === defaultLocale) {
      segments = segments.slice(1);
    }
    const ctx = { locale, defaultLocale, chrome, path: rawPath };
    const apiLocale = locale === defaultLocale ? undefined : locale;
    const previewToken = url.searchParams.get("preview") ?? undefined;
    const preview = previewToken !== undefined;
    const noStore = { "cache-control": "no-store" };

    if (segments.length === 1 && segments[0] === "search") {
      if (url.searchParams.has("suggest")) {
        return await suggestAnswer(api, url, { locale, defaultLocale });
      }
      // A generated site has no search page while search is off (the managed template shows one
      // with a notice); an unknown language never reaches here (404 for both).
      if (await template.generated?.() && await api.searchOff(locale)) {
        return await errorPage(404, ctx);
      }
      const site = await siteView(
        locale,
        defaultLocale,
        chrome,
        rawPath,
        false,
      );
      return html(
        await template.search(await searchPage(api, url, site)),
        200,
        {
          "x-robots-tag": "noindex",
        },
      );
    }
    if (segments[0] === "posts" && segments.length === 3) {
      const archive = await archivePage(segments[1], segments[2], {
        locale,
        defaultLocale,
        chrome,
        rawPath,
        url,
      });
      if (archive) return archive;
    } else if (segments[0] === "posts" && segments.length <= 2) {
      const site = await siteView(
        locale,
        defaultLocale,
        chrome,
        rawPath,
        preview,
      );
      if (segments.length === 1) {
        const cursor = url.searchParams.get("cursor") ?? undefined;
        const answer = await api.list("posts", {
          locale: apiLocale,
          limit: 12,
          cursor,
        });
        if (answer.body.data) {
          const body = answer.body;
          const here = locale === defaultLocale ? "/posts" : `/${locale}/posts`;
          return html(
            await template.posts({
              site,
              seo: plainSeo(site, "Blog", false),
              items: body.data,
              nextHref: body.page.next_cursor
                ? `${here}?cursor=${encodeURIComponent(body.page.next_cursor)}`
                : null,
              firstHref: cursor ? here : null,
            }),
          );
        }
        if (answer.status === 400) return await errorPage(400, ctx);
      } else {
        const answer = await api.single("posts", segments[1], {
          locale: apiLocale,
          preview: previewToken,
        });
        if (answer.body.data) {
          const item = answer.body.data;
          const draw = () =>
            template.post({ site, seo: postSeo(site, item), item });
          return html(
            preview ? await draw() : await drawn.get(
              rawPath,
              [item, ...await siteInputs(site)],
              draw,
            ),
            200,
            preview ? { ...noStore, "x-robots-tag": "noindex" } : {},
          );
        }
      }
    } else if (segments.length <= 1) {
      const slug = segments[0];
      if (slug === HOME_SLUG && !preview) {
        return new Response(null, {
          status: 308,
          headers: { location: locale === defaultLocale ? "/" : `/${locale}` },
        });
      }
      const page = await readPage(slug, locale, defaultLocale, previewToken);
      if (page && page.status === 200) {
        const item = page.item;
        const isHome = (item.alternates ?? []).some((a) =>
          a.locale === defaultLocale && a.slug === HOME_SLUG
        );
        // A translation of the home page lives at its language's root.
        if (isHome && slug !== undefined && !preview) {
          return new Response(null, {
            status: 308,
            headers: { location: root(item.locale, defaultLocale) },
          });
        }
        const doc = reads.documentOf(item);
        // A partly refused page never renders partially: the URL is an error.
        if (!doc.ok) return await errorPage(500, ctx);
        const site = await siteView(
          locale,
          defaultLocale,
          chrome,
          rawPath,
          preview,
        );
        const document = doc.value;
        const lists = await readLists(
          doc,
          item.locale === defaultLocale ? undefined : item.locale,
        );
        const form = preview ? null : formOutcome(url);
        const draw = () =>
          template.page({
            site,
            seo: homeSeo(pageSeo(site, item, document), isHome, site),
            item,
            document,
            lists,
            form,
            formKey: FORM_KEY_SLOT,
          });
        // A page with a form is kept only when its key can be swapped per visitor.
        const hasForm = document.sections.some((s) => s.type === "form");
        return html(
          withFormKey(
            preview || form ? await draw() : await drawn.get(
              rawPath,
              [
                item,
                ...await siteInputs(site),
                ...document.sections.map((s) => lists[s.id]),
              ],
              draw,
              (drawnHtml) => !hasForm || drawnHtml.includes(FORM_KEY_SLOT),
            ),
          ),
          200,
          preview ? { ...noStore, "x-robots-tag": "noindex" } : {},
        );
      }
    }
    // No page answers here: an accepted redirect may (template rule 9).
    const redirect = matchRedirect(await api.redirects(), rawPath);
    if (redirect) {
      if (redirect.location === null) {
        return await errorPage(redirect.status, ctx);
      }
      return new Response(null, {
        status: redirect.status,
        headers: { location: redirect.location },
      });
    }
    return await errorPage(404, ctx);
  }

  /**
   * An archive of posts (`/posts/<field>/<value>`), the address the chrome gives a category or a
   * tag: posts whose choice field holds the value, else posts linked to the tag of that slug.
   * Null (then a 404) when the field is neither.
   */
  async function archivePage(
    field: string,
    value: string,
    o: {
      locale: string;
      defaultLocale: string;
      chrome: Chrome | null;
      rawPath: string;
      url: URL;
    },
  ): Promise<Response | null> {
    if (!/^[a-z][a-z0-9_]{0,63}$/.test(field)) return null;
    const apiLocale = o.locale === o.defaultLocale ? undefined : o.locale;
    const cursor = o.url.searchParams.get("cursor") ?? undefined;
    const base = { locale: apiLocale, limit: 12, cursor };
    let answer = await api.list("posts", {
      ...base,
      filter: { [field]: value },
    });
    if (answer.status === 400) {
      answer = await api.list("posts", { ...base, tag: { [field]: value } });
    }
    if (answer.status !== 200) return null;
    const body = answer.body as {
      data: PublicItem[];
      page: { next_cursor: string | null };
    };
    const site = await siteView(
      o.locale,
      o.defaultLocale,
      o.chrome,
      o.rawPath,
      false,
    );
    // The chrome names the category or tag this address belongs to; else the value itself.
    const here = o.url.pathname;
    const named = (o.chrome?.regions ?? []).flatMap((r) => r.items).flatMap((
      b,
    ) => b.kind === "categories" || b.kind === "tags" ? b.items : []).find((
      i,
    ) => i.href === here)?.label ?? value;
    return html(
      await template.posts({
        site,
        seo: plainSeo(site, named, false),
        heading: named,
        items: body.data,
        nextHref: body.page.next_cursor
          ? `${here}?cursor=${encodeURIComponent(body.page.next_cursor)}`
          : null,
        firstHref: cursor ? here : null,
      }),
    );
  }

  return async function render(
    request: Request,
    info?: Deno.ServeHandlerInfo,
  ): Promise<Response> {
    const started = performance.now();
    let response: Response;
    try {
      response = await handle(request, info);
    } catch (error) {
      if (!(error instanceof ApiUnavailable)) console.error(error);
      response = await errorPage(503, {
        locale: "en",
        defaultLocale: "en",
        chrome: null,
        path: new URL(request.url).pathname,
      }).catch(() => new Response("Service unavailable", { status: 503 }));
    }
    if (config.logRequests) {
      console.log(JSON.stringify({
        msg: "request",
        method: request.method,
        path: new URL(request.url).pathname,
        status: response.status,
        ms: Math.round(performance.now() - started),
      }));
    }
    return response;
  };
}

/** The root address of a language: `/` for the default one, `/<language>` for the others. */
function root(locale: string, defaultLocale: string): string {
  return locale === defaultLocale ? "/" : `/${locale}`;
}

/** The home page and its translations are known by their language roots. */
function homeSeo(seo: Seo, isHome: boolean, site: SiteView): Seo {
  if (!isHome) return seo;
  return {
    ...seo,
    canonical: seo.canonical === null
      ? null
      : site.siteUrl + root(site.locale, site.defaultLocale),
    alternates: seo.alternates.map((a) => ({
      locale: a.locale,
      href: site.siteUrl + root(a.locale, site.defaultLocale),
    })),
  };
}

/** What the page says about a form posted without JavaScript (`?form=<section>&sent=1`). */
function formOutcome(url: URL): FormOutcome | null {
  const section = url.searchParams.get("form");
  if (!section || !/^[A-Za-z0-9_.-]{1,64}$/.test(section)) return null;
  const code = url.searchParams.get("error");
  return {
    section,
    sent: url.searchParams.get("sent") === "1",
    code: code && /^[a-z_]{1,64}$/.test(code) ? code : null,
  };
}
