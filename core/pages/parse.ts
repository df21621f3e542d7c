// This module is browser compatible.
// Parses and validates a page document (spec 3 part 2.2) into its canonical form, or refuses it
// with the spec's code and the JSON path of the offending value. Never throws for bad input.
import {
  APPEARANCE,
  DIGEST_PATTERN,
  EMAIL_PATTERN,
  FIELD_NAME_PATTERN,
  FILE_CATALOGUE,
  FILE_LIMITS,
  FORM_FIELD_KINDS,
  HREF_PATTERN,
  type ItemSpec,
  LAYOUT_PATTERN,
  PAGE_CONTRACT,
  PAGE_LIMITS,
  type PageErrorCode,
  type PropSpec,
  RUN_MARKS,
  SECTION_ID_PATTERN,
  SECTION_TYPES,
  type SectionType,
  VARIANT_PATTERN,
} from "./vocabulary.ts";
import {
  checkCustomFields,
  type ComponentPin,
  type SectionRegistry,
} from "./custom.ts";

export type { PageErrorCode };

/** A refusal: the code, a readable message, and where (`detail.path`, a JSON path from `$`). */
export interface PageError {
  code: PageErrorCode;
  message: string;
  detail: { path: string; section?: string };
}

/** A parse's answer. */
export type PageParseResult =
  | { ok: true; value: PageDocument; contract: number }
  | { ok: false; error: PageError };

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

