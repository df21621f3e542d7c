// This module is browser compatible.
// Parses and validates a page document (spec 3 part 2.2) into its canonical form, or refuses it
// with the spec's code and the JSON path of the offending value. Never throws for bad input.
import {
  APPEARANCE,
  DIGEST_PATTERN,
  EMAIL_PATTERN,
  LAYOUT_PATTERN,
  PAGE_CONTRACT,
  PAGE_LIMITS,
  type PageErrorCode,
  SECTION_ID_PATTERN,
  SECTION_TYPES,
  type SectionType,
  VARIANT_PATTERN,
} from "./vocabulary.ts";
import type { ComponentPin, SectionRegistry } from "./custom.ts";
import {
  closed,
  isObject,
  matches,
  type PageError,
  pathOf,
  Refusal,
  refuse,
} from "./refusal.ts";
export { closed, pathOf } from "./refusal.ts";
export { isSupportedFileType } from "./prop_reader.ts";
import {
  type PageSection,
  type ParsePageOptions,
  parseProps,
} from "./section_props.ts";
export type { PageSection, ParsePageOptions } from "./section_props.ts";

export type { PageError } from "./refusal.ts";

export type { PageErrorCode };

/** A parse's answer. */
export type PageParseResult =
  | { ok: true; value: PageDocument; contract: number }
  | { ok: false; error: PageError };

/** A page document in canonical form. */
export interface PageDocument {
  format: 2 | 3;
  sections: PageSection[];
  props: Record<string, Record<string, unknown>>;
}

/** Parses a page document; the value is canonical and parses to itself. */
export function parsePageDocument(
  input: unknown,
  options: ParsePageOptions = {},
): PageParseResult {
  try {
    return parseOrRefuse(input, options);
  } catch (e) {
    if (e instanceof Refusal) return { ok: false, error: e.error };
    throw e;
  }
}

function parseOrRefuse(
  input: unknown,
  options: ParsePageOptions,
): PageParseResult {
  const purpose = options.purpose ?? "store";
  if (!isObject(input)) {
    refuse("unreadable_page", "$", "A page document is an object");
  }
  for (const key of Object.keys(input)) {
    if (key !== "format" && key !== "sections" && key !== "props") {
      refuse(
        "unreadable_page",
        pathOf("$", key),
        `Unknown key "${key}" in a page document`,
      );
    }
  }
  const format = input.format;
  if (format !== 2 && format !== 3) {
    refuse(
      "unreadable_page",
      "$.format",
      "The page format must be 2 or 3",
    );
  }
  if (!Array.isArray(input.sections)) {
    refuse("unreadable_page", "$.sections", "Sections must be a list");
  }
  if (input.sections.length > PAGE_LIMITS.sections) {
    refuse(
      "unreadable_page",
      "$.sections",
      `A page holds at most ${PAGE_LIMITS.sections} sections`,
    );
  }
  if (!isObject(input.props)) {
    refuse("unreadable_page", "$.props", "Props must be an object");
  }
  const rawProps = input.props;
  const ids = new Set<string>();
  const sections: PageSection[] = [];
  const props: Record<string, Record<string, unknown>> = {};
  let contract: number = PAGE_CONTRACT.base;
  let pinned = false;
  input.sections.forEach((raw, i) => {
    const at = pathOf("$.sections", i);
    const section = parseStructure(raw, at, format, purpose, options);
    if (ids.has(section.id)) {
      refuse(
        "unreadable_page",
        pathOf(at, "id"),
        `Section id "${section.id}" is used twice`,
      );
    }
    ids.add(section.id);
    if (!Object.hasOwn(rawProps, section.id)) {
      refuse(
        "unreadable_page",
        pathOf("$.props", section.id),
        `Section "${section.id}" has no props`,
        section.id,
      );
    }
    const propsAt = pathOf("$.props", section.id);
    const parsed = parseProps(section, rawProps[section.id], propsAt, options);
    props[section.id] = parsed.props;
    contract = Math.max(contract, parsed.contract);
    if (section.component !== null) pinned = true;
    if (section.type === "custom") {
      contract = Math.max(contract, PAGE_CONTRACT.customSections);
    }
    if (section.type === "shared") {
      contract = Math.max(contract, PAGE_CONTRACT.sharedSections);
    }
    sections.push(section);
  });
  for (const key of Object.keys(rawProps)) {
    if (!ids.has(key)) {
      refuse(
        "unreadable_page",
        pathOf("$.props", key),
        `Props "${key}" belong to no section`,
      );
    }
  }
  if (format === 3 && !pinned) {
    refuse(
      "noncanonical_default",
      "$.format",
      "A format 3 document must pin at least one component; store it as format 2",
    );
  }
  return { ok: true, value: { format, sections, props }, contract };
}

