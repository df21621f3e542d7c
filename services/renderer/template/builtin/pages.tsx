// The template's own pages: a composed page, a post, the posts index, search and errors.
import type {
  ErrorView,
  MediaObject,
  PageView,
  PostsView,
  PostView,
  PublicItem,
  SearchView,
} from "../mod.ts";
import { Image } from "./components/image.tsx";
import { MediaAsset } from "./components/media_asset.tsx";
import { RichText } from "./components/rich_text.tsx";
import { Document } from "./layout.tsx";
import { Section } from "./sections.tsx";
import { formatDate } from "./components/dates.ts";

/** Names of the files the pages link to, content-hashed by the template. */
export interface AssetNames {
  css: string;
  search: string;
}

function dateOf(item: PublicItem): string | null {
  const value = typeof item.fields.published_on === "string"
    ? item.fields.published_on
    : item.published_at;
  return value ? formatDate(value, item.locale, "long") : null;
}

function summaryOf(item: PublicItem): string | null {
  const body = item.fields.summary ?? item.fields.body;
  if (typeof body !== "string") return null;
  const text = body.replace(/<[^>]*>/g, " ").replace(/\s+/g, " ").trim();
  return text.length > 180
    ? text.slice(0, 177).replace(/\s+\S*$/, "") + "…"
    : text;
}

/** A composed page: its sections in order. */
export function PagePage(
  { view, assets }: { view: PageView; assets: AssetNames },
) {
  const first = view.document.sections[0];
  const hasH1 = first?.type === "hero";
  return (
    <Document site={view.site} seo={view.seo} css={assets.css}>
      {!hasH1 && (
        <h1 class="visually-hidden">
          {String(view.item.fields.title ?? view.item.slug)}
        </h1>
      )}
      {view.document.sections.map((s) => (
        <Section key={s.id} section={s} view={view} />
      ))}
    </Document>
  );
}

/** The library items the public answer carries for the body's images. */
function bodyMedia(value: unknown): MediaObject[] {
  return Array.isArray(value) ? value as MediaObject[] : [];
}

/** A post: title, date, cover, body and its other media. */
export function PostPage(
  { view, assets }: { view: PostView; assets: AssetNames },
) {
  const { item, site } = view;
  const cover = item.media?.cover;
  const date = dateOf(item);
  const minutes = typeof item.fields.reading_minutes === "number"
    ? item.fields.reading_minutes
    : null;
  // A rich-text field's images (under the field's own key) are drawn inside the body.
  const others = Object.entries(item.media ?? {}).filter(([k, m]) =>
    k !== "cover" && m && !(k in item.fields)
  );
  return (
    <Document site={site} seo={view.seo} css={assets.css}>
      <article class="wrap narrow post s">
        <p class="eyebrow">
          <a
            href={site.locale === site.defaultLocale
              ? "/posts"
              : `/${site.locale}/posts`}
          >
            Blog
          </a>
        </p>
        <h1>{String(item.fields.title ?? item.slug)}</h1>
        <p class="muted">
          {date && (
            <time
              datetime={String(item.fields.published_on ?? item.published_at)}
            >
              {date}
            </time>
          )}
          {minutes && <span>{` · ${minutes} min read`}</span>}
        </p>
        {cover && !Array.isArray(cover) && cover.kind === "image" && (
          <Image
            class="post-cover"
            source={cover}
            origins={site.transformOrigins}
            sizes="(min-width: 48rem) 44rem, 100vw"
            ratio="16 / 9"
            priority
          />
        )}
        {typeof item.fields.body === "string" && (
          <RichText
            html={item.fields.body}
            media={bodyMedia(item.media?.body)}
            origins={site.transformOrigins}
          />
        )}
        {others.flatMap(([, m]) => (Array.isArray(m) ? m : [m!])).map((m) => (
          <div class="post-asset">
            <MediaAsset media={m} origins={site.transformOrigins} />
          </div>
        ))}
      </article>
    </Document>
  );
}

