// Platform chrome components: header navigation, footer and declared regions, drawn from
// `/v1/_chrome` (reused at most 30 s) with the site's pages as navigation when no menu is placed.
import type { ChromeLink } from "../../../api.ts";
import type { SiteView } from "../../mod.ts";

function headerLinks(site: SiteView): ChromeLink[] {
  const key = site.chrome?.placements.header;
  return key ? site.chrome?.menus[key]?.items ?? [] : site.fallbackNav;
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
          </ul>
        </nav>
      </div>
    </header>
  );
}

/** A region item as the chrome serves it: a link, or a titled group of links. */
type RegionItem = {
  label?: string;
  title?: string;
  href?: string;
  items?: RegionItem[];
};

/** Declared regions in the order the chrome lists them. */
export function Regions({ site }: { site: SiteView }) {
  const regions = (site.chrome?.regions ?? []) as {
    key?: string;
    label?: string;
    items?: RegionItem[];
  }[];
  if (regions.length === 0) return null;
  return (
    <div class="regions wrap">
      {regions.map((r) => (
        <section class="region" aria-label={r.label ?? r.key ?? "More"}>
          {r.label && <h2 class="region-title">{r.label}</h2>}
          <ul>
            {(r.items ?? []).map((i) => (
              <li>
                {i.href
                  ? <a href={i.href}>{i.label ?? i.title}</a>
                  : <span>{i.label ?? i.title}</span>}
                {i.items && (
                  <ul>
                    {i.items.map((c) => (
                      <li>
                        {c.href
                          ? <a href={c.href}>{c.label ?? c.title}</a>
                          : c.label ?? c.title}
                      </li>
                    ))}
                  </ul>
                )}
              </li>
            ))}
          </ul>
        </section>
      ))}
    </div>
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
  const links = key ? site.chrome?.menus[key]?.items ?? [] : [];
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
