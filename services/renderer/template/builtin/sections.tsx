// One component per section type of the page contract (formats 2 and 3), each with its variants
// and layouts. A section component receives the section structure, its props and the page view.
import type { ComponentChildren } from "preact";
import type { PageSection } from "../../../../core/pages/mod.ts";
import type { PageView } from "../mod.ts";
import type { SectionProps } from "./section_props.ts";
import { Image, type ImageSource } from "./components/image.tsx";
import {
  Action,
  Heading,
  type LinkValue,
  Paragraph,
} from "./components/text.tsx";
import { LatestEntries } from "./latest_entries.tsx";
import { Contact, Form, Search } from "./sections_interactive.tsx";

export type { SectionProps };

type Item = Record<string, unknown>;

function layoutOf(section: PageSection): Record<string, string> {
  if (section.layout === "default") return {};
  return Object.fromEntries(
    section.layout.split(";").map((kv) => kv.split("=")),
  );
}

function Img(
  { media, view, sizes, ratio, priority }: {
    media: ImageSource | null | undefined;
    view: PageView;
    sizes: string;
    ratio?: string;
    priority?: boolean;
  },
) {
  if (!media) return null;
  return (
    <Image
      source={media}
      origins={view.site.transformOrigins}
      sizes={sizes}
      ratio={ratio}
      priority={priority}
    />
  );
}

function Links(
  { primary, secondary }: {
    primary?: LinkValue | null;
    secondary?: LinkValue | null;
  },
) {
  if (!primary && !secondary) return null;
  return (
    <div class="actions">
      {primary && <Action link={primary} />}
      {secondary && <Action link={secondary} kind="secondary" />}
    </div>
  );
}

function Hero({ section, props, view, headingId }: SectionProps) {
  const side = layoutOf(section).media_side === "start" ? "start" : "end";
  const first = view.document.sections[0]?.id === section.id;
  return (
    <div
      class={`wrap hero hero-${section.variant} ${
        props.media ? `has-media media-${side}` : ""
      }`}
    >
      <div class="hero-text">
        {props.eyebrow && <p class="eyebrow">{props.eyebrow}</p>}
        {first
          ? <h1 id={headingId}>{props.heading}</h1>
          : <h2 id={headingId}>{props.heading}</h2>}
        {props.subheading && <p class="lead">{props.subheading}</p>}
        <Links primary={props.link} secondary={props.secondary_link} />
      </div>
      {props.media && (
        <div class="hero-media">
          <Img
            media={props.media}
            view={view}
            sizes="(min-width: 60rem) 36rem, 100vw"
            ratio="4 / 3"
            priority={first}
          />
        </div>
      )}
    </div>
  );
}

function RichTextSection({ props, headingId }: SectionProps) {
  return (
    <div class="wrap narrow prose">
      <Heading text={props.heading} id={headingId} />
      {(props.paragraphs as unknown[]).map((p, i) => (
        <Paragraph key={i} value={p} />
      ))}
    </div>
  );
}

function TextMedia({ section, props, view, headingId }: SectionProps) {
  const side = layoutOf(section).media_side === "start" ? "start" : "end";
  return (
    <div class={`wrap split media-${side}`}>
      <div class="prose">
        <Heading text={props.heading} id={headingId} />
        {(props.paragraphs as unknown[]).map((p, i) => (
          <Paragraph key={i} value={p} />
        ))}
      </div>
      {props.media && (
        <Img
          media={props.media}
          view={view}
          sizes="(min-width: 60rem) 32rem, 100vw"
          ratio="4 / 3"
        />
      )}
    </div>
  );
}

function Grid(
  { children, count, section }: {
    children: ComponentChildren;
    count: number;
    section: PageSection;
  },
) {
  const columns = Number(layoutOf(section).columns) ||
    Math.min(count, count === 4 ? 2 : 3);
  return (
    <ul class={`grid cols-${Math.min(Math.max(columns, 1), 4)}`} role="list">
      {children}
    </ul>
  );
}

function FeatureGrid({ section, props, headingId }: SectionProps) {
  const features = props.features as Item[];
  return (
    <div class="wrap">
      <Heading text={props.heading} id={headingId} />
      <Grid count={features.length} section={section}>
        {features.map((f) => (
          <li
            class={section.variant === "list"
              ? "feature feature-row"
              : "feature"}
          >
            {f.title && <h3>{f.title as string}</h3>}
            {f.body && <p>{f.body as string}</p>}
          </li>
        ))}
      </Grid>
    </div>
  );
}

