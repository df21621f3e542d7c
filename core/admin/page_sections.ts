// The page editor's forms: one form per section type, derived from the page vocabulary that the
// parser reads (core/pages/vocabulary.ts), so a limit changed there shows here. Forms post flat
// names (`f.items.0.title`); reading them back gives raw props that the one parser then judges.
import { pathOf } from "../pages/parse.ts";
import { paragraphsText } from "./page_sections_text.ts";
import {
  APPEARANCE,
  EMAIL_PATTERN,
  FIELD_NAME_PATTERN,
  FILE_LIMITS,
  FORM_FIELD_KINDS,
  type ItemSpec,
  NAME_PATTERN,
  PAGE_LIMITS,
  PHONE_PATTERN,
  type PropSpec,
  SECTION_TYPES,
  type SectionType,
} from "../pages/vocabulary.ts";

/** A posted form as Hono's `parseBody({ all: true })` gives it. */
export type PostedForm = Record<string, unknown>;

/** One control of a section form. */
export interface InputNode {
  node: "input";
  /** The posted name. */
  name: string;
  /** The JSON path the parser names when it refuses this value. */
  path: string;
  label: string;
  control: "text" | "textarea" | "number" | "checkbox" | "select" | "media";
  value: string;
  required: boolean;
  /** The limits and form the value must have, in words. */
  hint: string | null;
  max?: number;
  min?: number;
  options?: { value: string; label: string }[];
  error?: string;
  /** `<section id>.<prop>` for a value the structure preview shows as typed. */
  preview?: string;
}

/** A fieldset: a link, a list, one item of a list, one form field. */
export interface GroupNode {
  node: "group";
  name: string;
  path: string;
  label: string;
  hint: string | null;
  children: FormNode[];
  /** A list: its row count is posted as `<name>.count`; buttons add rows of these kinds. */
  list?: { count: number; adds: { value: string; label: string }[] };
  /** A list row: checking `<name>._remove` drops it on save. */
  removable?: boolean;
  error?: string;
}

export type FormNode = InputNode | GroupNode;

/** Readable names of the section types, for menus and the outline. */
export const SECTION_TYPE_LABELS: Record<SectionType, string> = {
  hero: "Hero",
  rich_text: "Text",
  text_media: "Text and media",
  feature_grid: "Feature grid",
  cta: "Call to action",
  cards: "Cards",
  stats: "Figures",
  faq: "Questions and answers",
  testimonials: "Testimonials",
  media: "Media gallery",
  logos: "Logos",
  steps: "Steps",
  pricing: "Pricing",
  menu: "Menu",
  contact: "Contact",
  latest_entries: "Latest entries",
  form: "Form",
  custom: "Custom section",
  search: "Search",
  shared: "Shared section",
};

const PATTERN_HINTS: Record<string, string> = {
  [PHONE_PATTERN]: "A phone number such as +49 30 1234 5678",
  [EMAIL_PATTERN]: "One email address such as hello@example.com",
  [NAME_PATTERN]: "A lowercase name such as posts",
  [FIELD_NAME_PATTERN]:
    "1 to 32 lowercase letters, digits or _, starting with a letter",
  "^[A-Za-z0-9_-]{1,64}$": "Letters, digits, _ or -, at most 64",
};

