// The latest-entries section: a list read through the public API at request time. A list that
// cannot be read is drawn as an error for this section, never as an empty list.
import type { PublicItem } from "../mod.ts";
import { Image, type ImageSource } from "./components/image.tsx";
import { Heading } from "./components/text.tsx";
import { formatDate } from "./components/dates.ts";
import type { SectionProps } from "./section_props.ts";

function dateText(value: unknown, locale: string): string | null {
  return typeof value === "string" ? formatDate(value, locale, "long") : null;
}

function coverOf(item: PublicItem, field: string | null): ImageSource | null {
  if (!field) return null;
  const media = item.media?.[field];
  if (media && !Array.isArray(media) && media.kind === "image") return media;
  return null;
}

/** The section's list. */
export function LatestEntries(
  { section, props, view, headingId }: SectionProps,
) {
  const list = view.lists[section.id];
  return (
    <div class="wrap">
      <Heading text={props.heading} id={headingId} />
      {!list || !list.ok
        ? (
          <p class="section-error" role="status">
            These entries cannot be shown right now. Please try again in a
            moment.
          </p>
        )
        : list.items.length === 0
        ? <p class="muted">{props.empty_text ?? "Nothing here yet."}</p>
        : (
          <ul class="grid cols-3" role="list">
            {list.items.map((item) => {
              const cover = coverOf(item, props.cover_field);
              const date = props.date_field
                ? dateText(item.fields[props.date_field], item.locale)
                : null;
              return (
                <li class="card">
                  {cover && (
                    <Image
                      source={cover}
                      origins={view.site.transformOrigins}
                      sizes="(min-width: 60rem) 24rem, 100vw"
                      ratio="16 / 9"
                    />
                  )}
                  <div class="card-body">
                    <h3>
                      <a class="card-link" href={view.site.hrefOf(item)}>
                        {String(item.fields[props.title_field] ?? item.slug)}
                      </a>
                    </h3>
                    {date && <p class="muted">{date}</p>}
                    {props.summary_field &&
                      typeof item.fields[props.summary_field] === "string" && (
                      <p>
                        {String(item.fields[props.summary_field]).replace(
                          /<[^>]*>/g,
                          " ",
                        ).slice(0, 200)}
                      </p>
                    )}
                  </div>
                </li>
              );
            })}
          </ul>
        )}
    </div>
  );
}