const STRUCTURE_KEYS = new Set([
  "id",
  "type",
  "variant",
  "layout",
  "component",
  "appearance",
  "definition",
  "shared",
]);

function parseStructure(
  raw: unknown,
  at: string,
  format: 2 | 3,
  purpose: "store" | "deliver",
  options: ParsePageOptions,
): PageSection {
  if (!isObject(raw)) refuse("invalid_slide", at, "A section is an object");
  for (const key of Object.keys(raw)) {
    if (!STRUCTURE_KEYS.has(key)) {
      refuse(
        "invalid_slide",
        pathOf(at, key),
        `Unknown key "${key}" in a section`,
      );
    }
  }
  const id = raw.id;
  if (
    typeof id !== "string" || !matches(SECTION_ID_PATTERN, id) ||
    (purpose === "store" && id.includes("."))
  ) {
    refuse(
      "invalid_slide",
      pathOf(at, "id"),
      "A section id is 1 to 64 letters, digits, _ or -",
    );
  }
  const type = raw.type;
  if (typeof type !== "string" || !Object.hasOwn(SECTION_TYPES, type)) {
    refuse(
      "invalid_slide",
      pathOf(at, "type"),
      `Unknown section type ${JSON.stringify(type)}`,
      id,
    );
  }
  const t = type as SectionType;
  if (t === "shared" && purpose === "deliver") {
    refuse(
      "shared_section_unexpanded",
      pathOf(at, "type"),
      `Shared section "${id}" was not expanded by delivery`,
      id,
    );
  }
  if (
    typeof raw.variant !== "string" || !matches(VARIANT_PATTERN, raw.variant)
  ) {
    refuse(
      "invalid_slide",
      pathOf(at, "variant"),
      "A variant is a lowercase name such as default",
      id,
    );
  }
  if (typeof raw.layout !== "string" || !matches(LAYOUT_PATTERN, raw.layout)) {
    refuse(
      "invalid_slide",
      pathOf(at, "layout"),
      "A layout is default or key=value pairs such as media_side=start",
      id,
    );
  }
  if (!("component" in raw)) {
    refuse(
      "invalid_slide",
      pathOf(at, "component"),
      "A section always has a component (null when it pins none)",
      id,
    );
  }
  const section: PageSection = {
    id,
    type: t,
    variant: raw.variant,
    layout: raw.layout,
    component: null,
  };
  if ("appearance" in raw) {
    section.appearance = parseAppearance(
      raw.appearance,
      pathOf(at, "appearance"),
      id,
    );
  }
  if (t === "custom") {
    if (!("definition" in raw)) {
      refuse(
        "invalid_slide",
        pathOf(at, "definition"),
        "A custom section holds its definition",
        id,
      );
    }
    section.definition = parseDefinition(
      raw.definition,
      pathOf(at, "definition"),
      id,
    );
    const known = options.registry?.definition(
      section.definition.key,
      section.definition.version,
    );
    if (!known || known.digest !== section.definition.digest) {
      refuse(
        "unknown_section_definition",
        pathOf(at, "definition"),
        `No registered section "${section.definition.key}" version ${section.definition.version} with this digest`,
        id,
      );
    }
  } else if ("definition" in raw) {
    refuse(
      "invalid_slide",
      pathOf(at, "definition"),
      "Only a custom section holds a definition",
      id,
    );
  }
  if (t === "shared") {
    section.shared = parseSharedRef(raw, at, id);
  } else if ("shared" in raw) {
    refuse(
      "invalid_slide",
      pathOf(at, "shared"),
      "Only a shared section names a shared entry",
      id,
    );
  }
  if (raw.component !== null) {
    section.component = parsePin(raw.component, pathOf(at, "component"), {
      format,
      section,
      registry: options.registry,
    });
  }
  return section;
}

function parseAppearance(
  raw: unknown,
  at: string,
  id: string,
): NonNullable<PageSection["appearance"]> {
  if (!isObject(raw) || Object.keys(raw).length === 0) {
    refuse(
      "noncanonical_default",
      at,
      "Leave appearance out instead of storing it empty or null",
      id,
    );
  }
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(raw)) {
    const allowed = (APPEARANCE as Record<string, readonly string[]>)[key];
    if (!Object.hasOwn(APPEARANCE, key)) {
      refuse(
        "invalid_slide",
        pathOf(at, key),
        `Unknown appearance "${key}"`,
        id,
      );
    }
    if (typeof value !== "string" || !allowed.includes(value)) {
      refuse(
        "invalid_slide",
        pathOf(at, key),
        `Appearance ${key} is one of ${allowed.join(", ")}`,
        id,
      );
    }
    out[key] = value;
  }
  return out;
}

