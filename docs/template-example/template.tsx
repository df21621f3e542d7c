// Harbour: a small template for Stave's managed renderer. Each function draws one view as HTML.
import type { ComponentChildren } from "preact";
import { renderToString } from "preact-render-to-string";
import type { PageDocument, PageSection } from "@stave/page-contract";
import { OpeningHours } from "./sections/opening_hours.tsx";

// deno-lint-ignore no-explicit-any
type View = any;
// deno-lint-ignore no-explicit-any
type Props = Record<string, any>;

function Shell(
  { view, children }: { view: View; children: ComponentChildren },
) {
  const site = view.site;
  const links = site.chrome?.menus?.header?.items ?? site.fallbackNav;
  return (
    <html lang={site.locale}>
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>{`${view.seo.title} · ${site.siteName}`}</title>
        {view.seo.noindex ? <meta name="robots" content="noindex" /> : null}
        <link rel="stylesheet" href="/_site/style.css" />
      </head>
      <body>
        <header>
          <a href="/">{site.siteName}</a>
          <nav aria-label="Main">
            <ul>
              {links.map((l: { id: string; label: string; href: string }) => (
                <li key={l.id}>
                  <a href={l.href}>{l.label}</a>
                </li>
              ))}
            </ul>
          </nav>
        </header>
        <main id="main">{children}</main>
        <footer>
          <p>{site.chrome?.footer_note?.text ?? site.siteName}</p>
        </footer>
      </body>
    </html>
  );
}

function html(node: ComponentChildren): string {
  return "<!doctype html>" + renderToString(<>{node}</>);
}

function text(value: unknown): string {
  if (typeof value === "string") return value;
  if (Array.isArray(value)) return value.map((run) => run.text ?? "").join("");
  return "";
}

function Picture({ media }: { media: Props | null | undefined }) {
  if (!media) return null;
  return <img src={media.url} alt={media.alt ?? ""} loading="lazy" />;
}

function Section({ section, props }: { section: PageSection; props: Props }) {
  const headingId = `h-${section.id}`;
  const heading = props.heading
    ? <h2 id={headingId}>{props.heading}</h2>
    : null;
  const items: Props[] = props.items ?? props.features ?? props.plans ?? [];
  return (
    <section aria-labelledby={props.heading ? headingId : undefined}>
      {section.type === "hero" ? <h1>{props.heading}</h1> : heading}
      {props.subheading ? <p>{props.subheading}</p> : null}
      {props.body ? <p>{props.body}</p> : null}
      {(props.paragraphs ?? []).map((p: unknown, i: number) => (
        <p key={i}>{text(p)}</p>
      ))}
      <Picture media={props.media} />
      {items.length > 0
        ? (
          <ul class="grid">
            {items.map((item) => (
              <li>
                <strong>
                  {item.title ?? item.question ?? item.name ?? item.value}
                </strong>
                <p>
                  {item.body ?? item.answer ?? item.label ?? item.quote ?? ""}
                </p>
                <Picture media={item.media} />
              </li>
            ))}
          </ul>
        )
        : null}
      {section.type === "custom" && section.definition?.key === "opening_hours"
        ? (
          <OpeningHours
            section={section}
            fields={props.fields ?? {}}
            headingId={headingId}
          />
        )
        : null}
      {props.link
        ? (
          <p>
            <a href={props.link.href}>{props.link.label}</a>
          </p>
        )
        : null}
    </section>
  );
}

export default {
  page(view: View): string {
    const doc = view.document as PageDocument;
    return html(
      <Shell view={view}>
        {doc.sections.some((s) => s.type === "hero")
          ? null
          : <h1>{view.item.fields.title}</h1>}
        {doc.sections.map((s) => (
          <Section section={s} props={doc.props[s.id] as Props} />
        ))}
      </Shell>,
    );
  },
  post(view: View): string {
    return html(
      <Shell view={view}>
        <article>
          <h1>{view.item.fields.title}</h1>
          <p>{view.item.fields.summary}</p>
        </article>
      </Shell>,
    );
  },
  posts(view: View): string {
    return html(
      <Shell view={view}>
        <h1>Blog</h1>
        <ul>
          {view.items.map((item: Props) => (
            <li>
              <a href={view.site.hrefOf(item)}>{item.fields.title}</a>
            </li>
          ))}
        </ul>
        {view.nextHref ? <a href={view.nextHref}>Older posts</a> : null}
      </Shell>,
    );
  },
  search(view: View): string {
    return html(
      <Shell view={view}>
        <h1>Search</h1>
        <form method="get" action="/search" role="search">
          <label for="q">Search this site</label>
          <input id="q" name="q" value={view.query} />
          <button type="submit">Search</button>
        </form>
        {view.notice ? <p>{view.notice}</p> : null}
        <ul>
          {view.hits.map((hit: Props) => (
            <li>
              <a href={hit.href}>{hit.title}</a>
            </li>
          ))}
        </ul>
      </Shell>,
    );
  },
  error(view: View): string {
    return html(
      <Shell view={view}>
        <h1>
          {view.status === 404 ? "Page not found" : "Something went wrong"}
        </h1>
        <p>
          <a href="/">Back to the home page</a>
        </p>
      </Shell>,
    );
  },
};
