// This module is browser compatible.
// A section's props in canonical form: each read against its type's prop specs (or a custom
// section's registered fields), then the rules that join several props.
import {
  type PropSpec,
  SECTION_TYPES,
  type SectionType,
} from "./vocabulary.ts";
import {
  checkCustomFields,
  type ComponentPin,
  type SectionRegistry,
} from "./custom.ts";
import { isObject, pathOf, refuse } from "./refusal.ts";
import { PropReader } from "./prop_reader.ts";

/** A section structure in canonical form. */
export interface PageSection {
  id: string;
  type: SectionType;
  variant: string;
  layout: string;
  component: ComponentPin | null;
  appearance?: { background?: string; spacing?: string; motion?: string };
  definition?: { key: string; version: number; digest: string };
  shared?: { entry: string };
}

/** Options of {@link parsePageDocument}. */
export interface ParsePageOptions {
  /**
   * `store` (default) reads a document as saved: shared references allowed, ids without dots.
   * `deliver` reads a document as a renderer receives it: shared sections must be expanded.
   */
  purpose?: "store" | "deliver";
  /** Registered section definitions and components; none when absent. */
  registry?: SectionRegistry;
}

export function parseProps(
  section: PageSection,
  raw: unknown,
  at: string,
  options: ParsePageOptions,
): { props: Record<string, unknown>; contract: number } {
  const id = section.id;
  if (!isObject(raw)) refuse("invalid_slide", at, "Props are an object", id);
  for (const reserved of ["id", "type"]) {
    if (reserved in raw) {
      refuse(
        "invalid_slide",
        pathOf(at, reserved),
        `Props must not repeat "${reserved}"`,
        id,
      );
    }
  }
  if (section.layout !== "default") {
    for (const pair of section.layout.split(";")) {
      const key = pair.split("=")[0];
      if (key in raw) {
        refuse(
          "invalid_slide",
          pathOf(at, key),
          `Props must not repeat the layout key "${key}"`,
          id,
        );
      }
    }
  }
  const spec: Record<string, PropSpec> = SECTION_TYPES[section.type];
  const reader = new PropReader(id);
  const props = reader.object(raw, spec, at);
  if (section.type === "custom") {
    props.fields = checkCustomFields(
      section,
      raw.fields,
      pathOf(at, "fields"),
      {
        registry: options.registry,
        refuse: (code, path, message) => refuse(code, path, message, id),
        link: (value, path) => reader.link(value, path, false),
        media: (value, path) => reader.media(value, path),
      },
    );
  }
  crossChecks(section.type, props, at, id);
  return { props, contract: reader.contract };
}

/** Rules that join props: hero's secondary link, pricing's one highlight, contact's one way. */
function crossChecks(
  type: SectionType,
  props: Record<string, unknown>,
  at: string,
  id: string,
): void {
  if (type === "hero" && "secondary_link" in props && props.link === null) {
    refuse(
      "invalid_slide",
      pathOf(at, "secondary_link"),
      "A hero has a secondary link only when it has a link",
      id,
    );
  }
  if (type === "pricing") {
    const plans = props.plans as Record<string, unknown>[];
    const lit = plans.flatMap((p, i) => (p.highlighted ? [i] : []));
    if (lit.length > 1) {
      refuse(
        "invalid_slide",
        pathOf(pathOf(pathOf(at, "plans"), lit[1]), "highlighted"),
        "At most one plan is highlighted",
        id,
      );
    }
  }
  if (type === "contact") {
    const hours = props.hours as unknown[];
    if (
      props.address === null && props.phone === null && props.email === null &&
      props.map_link === null && hours.length === 0
    ) {
      refuse(
        "invalid_slide",
        at,
        "A contact section needs an address, phone, email, map link or opening hours",
        id,
      );
    }
  }
  if (type === "form") {
    const names = new Set<string>();
    (props.fields as { name: string }[]).forEach((f, i) => {
      if (names.has(f.name)) {
        refuse(
          "invalid_slide",
          pathOf(pathOf(pathOf(at, "fields"), i), "name"),
          `Field name "${f.name}" is used twice in this form`,
          id,
        );
      }
      names.add(f.name);
    });
  }
}