/** A page document in canonical form. */
export interface PageDocument {
  format: 2 | 3;
  sections: PageSection[];
  props: Record<string, Record<string, unknown>>;
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

class Refusal {
  constructor(readonly error: PageError) {}
}

/** JSON path of `key` under `path`. */
export function pathOf(path: string, key: string | number): string {
  if (typeof key === "number") return `${path}[${key}]`;
  return /^[A-Za-z_][A-Za-z0-9_]*$/.test(key)
    ? `${path}.${key}`
    : `${path}[${JSON.stringify(key)}]`;
}

function refuse(
  code: PageErrorCode,
  path: string,
  message: string,
  section?: string,
): never {
  throw new Refusal({
    code,
    message,
    detail: section === undefined ? { path } : { path, section },
  });
}

const compiled = new Map<string, RegExp>();
function matches(pattern: string, value: string): boolean {
  let re = compiled.get(pattern);
  if (!re) compiled.set(pattern, re = new RegExp(pattern));
  return re.test(value);
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
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

/** Refuses any key of `raw` outside `keys` (closed objects). */
export function closed(
  raw: Record<string, unknown>,
  keys: readonly string[],
  at: string,
  section?: string,
): void {
  for (const key of Object.keys(raw)) {
    if (!keys.includes(key)) {
      refuse("invalid_slide", pathOf(at, key), `Unknown key "${key}"`, section);
    }
  }
}

function parseProps(
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

/** Reads props and list items against their specs, tracking the contract they need. */
class PropReader {
  contract: number = PAGE_CONTRACT.base;
  constructor(readonly section: string) {}

  fail(code: PageErrorCode, at: string, message: string): never {
    refuse(code, at, message, this.section);
  }

  object(
    raw: Record<string, unknown>,
    spec: Record<string, PropSpec>,
    at: string,
  ): Record<string, unknown> {
    for (const key of Object.keys(raw)) {
      if (!Object.hasOwn(spec, key)) {
        this.fail("invalid_slide", pathOf(at, key), `Unknown key "${key}"`);
      }
    }
    const out: Record<string, unknown> = {};
    for (const [key, prop] of Object.entries(spec)) {
      const value = this.prop(raw, key, prop, pathOf(at, key));
      if (value !== undefined) out[key] = value;
    }
    return out;
  }

  prop(
    raw: Record<string, unknown>,
    key: string,
    prop: PropSpec,
    at: string,
  ): unknown {
    const present = Object.hasOwn(raw, key);
    const value = raw[key];
    const later = (prop.kind === "text" || prop.kind === "link") && prop.later;
    if (later || prop.kind === "true_flag") {
      if (!present) return undefined;
      if (value === null || value === "") {
        this.fail(
          "noncanonical_default",
          at,
          `Leave "${key}" out instead of storing it ${
            value === null ? "null" : "empty"
          }`,
        );
      }
      if (later) {
        this.contract = Math.max(this.contract, PAGE_CONTRACT.laterFields);
      }
    }
    switch (prop.kind) {
      case "text": {
        const text = this.text(value, prop, at, key);
        if (later && text === null) {
          this.fail(
            "noncanonical_default",
            at,
            `Leave "${key}" out instead of storing it blank`,
          );
        }
        return text;
      }
      case "paragraphs": {
        const list = this.list(value, prop.min, prop.max, at, key, true);
        return list.map((p, i) => this.paragraph(p, pathOf(at, i)));
      }
      case "link": {
        if (value === undefined || value === null) {
          if (prop.required) {
            this.fail("invalid_slide", at, `"${key}" is required`);
          }
          return null;
        }
        return this.link(value, at, prop.https ?? false);
      }
      case "media": {
        if (value === undefined || value === null) {
          if (prop.required) {
            this.fail("invalid_slide", at, `"${key}" is required`);
          }
          return null;
        }
        return this.media(value, at);
      }
      case "integer": {
        if (
          typeof value !== "number" || !Number.isInteger(value) ||
          value < prop.min || value > prop.max
        ) {
          this.fail(
            "invalid_slide",
            at,
            `"${key}" is a whole number from ${prop.min} to ${prop.max}`,
          );
        }
        return value;
      }
      case "true_flag":
        if (value !== true) {
          this.fail("invalid_slide", at, `"${key}" is true or left out`);
        }
        return true;
      case "texts": {
        const list = this.list(value, prop.min, prop.max, at, key, false);
        return list.map((t, i) =>
          this.text(t, { kind: "text", required: true }, pathOf(at, i), key)
        );
      }
      case "items": {
        const list = this.list(
          value,
          prop.min,
          prop.max,
          at,
          key,
          prop.min > 0,
        );
        return list.map((item, i) => this.item(item, prop.item, pathOf(at, i)));
      }
      case "form_fields": {
        const list = this.list(value, prop.min, prop.max, at, key, true);
        return list.map((f, i) => this.formField(f, pathOf(at, i)));
      }
      case "custom_fields":
        // Checked against the pinned definition by the caller.
        return value ?? null;
    }
  }

  list(
    value: unknown,
    min: number,
    max: number,
    at: string,
    key: string,
    required: boolean,
  ): unknown[] {
    if (value === undefined || value === null) {
      if (required) this.fail("invalid_slide", at, `"${key}" is required`);
      return [];
    }
    if (!Array.isArray(value)) {
      this.fail("invalid_slide", at, `"${key}" is a list`);
    }
    if (value.length < min || value.length > max) {
      this.fail(
        "invalid_slide",
        at,
        `"${key}" holds ${min} to ${max} entries, not ${value.length}`,
      );
    }
    return value;
  }

  text(
    value: unknown,
    prop: Extract<PropSpec, { kind: "text" }>,
    at: string,
    key: string,
  ): string | null {
    if (value !== undefined && value !== null && typeof value !== "string") {
      this.fail("invalid_slide", at, `"${key}" is text`);
    }
    const text = typeof value === "string" ? value.trim() : "";
    if (text === "") {
      if (prop.required) this.fail("invalid_slide", at, `"${key}" is required`);
      return null;
    }
    const max = prop.max ??
      (prop.long ? PAGE_LIMITS.longText : PAGE_LIMITS.shortText);
    if (text.length > max) {
      this.fail("invalid_slide", at, `"${key}" is at most ${max} characters`);
    }
    if (prop.pattern && !matches(prop.pattern, text)) {
      this.fail(
        "invalid_slide",
        at,
        `"${key}" does not have the expected form`,
      );
    }
    return text;
  }

  paragraph(value: unknown, at: string): unknown {
    if (typeof value === "string") {
      return this.text(
        value,
        { kind: "text", required: true, long: true },
        at,
        "paragraph",
      );
    }
    if (
      !Array.isArray(value) || value.length < 1 ||
      value.length > PAGE_LIMITS.runs
    ) {
      this.fail(
        "invalid_slide",
        at,
        `A paragraph is text or 1 to ${PAGE_LIMITS.runs} formatting runs`,
      );
    }
    let total = 0;
    return value.map((run, i) => {
      const runAt = pathOf(at, i);
      if (!isObject(run)) {
        this.fail("invalid_slide", runAt, "A run is { text, marks }");
      }
      closed(run, ["text", "marks"], runAt, this.section);
      // A run keeps its spaces: they separate it from its neighbours.
      if (typeof run.text !== "string" || run.text === "") {
        this.fail("invalid_slide", pathOf(runAt, "text"), "A run has text");
      }
      total += run.text.length;
      if (total > PAGE_LIMITS.longText) {
        this.fail(
          "invalid_slide",
          pathOf(runAt, "text"),
          `A paragraph is at most ${PAGE_LIMITS.longText} characters`,
        );
      }
      const marks = run.marks;
      if (
        !Array.isArray(marks) ||
        marks.some((m, n) =>
          !(RUN_MARKS as readonly unknown[]).includes(m) ||
          marks.indexOf(m) !== n
        )
      ) {
        this.fail(
          "invalid_slide",
          pathOf(runAt, "marks"),
          `Marks are distinct entries of ${RUN_MARKS.join(", ")}`,
        );
      }
      return { text: run.text, marks: [...marks] };
    });
  }

  link(
    value: unknown,
    at: string,
    https: boolean,
  ): { label: string; href: string } {
    if (!isObject(value)) {
      this.fail("invalid_slide", at, "A link is { label, href }");
    }
    closed(value, ["label", "href"], at, this.section);
    const label = this.text(
      value.label,
      { kind: "text", required: true },
      pathOf(at, "label"),
      "label",
    ) as string;
    const href = this.text(
      value.href,
      {
        kind: "text",
        required: true,
        max: PAGE_LIMITS.href,
        pattern: HREF_PATTERN,
      },
      pathOf(at, "href"),
      "href",
    ) as string;
    if (https && !href.startsWith("https://")) {
      this.fail(
        "invalid_slide",
        pathOf(at, "href"),
        "This link's href starts with https://",
      );
    }
    return { label, href };
  }

  media(value: unknown, at: string): Record<string, unknown> {
    if (!isObject(value)) {
      this.fail(
        "invalid_slide",
        at,
        "A media reference is { media_id, url, alt }",
      );
    }
    closed(
      value,
      ["media_id", "url", "alt", "crop", "focal"],
      at,
      this.section,
    );
    if (
      typeof value.media_id !== "string" ||
      !matches("^[A-Za-z0-9_-]{1,64}$", value.media_id)
    ) {
      this.fail(
        "invalid_slide",
        pathOf(at, "media_id"),
        "media_id is a media id",
      );
    }
    const url = this.text(
      value.url,
      {
        kind: "text",
        required: true,
        max: PAGE_LIMITS.href,
        pattern: "^(https?://|/)[^\\s]*$",
      },
      pathOf(at, "url"),
      "url",
    );
    if (!("alt" in value)) {
      this.fail(
        "invalid_slide",
        pathOf(at, "alt"),
        "A media reference has alt (text or null)",
      );
    }
    const alt = this.text(
      value.alt,
      { kind: "text" },
      pathOf(at, "alt"),
      "alt",
    );
    const out: Record<string, unknown> = { media_id: value.media_id, url, alt };
    if ("crop" in value) {
      const c = this.fractions(
        value.crop,
        ["x", "y", "width", "height"],
        pathOf(at, "crop"),
      );
      if (c.width <= 0 || c.height <= 0) {
        this.fail(
          "invalid_slide",
          pathOf(at, "crop"),
          "A crop has width and height above 0",
        );
      }
      if (c.x + c.width > 1 + 1e-9 || c.y + c.height > 1 + 1e-9) {
        this.fail(
          "invalid_slide",
          pathOf(at, "crop"),
          "A crop lies inside the image",
        );
      }
      out.crop = c;
    }
    if ("focal" in value) {
      out.focal = this.fractions(value.focal, ["x", "y"], pathOf(at, "focal"));
    }
    return out;
  }

  fractions(
    value: unknown,
    keys: string[],
    at: string,
  ): Record<string, number> {
    if (!isObject(value)) {
      this.fail(
        "invalid_slide",
        at,
        `Expected { ${keys.join(", ")} }, never null`,
      );
    }
    closed(value, keys, at, this.section);
    const out: Record<string, number> = {};
    for (const key of keys) {
      const v = value[key];
      if (typeof v !== "number" || !Number.isFinite(v) || v < 0 || v > 1) {
        this.fail(
          "invalid_slide",
          pathOf(at, key),
          `"${key}" is a fraction from 0 to 1`,
        );
      }
      out[key] = v;
    }
    return out;
  }

  item(value: unknown, spec: ItemSpec, at: string): Record<string, unknown> {
    if (!isObject(value)) {
      this.fail("invalid_slide", at, "A list item is an object");
    }
    if (spec.kind === "object") return this.object(value, spec.props, at);
    const kind = value.kind;
    if (typeof kind !== "string" || !Object.hasOwn(spec.variants, kind)) {
      this.fail(
        "invalid_slide",
        pathOf(at, "kind"),
        `kind is one of ${Object.keys(spec.variants).join(", ")}`,
      );
    }
    const { kind: _, ...rest } = value;
    return { kind, ...this.object(rest, spec.variants[kind], at) };
  }

  formField(value: unknown, at: string): Record<string, unknown> {
    if (!isObject(value)) {
      this.fail("invalid_slide", at, "A form field is an object");
    }
    const base = ["name", "kind", "label", "required", "help", "options"];
    for (const key of base) {
      if (!(key in value)) {
        this.fail(
          "invalid_slide",
          pathOf(at, key),
          `A form field always has "${key}"`,
        );
      }
    }
    const kind = value.kind;
    if (
      typeof kind !== "string" ||
      !(FORM_FIELD_KINDS as readonly string[]).includes(kind)
    ) {
      this.fail(
        "invalid_slide",
        pathOf(at, "kind"),
        `kind is one of ${FORM_FIELD_KINDS.join(", ")}`,
      );
    }
    closed(
      value,
      kind === "file" ? [...base, "accept", "max_files", "max_bytes"] : base,
      at,
      this.section,
    );
    if (
      typeof value.name !== "string" || !matches(FIELD_NAME_PATTERN, value.name)
    ) {
      this.fail(
        "invalid_slide",
        pathOf(at, "name"),
        "A field name is 1 to 32 lowercase letters, digits or _, starting with a letter",
      );
    }
    const label = this.text(
      value.label,
      { kind: "text", required: true },
      pathOf(at, "label"),
      "label",
    );
    if (typeof value.required !== "boolean") {
      this.fail(
        "invalid_slide",
        pathOf(at, "required"),
        "required is true or false",
      );
    }
    const help = this.text(
      value.help,
      { kind: "text", long: true },
      pathOf(at, "help"),
      "help",
    );
    const optionsAt = pathOf(at, "options");
    if (!Array.isArray(value.options)) {
      this.fail("invalid_slide", optionsAt, "options is a list");
    }
    let options: string[] = [];
    if (kind === "select") {
      if (value.options.length < 2 || value.options.length > 20) {
        this.fail(
          "invalid_slide",
          optionsAt,
          "A select field has 2 to 20 options",
        );
      }
      options = value.options.map((o, i) =>
        this.text(
          o,
          { kind: "text", required: true },
          pathOf(optionsAt, i),
          "option",
        ) as string
      );
      const twice = options.findIndex((o, i) => options.indexOf(o) !== i);
      if (twice >= 0) {
        this.fail(
          "invalid_slide",
          pathOf(optionsAt, twice),
          "Options are distinct",
        );
      }
    } else if (value.options.length !== 0) {
      this.fail(
        "invalid_slide",
        optionsAt,
        "Only a select field has options; use []",
      );
    }
    const out: Record<string, unknown> = {
      name: value.name,
      kind,
      label,
      required: value.required,
      help,
      options,
    };
    if (kind === "file") {
      this.contract = Math.max(this.contract, PAGE_CONTRACT.fileFields);
      if ("accept" in value) {
        out.accept = this.accept(value.accept, pathOf(at, "accept"));
      }
      if ("max_files" in value) {
        out.max_files = this.whole(
          value.max_files,
          1,
          FILE_LIMITS.maxFiles,
          pathOf(at, "max_files"),
        );
      }
      if ("max_bytes" in value) {
        out.max_bytes = this.whole(
          value.max_bytes,
          1,
          FILE_LIMITS.maxBytes,
          pathOf(at, "max_bytes"),
        );
      }
    }
    return out;
  }

  accept(value: unknown, at: string): string[] {
    if (!Array.isArray(value) || value.length > FILE_LIMITS.accept) {
      this.fail(
        "invalid_slide",
        at,
        `accept lists up to ${FILE_LIMITS.accept} types`,
      );
    }
    return value.map((v, i) => {
      if (typeof v !== "string" || !isSupportedFileType(v)) {
        this.fail(
          "invalid_slide",
          pathOf(at, i),
          "accept names exact supported MIME types or extensions, never wildcards",
        );
      }
      if (value.indexOf(v) !== i) {
        this.fail(
          "invalid_slide",
          pathOf(at, i),
          "accept names each type once",
        );
      }
      return v;
    });
  }

  whole(value: unknown, min: number, max: number, at: string): number {
    if (
      typeof value !== "number" || !Number.isInteger(value) || value < min ||
      value > max
    ) {
      this.fail(
        "invalid_slide",
        at,
        `Expected a whole number from ${min} to ${max}`,
      );
    }
    return value;
  }
}

/** True for an exact MIME type or extension of the file catalogue. */
export function isSupportedFileType(v: string): boolean {
  return FILE_CATALOGUE.some((f) => f.type === v || f.extensions.includes(v));
}

/** True for an email address a contact section or form value may hold. */
export function isEmailAddress(v: string): boolean {
  return matches(EMAIL_PATTERN, v);
}