/** `secondary_link` → `Secondary link`. */
export function labelOf(key: string): string {
  const words = key.replaceAll("_", " ");
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** The choices a pattern such as `^(youtube|vimeo)$` allows, or null for any other pattern. */
function choicesOf(pattern: string | undefined): string[] | null {
  const m = pattern ? /^\^\(([a-z|]+)\)\$$/.exec(pattern) : null;
  return m ? m[1].split("|") : null;
}

function joinHint(...parts: (string | null | false | undefined)[]) {
  const kept = parts.filter((p): p is string => typeof p === "string");
  return kept.length === 0 ? null : kept.join(" · ");
}

function countHint(min: number, max: number, noun: string): string {
  return min === 0 ? `Up to ${max} ${noun}` : `${min} to ${max} ${noun}`;
}

// --- Building the form of a section's props ---

function textOf(value: unknown): string {
  return typeof value === "string" ? value : "";
}

function propNodes(
  spec: Record<string, PropSpec>,
  values: Record<string, unknown>,
  name: string,
  path: string,
  preview: string | null,
): FormNode[] {
  return Object.entries(spec).map(([key, prop]) =>
    propNode(
      key,
      prop,
      values[key],
      `${name}.${key}`,
      pathOf(path, key),
      preview && `${preview}.${key}`,
    )
  );
}

function propNode(
  key: string,
  prop: PropSpec,
  value: unknown,
  name: string,
  path: string,
  preview: string | null,
): FormNode {
  const label = labelOf(key);
  switch (prop.kind) {
    case "text": {
      const max = prop.max ??
        (prop.long ? PAGE_LIMITS.longText : PAGE_LIMITS.shortText);
      const choices = choicesOf(prop.pattern);
      const required = prop.required ?? false;
      return {
        node: "input",
        name,
        path,
        label,
        control: choices ? "select" : prop.long ? "textarea" : "text",
        value: textOf(value),
        required,
        hint: joinHint(
          required && "Required",
          !choices && `Up to ${max} characters`,
          prop.pattern && PATTERN_HINTS[prop.pattern],
        ),
        max,
        ...(choices
          ? {
            options: [
              ...(required ? [] : [{ value: "", label: "None" }]),
              ...choices.map((c) => ({ value: c, label: labelOf(c) })),
            ],
          }
          : {}),
        ...(preview ? { preview } : {}),
      };
    }
    case "paragraphs":
      return {
        node: "input",
        name,
        path,
        label,
        control: "textarea",
        value: paragraphsText(value),
        required: prop.min > 0,
        hint: joinHint(
          countHint(prop.min, prop.max, "paragraphs"),
          "A blank line starts a paragraph; **bold**, *italic*, `code`",
        ),
      };
    case "link": {
      const link = (value ?? {}) as { label?: unknown; href?: unknown };
      const required = prop.required ?? false;
      return {
        node: "group",
        name,
        path,
        label,
        hint: joinHint(
          required ? "Required" : "Leave both empty for none",
          prop.https
            ? "The address starts with https://"
            : "An address: https://…, /path, #anchor, mailto: or tel:",
        ),
        children: [
          {
            node: "input",
            name: `${name}.label`,
            path: pathOf(path, "label"),
            label: "Label",
            control: "text",
            value: textOf(link.label),
            required,
            hint: `Up to ${PAGE_LIMITS.shortText} characters`,
            max: PAGE_LIMITS.shortText,
          },
          {
            node: "input",
            name: `${name}.href`,
            path: pathOf(path, "href"),
            label: "Address",
            control: "text",
            value: textOf(link.href),
            required,
            hint: `Up to ${PAGE_LIMITS.href} characters`,
            max: PAGE_LIMITS.href,
          },
        ],
      };
    }
    case "media": {
      const ref = (value ?? {}) as { media_id?: unknown };
      return {
        node: "input",
        name,
        path,
        label,
        control: "media",
        value: textOf(ref.media_id),
        required: prop.required ?? false,
        hint: joinHint(prop.required && "Required", "An image of the library"),
      };
    }
    case "integer":
      return {
        node: "input",
        name,
        path,
        label,
        control: "number",
        value: typeof value === "number" ? String(value) : textOf(value),
        required: true,
        hint: `A whole number from ${prop.min} to ${prop.max}`,
        min: prop.min,
        max: prop.max,
      };
    case "true_flag":
      return {
        node: "input",
        name,
        path,
        label,
        control: "checkbox",
        value: value === true ? "on" : "",
        required: false,
        hint: null,
      };
    case "texts":
      return {
        node: "input",
        name,
        path,
        label,
        control: "textarea",
        value: Array.isArray(value) ? value.map(textOf).join("\n") : "",
        required: prop.min > 0,
        hint: joinHint(
          countHint(prop.min, prop.max, "lines"),
          "One per line",
          `each up to ${PAGE_LIMITS.shortText} characters`,
        ),
      };
    case "items":
      return listNode(label, prop, value, name, path);
    case "form_fields":
      return formFieldsNode(label, prop, value, name, path);
    case "custom_fields":
      return {
        node: "input",
        name,
        path,
        label,
        control: "textarea",
        value: value === undefined || value === null
          ? ""
          : JSON.stringify(value, null, 2),
        required: false,
        hint: "JSON, as the section's registered definition describes it",
      };
  }
}

function listNode(
  label: string,
  prop: Extract<PropSpec, { kind: "items" }>,
  value: unknown,
  name: string,
  path: string,
): GroupNode {
  const rows = Array.isArray(value) ? value : [];
  const adds = prop.item.kind === "union"
    ? Object.keys(prop.item.variants).map((v) => ({
      value: v,
      label: `Add ${labelOf(v).toLowerCase()}`,
    }))
    : [{ value: "", label: `Add to ${label.toLowerCase()}` }];
  return {
    node: "group",
    name,
    path,
    label,
    hint: countHint(prop.min, prop.max, "items"),
    list: { count: rows.length, adds },
    children: rows.map((row, i) =>
      itemNode(prop.item, row, `${name}.${i}`, pathOf(path, i), i)
    ),
  };
}

function itemNode(
  spec: ItemSpec,
  row: unknown,
  name: string,
  path: string,
  index: number,
): GroupNode {
  const values = (row ?? {}) as Record<string, unknown>;
  if (spec.kind === "object") {
    return {
      node: "group",
      name,
      path,
      label: `Item ${index + 1}`,
      hint: null,
      removable: true,
      children: propNodes(spec.props, values, name, path, null),
    };
  }
  const kind = typeof values.kind === "string" &&
      Object.hasOwn(spec.variants, values.kind)
    ? values.kind
    : Object.keys(spec.variants)[0];
  return {
    node: "group",
    name,
    path,
    label: `Item ${index + 1}: ${labelOf(kind).toLowerCase()}`,
    hint: null,
    removable: true,
    children: [
      {
        node: "input",
        name: `${name}.kind`,
        path: pathOf(path, "kind"),
        label: "Kind",
        control: "select",
        value: kind,
        required: true,
        hint: null,
        options: Object.keys(spec.variants).map((v) => ({
          value: v,
          label: labelOf(v),
        })),
      },
      ...propNodes(spec.variants[kind], values, name, path, null),
    ],
  };
}

function formFieldsNode(
  label: string,
  prop: Extract<PropSpec, { kind: "form_fields" }>,
  value: unknown,
  name: string,
  path: string,
): GroupNode {
  const rows = (Array.isArray(value) ? value : []) as Record<string, unknown>[];
  return {
    node: "group",
    name,
    path,
    label,
    hint: countHint(prop.min, prop.max, "fields"),
    list: { count: rows.length, adds: [{ value: "", label: "Add a field" }] },
    children: rows.map((f, i): GroupNode => {
      const at = `${name}.${i}`;
      const fp = pathOf(path, i);
      const input = (
        key: string,
        control: InputNode["control"],
        text: string,
        hint: string | null,
        extra: Partial<InputNode> = {},
      ): InputNode => ({
        node: "input",
        name: `${at}.${key}`,
        path: pathOf(fp, key),
        label: labelOf(key),
        control,
        value: text,
        required: false,
        hint,
        ...extra,
      });
      const numberOf = (v: unknown) => typeof v === "number" ? String(v) : "";
      return {
        node: "group",
        name: at,
        path: fp,
        label: `Field ${i + 1}`,
        hint: null,
        removable: true,
        children: [
          input(
            "name",
            "text",
            textOf(f.name),
            PATTERN_HINTS[FIELD_NAME_PATTERN],
            {
              required: true,
              max: 32,
            },
          ),
          input("kind", "select", textOf(f.kind) || "text", null, {
            required: true,
            options: FORM_FIELD_KINDS.map((k) => ({
              value: k,
              label: labelOf(k),
            })),
          }),
          input("label", "text", textOf(f.label), "Required", {
            required: true,
            max: PAGE_LIMITS.shortText,
          }),
          input("required", "checkbox", f.required === true ? "on" : "", null, {
            label: "Visitors must fill it",
          }),
          input("help", "textarea", textOf(f.help), null, {
            max: PAGE_LIMITS.longText,
          }),
          input(
            "options",
            "textarea",
            Array.isArray(f.options) ? f.options.map(textOf).join("\n") : "",
            "Select fields only: 2 to 20 options, one per line",
          ),
          input(
            "accept",
            "text",
            Array.isArray(f.accept) ? f.accept.map(textOf).join(" ") : "",
            `File fields only: up to ${FILE_LIMITS.accept} types such as .pdf image/png; empty accepts all`,
          ),
          input(
            "max_files",
            "number",
            numberOf(f.max_files),
            `File fields only: 1 to ${FILE_LIMITS.maxFiles}`,
            { min: 1, max: FILE_LIMITS.maxFiles },
          ),
          input(
            "max_bytes",
            "number",
            numberOf(f.max_bytes),
            `File fields only: bytes per file, up to ${FILE_LIMITS.maxBytes}`,
            { min: 1, max: FILE_LIMITS.maxBytes },
          ),
        ],
      };
    }),
  };
}

/** The form of one section's props; `sectionId` names it in paths and in the preview. */
export function sectionPropNodes(
  type: SectionType,
  props: Record<string, unknown>,
  sectionId: string,
): FormNode[] {
  return propNodes(
    SECTION_TYPES[type],
    props,
    "f",
    pathOf("$.props", sectionId),
    sectionId,
  );
}

/** A section's structure as the form edits it. */
export interface SectionStructure {
  id: string;
  type: SectionType;
  variant: string;
  layout: string;
  appearance: { background?: string; spacing?: string; motion?: string };
  shared?: { entry: string };
}

/** The form of a section's structure: anchor id, variant, layout, appearance or shared entry. */
export function structureNodes(
  structure: SectionStructure,
  index: number,
  sharedChoices: { value: string; label: string }[],
): FormNode[] {
  const at = pathOf("$.sections", index);
  const id: InputNode = {
    node: "input",
    name: "s.id",
    path: pathOf(at, "id"),
    label: "Section id",
    control: "text",
    value: structure.id,
    required: true,
    hint: "Letters, digits, _ or -; front ends use it as the anchor (#id)",
    max: PAGE_LIMITS.sectionId,
  };
  if (structure.type === "shared") {
    return [id, {
      node: "input",
      name: "s.shared",
      path: pathOf(pathOf(at, "shared"), "entry"),
      label: "Shared section",
      control: "select",
      value: structure.shared?.entry ?? "",
      required: true,
      hint: "The sections of this shared item, in the page's language",
      options: [{ value: "", label: "Choose…" }, ...sharedChoices],
    }];
  }
  const appearance = (Object.keys(APPEARANCE) as (keyof typeof APPEARANCE)[])
    .map((key): InputNode => ({
      node: "input",
      name: `s.appearance.${key}`,
      path: pathOf(pathOf(at, "appearance"), key),
      label: labelOf(key),
      control: "select",
      value: structure.appearance[key] ?? "",
      required: false,
      hint: null,
      options: [
        { value: "", label: "Default" },
        ...APPEARANCE[key].map((v) => ({ value: v, label: labelOf(v) })),
      ],
    }));
  return [
    id,
    {
      node: "input",
      name: "s.variant",
      path: pathOf(at, "variant"),
      label: "Variant",
      control: "text",
      value: structure.variant,
      required: true,
      hint: "A lowercase name your front end knows, such as default",
      max: 32,
    },
    {
      node: "input",
      name: "s.layout",
      path: pathOf(at, "layout"),
      label: "Layout",
      control: "text",
      value: structure.layout,
      required: true,
      hint: "default, or pairs such as media_side=end;columns=3",
    },
    ...appearance,
  ];
}
