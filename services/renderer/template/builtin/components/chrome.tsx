// Platform chrome components: header navigation, footer and declared regions, drawn from
// `/v1/_chrome` (reused at most 30 s) with the site's pages as navigation when no menu is placed.
import type { ChromeLink, ServedBlock } from "../../../../../core/pages/mod.ts";
import type { PageView, SiteView } from "../../mod.ts";
import { Section } from "../sections.tsx";
import { formatDate } from "./dates.ts";

/**
 * A placed menu as one row of links: a heading (an item with no address of its own) stands
 * for its children, which are where it leads.
 */
function menuLinks(
  site: SiteView,
  key: string | null | undefined,
): ChromeLink[] {
  const items = key ? site.chrome?.menus[key]?.items ?? [] : [];
  return items.flatMap((i) =>
    i.href === null ? i.children : [{ id: i.id, label: i.label, href: i.href }]
  );
}

function headerLinks(site: SiteView): ChromeLink[] {
  const key = site.chrome?.placements.header;
  return key ? menuLinks(site, key) : site.fallbackNav;
}

function current(site: SiteView, href: string): boolean {
  return href === site.path ||
    (href !== "/" && site.path.startsWith(href + "/"));
}

/** The site header: name, navigation and search. */
export function SiteHeader({ site }: { site: SiteView }) {
  const prefix = site.locale === site.defaultLocale ? "" : `/${site.locale}`;
  const links = headerLinks(site);
  return (
    <header class="site-header">
      <div class="wrap header-row">
        <a class="brand" href={prefix || "/"}>{site.siteName}</a>
        <nav aria-label="Main">
          <ul class="nav">
            {links.map((l) => (
              <li>
                <a
                  href={l.href}
                  aria-current={current(site, l.href) ? "page" : undefined}
                >
                  {l.label}
                </a>
              </li>
            ))}
            {site.searchOn !== false && (
              <li>
                <a
                  class="nav-search"
                  href={`${prefix}/search`}
                  aria-current={site.path.endsWith("/search")
                    ? "page"
                    : undefined}
                >
                  Search
                </a>
              </li>
            )}
          </ul>
        </nav>
      </div>
    </header>
  );
}

/** Headings of blocks stored without one, by kind. */
const BLOCK_HEADINGS: Record<ServedBlock["kind"], string | null> = {
  shared_section: null,
  menu: null,
  search: "Search",
  recent_posts: "Recent posts",
  categories: "Categories",
  tags: "Tags",
  posts_by_month: "Archive",
};

function monthName(month: string, locale: string): string {
  return formatDate(`${month}-01T00:00:00Z`, locale, "month") ?? month;
}

/** A shared section's sections, drawn by the same section components as a page. */
function SharedBlock(
  { block, site, idBase }: {
    block: Extract<ServedBlock, { kind: "shared_section" }>;
    site: SiteView;
    idBase: string;
  },
) {
  // Ids are prefixed so a region never repeats an id of the page around it; a list section needs
  // the page's own list reads, so a region leaves it out.
  const sections = block.document.sections.filter((s) =>
    s.type !== "latest_entries"
  ).map((s) => ({ ...s, id: `${idBase}-${s.id}` }));
  const props = Object.fromEntries(
    block.document.sections.map((s) => [
      `${idBase}-${s.id}`,
      block.document.props[s.id],
    ]),
  );
  const view: PageView = {
    site,
    seo: {
      title: "",
      description: null,
      canonical: null,
      alternates: [],
      noindex: false,
      image: null,
      type: "website",
    },
    item: {
      model: "shared_section",
      slug: block.id,
      locale: site.locale,
      fields: {},
    } as unknown as PageView["item"],
    document: { ...block.document, sections, props },
    lists: {},
    form: null,
    formKey: "",
  };
  return (
    <div class="region-shared">
      {sections.map((s) => <Section key={s.id} section={s} view={view} />)}
    </div>
  );
}

