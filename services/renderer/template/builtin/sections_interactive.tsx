// The built-in sections a visitor acts on: contact details with their form, a site form and
// site search, each drawn without script first.
import type { SectionProps } from "./section_props.ts";
import { type FormField, PlatformForm } from "./components/form.tsx";
import { Action, Heading } from "./components/text.tsx";

type Item = Record<string, unknown>;

export function Contact({ props, headingId }: SectionProps) {
  const hours = props.hours as Item[];
  return (
    <div class="wrap split">
      <div>
        <Heading text={props.heading} id={headingId} />
        {props.body && <p class="lead">{props.body}</p>}
        {props.link && <Action link={props.link} />}
      </div>
      <dl class="contact">
        {props.address && (
          <div>
            <dt>Address</dt>
            <dd class="pre">{props.address}</dd>
          </div>
        )}
        {props.phone && (
          <div>
            <dt>Phone</dt>
            <dd>
              <a href={`tel:${String(props.phone).replace(/[^+0-9]/g, "")}`}>
                {props.phone}
              </a>
            </dd>
          </div>
        )}
        {props.email && (
          <div>
            <dt>Email</dt>
            <dd>
              <a href={`mailto:${props.email}`}>{props.email}</a>
            </dd>
          </div>
        )}
        {props.map_link && (
          <div>
            <dt>Map</dt>
            <dd>
              <a href={props.map_link.href} rel="noopener">
                {props.map_link.label}
              </a>
            </dd>
          </div>
        )}
        {hours.length > 0 && (
          <div>
            <dt>Hours</dt>
            <dd>
              <ul class="hours">
                {hours.map((h) => (
                  <li>
                    <span>{h.label as string}</span>{" "}
                    <span>{h.value as string}</span>
                  </li>
                ))}
              </ul>
            </dd>
          </div>
        )}
      </dl>
    </div>
  );
}

export function Form({ section, props, view, headingId }: SectionProps) {
  return (
    <div class="wrap narrow">
      <Heading text={props.heading} id={headingId} />
      {props.body && <p class="lead">{props.body}</p>}
      <PlatformForm
        pageId={view.item.id}
        locale={view.item.locale}
        section={section.id}
        fields={props.fields as FormField[]}
        consent={props.consent}
        submitLabel={props.submit_label}
        successText={props.success_text}
        returnTo={view.site.path}
        formKey={view.formKey}
        disabled={view.site.preview}
        outcome={view.form}
      />
    </div>
  );
}

export function Search({ props, view, headingId }: SectionProps) {
  const prefix = view.site.locale === view.site.defaultLocale
    ? ""
    : `/${view.site.locale}`;
  return (
    <div class="wrap narrow">
      <Heading text={props.heading ?? "Search"} id={headingId} />
      <form
        class="search-form"
        role="search"
        action={`${prefix}/search`}
        method="get"
      >
        <label for={`${headingId}-q`} class="visually-hidden">
          Search this site
        </label>
        <input
          id={`${headingId}-q`}
          type="search"
          name="q"
          placeholder={props.placeholder ?? "Search this site"}
        />
        <button class="btn btn-primary" type="submit">Search</button>
      </form>
    </div>
  );
}