function parseDefinition(
  raw: unknown,
  at: string,
  id: string,
): NonNullable<PageSection["definition"]> {
  if (!isObject(raw)) {
    refuse("invalid_slide", at, "A definition is { key, version, digest }", id);
  }
  closed(raw, ["key", "version", "digest"], at, id);
  if (
    typeof raw.key !== "string" || !matches("^[a-z][a-z0-9_-]{0,63}$", raw.key)
  ) {
    refuse(
      "invalid_slide",
      pathOf(at, "key"),
      "A definition key is a slug",
      id,
    );
  }
  if (
    typeof raw.version !== "number" || !Number.isInteger(raw.version) ||
    raw.version < 1
  ) {
    refuse(
      "invalid_slide",
      pathOf(at, "version"),
      "A definition version is a whole number from 1",
      id,
    );
  }
  if (typeof raw.digest !== "string" || !matches(DIGEST_PATTERN, raw.digest)) {
    refuse(
      "invalid_slide",
      pathOf(at, "digest"),
      "A definition digest is 64 lowercase hex characters (SHA-256)",
      id,
    );
  }
  return { key: raw.key, version: raw.version, digest: raw.digest };
}

function parseSharedRef(
  raw: Record<string, unknown>,
  at: string,
  id: string,
): { entry: string } {
  if (raw.variant !== "default" || raw.layout !== "default") {
    refuse(
      "invalid_slide",
      pathOf(at, raw.variant !== "default" ? "variant" : "layout"),
      "A shared section reference has variant and layout default",
      id,
    );
  }
  if ("appearance" in raw) {
    refuse(
      "invalid_slide",
      pathOf(at, "appearance"),
      "A shared section reference has no appearance",
      id,
    );
  }
  if (raw.component !== null) {
    refuse(
      "invalid_slide",
      pathOf(at, "component"),
      "A shared section pins no component",
      id,
    );
  }
  const shared = raw.shared;
  if (!isObject(shared)) {
    refuse(
      "invalid_slide",
      pathOf(at, "shared"),
      "A shared section is { entry }",
      id,
    );
  }
  closed(shared, ["entry"], pathOf(at, "shared"), id);
  if (
    typeof shared.entry !== "string" ||
    !matches("^[A-Za-z0-9_-]{1,64}$", shared.entry)
  ) {
    refuse(
      "invalid_slide",
      pathOf(pathOf(at, "shared"), "entry"),
      "A shared section names the id of a shared_section entry",
      id,
    );
  }
  return { entry: shared.entry };
}

function parsePin(
  raw: unknown,
  at: string,
  ctx: { format: 2 | 3; section: PageSection; registry?: SectionRegistry },
): ComponentPin {
  const id = ctx.section.id;
  if (!isObject(raw)) {
    refuse(
      "invalid_slide",
      at,
      "A component is pinned as { component_id, version_id, artifact_digest }, never by name",
      id,
    );
  }
  if (ctx.format !== 3) {
    refuse("invalid_slide", at, "Only format 3 pins components", id);
  }
  if (ctx.section.type !== "custom") {
    refuse("invalid_slide", at, "Only a custom section pins a component", id);
  }
  closed(raw, ["component_id", "version_id", "artifact_digest"], at, id);
  for (const key of ["component_id", "version_id"] as const) {
    const v = raw[key];
    if (typeof v !== "string" || !matches("^[A-Za-z0-9_-]{1,64}$", v)) {
      refuse("invalid_slide", pathOf(at, key), `${key} is an id`, id);
    }
  }
  if (
    typeof raw.artifact_digest !== "string" ||
    !matches(DIGEST_PATTERN, raw.artifact_digest)
  ) {
    refuse(
      "invalid_slide",
      pathOf(at, "artifact_digest"),
      "artifact_digest is 64 lowercase hex characters",
      id,
    );
  }
  const definition = ctx.section.definition!;
  const known = ctx.registry?.definition(definition.key, definition.version);
  const version = known?.components.find((c) =>
    c.component_id === raw.component_id && c.version_id === raw.version_id
  );
  if (
    !version || !version.promoted ||
    version.artifact_digest !== raw.artifact_digest
  ) {
    refuse(
      "unknown_component_version",
      at,
      `Component version "${raw.version_id}" is not a promoted version of section "${definition.key}"`,
      id,
    );
  }
  return {
    component_id: raw.component_id as string,
    version_id: raw.version_id as string,
    artifact_digest: raw.artifact_digest,
  };
}

/** True for an email address a contact section or form value may hold. */
export function isEmailAddress(v: string): boolean {
  return matches(EMAIL_PATTERN, v);
}