function Block(
  { block, site, idBase }: {
    block: ServedBlock;
    site: SiteView;
    idBase: string;
  },
) {
  if (block.kind === "shared_section") {
    return <SharedBlock block={block} site={site} idBase={idBase} />;
  }
  const heading = block.title ?? BLOCK_HEADINGS[block.kind];
  const headingId = `${idBase}-h`;
  const links = (items: { id: string; label: string; href: string }[]) => (
    <ul class="region-links">
      {items.map((i) => (
        <li key={i.id}>
          <a href={i.href}>{i.label}</a>
        </li>
      ))}
    </ul>
  );
  let body;
  switch (block.kind) {
    case "menu":
      return (
        <nav
          class="region-block"
          aria-labelledby={block.title ? headingId : undefined}
          aria-label={block.title ? undefined : block.key}
        >
          {block.title && <h2 id={headingId}>{block.title}</h2>}
          <ul class="region-links">
            {block.items.map((i) => (
              <li key={i.id}>
                {i.href
                  ? <a href={i.href}>{i.label}</a>
                  : <span>{i.label}</span>}
                {i.children.length > 0 && links(i.children)}
              </li>
            ))}
          </ul>
        </nav>
      );
    case "search":
      body = (
        <form
          class="region-search"
          method="get"
          action={block.href}
          role="search"
        >
          <label for={`${idBase}-q`} class="visually-hidden">
            Search this site
          </label>
          <input
            id={`${idBase}-q`}
            name="q"
            type="search"
            required
            maxLength={100}
          />
          <button type="submit">Search</button>
        </form>
      );
      break;
    case "recent_posts":
      body = (
        <ul class="region-links">
          {block.items.map((i) => (
            <li key={i.id}>
              <a href={i.href}>{i.label}</a>
              <time datetime={i.published_at}>
                {formatDate(i.published_at, site.locale, "medium")}
              </time>
            </li>
          ))}
        </ul>
      );
      break;
    case "categories":
    case "tags":
      body = (
        <ul class={block.kind === "tags" ? "region-tags" : "region-links"}>
          {block.items.map((i) => (
            <li key={i.id}>
              <a href={i.href}>
                {i.label} <span class="count">({i.count})</span>
              </a>
            </li>
          ))}
        </ul>
      );
      break;
    case "posts_by_month":
      body = (
        <div class="region-months">
          {block.months.map((m) => (
            <details key={m.month}>
              <summary>
                {monthName(m.month, site.locale)}{" "}
                <span class="count">({m.items.length})</span>
              </summary>
              {links(m.items)}
            </details>
          ))}
        </div>
      );
      break;
  }
  return (
    <section
      class="region-block"
      aria-labelledby={heading ? headingId : undefined}
    >
      {heading && <h2 id={headingId}>{heading}</h2>}
      {body}
    </section>
  );
}

/**
 * The regions the chrome serves, in its order: each a landmark named by its declared label, its
 * blocks as columns (a shared section spans them all). A region with nothing to show is not drawn.
 */
export function Regions({ site }: { site: SiteView }) {
  const regions = (site.chrome?.regions ?? []).filter((r) =>
    r.items.length > 0
  );
  if (regions.length === 0) return null;
  return (
    <>
      {regions.map((r) => (
        <aside
          key={r.key}
          class={`region region-${r.key.replace(/[^A-Za-z0-9_-]/g, "")}`}
          aria-label={r.label}
        >
          <div class="wrap region-grid">
            {r.items.map((block, i) => (
              <Block
                key={i}
                block={block}
                site={site}
                idBase={`r-${r.key}-${i}`}
              />
            ))}
          </div>
        </aside>
      ))}
    </>
  );
}

/** The site footer: the placed footer menu, the footer note and the languages. */
export function SiteFooter(
  { site, alternates }: {
    site: SiteView;
    alternates: { locale: string; href: string }[];
  },
) {
  const key = site.chrome?.placements.footer;
  const links = menuLinks(site, key);
  const note = site.chrome?.footer_note?.text;
  return (
    <footer class="site-footer">
      <div class="wrap footer-row">
        <p class="footer-note">{note ?? `© ${site.siteName}`}</p>
        {links.length > 0 && (
          <nav aria-label="Footer">
            <ul class="nav">
              {links.map((l) => (
                <li>
                  <a href={l.href}>{l.label}</a>
                </li>
              ))}
            </ul>
          </nav>
        )}
        {alternates.length > 1 && (
          <nav aria-label="Languages">
            <ul class="nav">
              {alternates.map((a) => (
                <li>
                  <a
                    href={a.href}
                    hreflang={a.locale}
                    lang={a.locale}
                    aria-current={a.locale === site.locale ? "true" : undefined}
                  >
                    {a.locale.toUpperCase()}
                  </a>
                </li>
              ))}
            </ul>
          </nav>
        )}
      </div>
    </footer>
  );
}
