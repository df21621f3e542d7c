// The HTML document around every view: head tags (SEO), skip link, header, regions and footer.
import type { ComponentChildren } from "preact";
import type { Seo, SiteView } from "../mod.ts";
import { Regions, SiteFooter, SiteHeader } from "./components/chrome.tsx";

/** Props of {@link Document}. */
export interface DocumentProps {
  site: SiteView;
  seo: Seo;
  css: string;
  /** Module scripts this page needs (none on most pages). */
  scripts?: string[];
  children: ComponentChildren;
}

/** A whole page. */
export function Document(
  { site, seo, css, scripts = [], children }: DocumentProps,
) {
  return (
    <html lang={site.locale}>
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>{seo.title}</title>
        {seo.description && (
          <meta name="description" content={seo.description} />
        )}
        {seo.noindex && <meta name="robots" content="noindex" />}
        {seo.canonical && <link rel="canonical" href={seo.canonical} />}
        {seo.alternates.map((a) => (
          <link rel="alternate" hreflang={a.locale} href={a.href} />
        ))}
        <meta property="og:title" content={seo.title} />
        <meta property="og:type" content={seo.type} />
        <meta property="og:site_name" content={site.siteName} />
        {seo.description && (
          <meta property="og:description" content={seo.description} />
        )}
        {seo.canonical && <meta property="og:url" content={seo.canonical} />}
        {seo.image && <meta property="og:image" content={seo.image} />}
        <meta name="color-scheme" content="light dark" />
        <link rel="stylesheet" href={css} />
        {scripts.map((s) => <script key={s} type="module" src={s} />)}
      </head>
      <body>
        <a class="skip" href="#main">Skip to content</a>
        <SiteHeader site={site} />
        <main id="main" tabindex={-1}>{children}</main>
        <Regions site={site} />
        <SiteFooter site={site} alternates={seo.alternates} />
      </body>
    </html>
  );
}