function Cta({ props, headingId }: SectionProps) {
  return (
    <div class="wrap cta">
      <div>
        <Heading text={props.heading} id={headingId} />
        {props.body && <p class="lead">{props.body}</p>}
      </div>
      <Links primary={props.link} secondary={props.secondary_link} />
    </div>
  );
}

function Cards({ section, props, view, headingId }: SectionProps) {
  const items = props.items as Item[];
  return (
    <div class="wrap">
      <Heading text={props.heading} id={headingId} />
      <Grid count={items.length} section={section}>
        {items.map((c) => (
          <li
            class={`card ${section.variant === "horizontal" ? "card-row" : ""}`}
          >
            {c.media
              ? (
                <Img
                  media={c.media as ImageSource}
                  view={view}
                  sizes="(min-width: 60rem) 24rem, 100vw"
                  ratio="16 / 9"
                />
              )
              : null}
            <div class="card-body">
              <h3>
                {c.link
                  ? (
                    <a class="card-link" href={(c.link as LinkValue).href}>
                      {c.title as string}
                    </a>
                  )
                  : c.title as string}
              </h3>
              {c.body && <p>{c.body as string}</p>}
              {c.link && (
                <p class="card-more" aria-hidden="true">
                  {(c.link as LinkValue).label} →
                </p>
              )}
            </div>
          </li>
        ))}
      </Grid>
    </div>
  );
}

function Stats({ section, props, headingId }: SectionProps) {
  const items = props.items as Item[];
  return (
    <div class="wrap">
      <Heading text={props.heading} id={headingId} />
      <Grid count={items.length} section={section}>
        {items.map((s) => (
          <li class="stat">
            <p class="stat-value">{s.value as string}</p>
            <p class="stat-label">{s.label as string}</p>
            {s.note && <p class="muted">{s.note as string}</p>}
          </li>
        ))}
      </Grid>
    </div>
  );
}

function Faq({ props, headingId }: SectionProps) {
  return (
    <div class="wrap narrow">
      <Heading text={props.heading} id={headingId} />
      <div class="faq">
        {(props.items as Item[]).map((q) => (
          <details>
            <summary>{q.question as string}</summary>
            <p>{q.answer as string}</p>
          </details>
        ))}
      </div>
    </div>
  );
}

function Testimonials({ section, props, view, headingId }: SectionProps) {
  const items = props.items as Item[];
  return (
    <div class="wrap">
      <Heading text={props.heading} id={headingId} />
      <Grid
        count={section.variant === "single" ? 1 : items.length}
        section={section}
      >
        {items.map((t) => (
          <li>
            <figure class="quote">
              <blockquote>
                <p>{t.quote as string}</p>
              </blockquote>
              <figcaption>
                {t.media
                  ? (
                    <Img
                      media={t.media as ImageSource}
                      view={view}
                      sizes="3rem"
                      ratio="1 / 1"
                    />
                  )
                  : null}
                <span>
                  <strong>{t.name as string}</strong>
                  {t.role && <span class="muted">{t.role as string}</span>}
                </span>
              </figcaption>
            </figure>
          </li>
        ))}
      </Grid>
    </div>
  );
}

function MediaSection({ props, view, headingId }: SectionProps) {
  const items = props.items as Item[];
  return (
    <div class="wrap">
      <Heading text={props.heading} id={headingId} />
      <div class={`gallery ${items.length === 1 ? "single" : ""}`}>
        {items.map((m) => (
          <figure>
            {m.kind === "video"
              ? (
                <iframe
                  class="video"
                  src={m.provider === "vimeo"
                    ? `https://player.vimeo.com/video/${m.video_id}`
                    : `https://www.youtube-nocookie.com/embed/${m.video_id}`}
                  title={m.title as string}
                  loading="lazy"
                  allow="fullscreen; picture-in-picture"
                />
              )
              : (
                <Img
                  media={m.media as ImageSource}
                  view={view}
                  sizes="(min-width: 60rem) 36rem, 100vw"
                />
              )}
            {m.caption && <figcaption>{m.caption as string}</figcaption>}
          </figure>
        ))}
      </div>
    </div>
  );
}