/** The posts index. */
export function PostsPage(
  { view, assets }: { view: PostsView; assets: AssetNames },
) {
  const { site } = view;
  return (
    <Document site={site} seo={view.seo} css={assets.css}>
      <div class="wrap s">
        {view.heading
          ? (
            <>
              <p class="eyebrow">
                <a
                  href={site.locale === site.defaultLocale
                    ? "/posts"
                    : `/${site.locale}/posts`}
                >
                  Blog
                </a>
              </p>
              <h1>{view.heading}</h1>
            </>
          )
          : <h1>Blog</h1>}
        {view.items.length === 0
          ? <p class="muted">No posts yet.</p>
          : (
            <ul class="grid cols-3" role="list">
              {view.items.map((item) => {
                const cover = item.media?.cover;
                return (
                  <li class="card">
                    {cover && !Array.isArray(cover) && cover.kind === "image" &&
                      (
                        <Image
                          source={cover}
                          origins={site.transformOrigins}
                          sizes="(min-width: 60rem) 24rem, 100vw"
                          ratio="16 / 9"
                        />
                      )}
                    <div class="card-body">
                      <h2 class="h3">
                        <a class="card-link" href={site.hrefOf(item)}>
                          {String(item.fields.title ?? item.slug)}
                        </a>
                      </h2>
                      {dateOf(item) && <p class="muted">{dateOf(item)}</p>}
                      {summaryOf(item) && <p>{summaryOf(item)}</p>}
                    </div>
                  </li>
                );
              })}
            </ul>
          )}
        <nav class="pager" aria-label="More posts">
          {view.firstHref && (
            <a class="btn btn-secondary" href={view.firstHref}>Newest posts</a>
          )}
          {view.nextHref && (
            <a class="btn btn-secondary" href={view.nextHref}>Older posts</a>
          )}
        </nav>
      </div>
    </Document>
  );
}

/** The search page: the box (with suggestions when scripts run) and the results. */
export function SearchPage(
  { view, assets }: { view: SearchView; assets: AssetNames },
) {
  const { site } = view;
  return (
    <Document
      site={site}
      seo={view.seo}
      css={assets.css}
      scripts={[assets.search]}
    >
      <div class="wrap narrow s">
        <h1>Search</h1>
        <form
          class="search-form"
          role="search"
          method="get"
          action={site.path}
          data-locale={site.locale}
        >
          <label for="q" class="visually-hidden">Search this site</label>
          <input
            id="q"
            type="search"
            name="q"
            value={view.query}
            list="suggestions"
            autocomplete="off"
            placeholder="Search this site"
          />
          <datalist id="suggestions" />
          <button class="btn btn-primary" type="submit">Search</button>
        </form>
        {view.notice && <p class="notice" role="status">{view.notice}</p>}
        {view.query && !view.notice && (
          <p class="muted" role="status">
            {view.hits.length === 0
              ? `Nothing found for “${view.query}”.`
              : `Results for “${view.query}”`}
          </p>
        )}
        <ol class="results">
          {view.hits.map((h) => (
            <li>
              <h2 class="h3">
                <a href={h.href}>{h.title}</a>
              </h2>
              {h.summary && <p>{h.summary}</p>}
            </li>
          ))}
        </ol>
        {view.nextHref && (
          <nav class="pager" aria-label="More results">
            <a class="btn btn-secondary" href={view.nextHref}>More results</a>
          </nav>
        )}
      </div>
    </Document>
  );
}

const ERRORS: Record<number, { title: string; text: string }> = {
  400: {
    title: "This address is not valid",
    text: "Check the address for typing mistakes.",
  },
  404: {
    title: "Page not found",
    text: "The page you are looking for does not exist or has moved.",
  },
  410: {
    title: "This page is gone",
    text: "It was removed on purpose and will not come back.",
  },
  451: {
    title: "Unavailable for legal reasons",
    text: "This page cannot be shown here for legal reasons.",
  },
  500: {
    title: "This page cannot be shown",
    text: "Something in it could not be read. Please try again later.",
  },
  503: {
    title: "The site is resting",
    text: "It cannot be reached right now. Please try again in a moment.",
  },
};

/** An error page. */
export function ErrorPage(
  { view, assets }: { view: ErrorView; assets: AssetNames },
) {
  const e = ERRORS[view.status] ?? ERRORS[404];
  const home = view.site.locale === view.site.defaultLocale
    ? "/"
    : `/${view.site.locale}`;
  return (
    <Document
      site={view.site}
      seo={{ ...view.seo, title: `${e.title} · ${view.site.siteName}` }}
      css={assets.css}
    >
      <div class="wrap narrow s error-page">
        <p class="eyebrow">Error {view.status}</p>
        <h1>{e.title}</h1>
        <p class="lead">{e.text}</p>
        <div class="actions">
          <a class="btn btn-primary" href={home}>Go to the home page</a>
          {view.site.searchOn !== false && (
            <a
              class="btn btn-secondary"
              href={`${home === "/" ? "" : home}/search`}
            >
              Search the site
            </a>
          )}
        </div>
      </div>
    </Document>
  );
}