function Logos({ props, view, headingId }: SectionProps) {
  return (
    <div class="wrap">
      <Heading text={props.heading} id={headingId} />
      <ul class="logos" role="list">
        {(props.items as Item[]).map((l) => {
          const media = {
            ...(l.media as ImageSource),
            alt: (l.media as ImageSource).alt ?? (l.name as string),
          };
          const img = <Img media={media} view={view} sizes="10rem" />;
          return (
            <li>
              {l.link ? <a href={(l.link as LinkValue).href}>{img}</a> : img}
            </li>
          );
        })}
      </ul>
    </div>
  );
}

function Steps({ props, headingId }: SectionProps) {
  return (
    <div class="wrap narrow">
      <Heading text={props.heading} id={headingId} />
      <ol class="steps">
        {(props.items as Item[]).map((s) => (
          <li>
            <h3>{s.title as string}</h3>
            {s.body && <p>{s.body as string}</p>}
          </li>
        ))}
      </ol>
    </div>
  );
}

function Pricing({ props, headingId }: SectionProps) {
  const plans = props.plans as Item[];
  return (
    <div class="wrap">
      <Heading text={props.heading} id={headingId} />
      <ul class={`grid cols-${Math.min(plans.length, 4)}`} role="list">
        {plans.map((p) => (
          <li class={`plan ${p.highlighted ? "plan-highlighted" : ""}`}>
            <h3>{p.name as string}</h3>
            <p class="price">
              {p.price as string}
              {p.period && <span class="muted">/ {p.period as string}</span>}
            </p>
            {p.description && <p>{p.description as string}</p>}
            {(p.features as string[]).length > 0 && (
              <ul class="checks">
                {(p.features as string[]).map((f, i) => <li key={i}>{f}</li>)}
              </ul>
            )}
            {p.link && (
              <Action
                link={p.link as LinkValue}
                kind={p.highlighted ? "primary" : "secondary"}
              />
            )}
          </li>
        ))}
      </ul>
    </div>
  );
}

function Menu({ props, headingId }: SectionProps) {
  return (
    <div class="wrap narrow">
      <Heading text={props.heading} id={headingId} />
      {(props.groups as Item[]).map((g) => (
        <div class="menu-group">
          {g.title && <h3>{g.title as string}</h3>}
          <dl class="menu-items">
            {(g.items as Item[]).map((i) => (
              <div class="menu-item">
                <dt>{i.name as string}</dt>
                {i.price && <dd class="price">{i.price as string}</dd>}
                {i.description && (
                  <dd class="muted">{i.description as string}</dd>
                )}
              </div>
            ))}
          </dl>
        </div>
      ))}
    </div>
  );
}

function Custom({ props, headingId }: SectionProps) {
  // A registered section is drawn by the accepted template that registers it; this template
  // has none, so it shows the section's heading only.
  return (
    <div class="wrap narrow">
      <Heading text={props.heading} id={headingId} />
    </div>
  );
}

/** The component of each section type. */
export const SECTIONS: Record<string, (p: SectionProps) => ComponentChildren> =
  {
    hero: Hero,
    rich_text: RichTextSection,
    text_media: TextMedia,
    feature_grid: FeatureGrid,
    cta: Cta,
    cards: Cards,
    stats: Stats,
    faq: Faq,
    testimonials: Testimonials,
    media: MediaSection,
    logos: Logos,
    steps: Steps,
    pricing: Pricing,
    menu: Menu,
    contact: Contact,
    latest_entries: LatestEntries,
    form: Form,
    search: Search,
    custom: Custom,
  };

/** One section in its frame: id, appearance and an accessible name from its heading. */
export function Section(
  { section, view }: { section: PageSection; view: PageView },
) {
  const Component = SECTIONS[section.type];
  if (!Component) return null;
  const props = view.document.props[section.id] ?? {};
  const headingId = `h-${section.id.replace(/[^A-Za-z0-9_-]/g, "-")}`;
  const a = section.appearance ?? {};
  const classes = [
    "s",
    `s-${section.type.replace(/_/g, "-")}`,
    `v-${section.variant}`,
    a.background ? `bg-${a.background}` : "",
    a.spacing ? `sp-${a.spacing}` : "",
  ].filter(Boolean).join(" ");
  const hasHeading = typeof props.heading === "string" && props.heading !== "";
  return (
    <section
      id={section.id}
      class={classes}
      aria-labelledby={hasHeading ? headingId : undefined}
    >
      <Component
        section={section}
        props={props}
        view={view}
        headingId={headingId}
      />
    </section>
  );
}
