// The page editor's forms: one form per section type, derived from the page vocabulary that the
// parser reads (core/pages/vocabulary.ts), so a limit changed there shows here. Forms post flat
// names (`f.items.0.title`); reading them back gives raw props that the one parser then judges.
import { one } from "./form_values.ts";
import { pathOf } from "../pages/parse.ts";
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
  RUN_MARKS,
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

// --- Paragraphs as text: **bold**, *italic*, `code`, blank lines between paragraphs ---

const ESCAPED = /[\\*`]/g;

/**
 * A paragraph (text or formatting runs) as the editor's markup. Marks are written where they
 * change between runs, so neighbouring runs never run their markers together ambiguously.
 */
export function paragraphMarkup(paragraph: unknown): string {
  if (typeof paragraph === "string") return paragraph.replace(ESCAPED, "\\$&");
  if (!Array.isArray(paragraph)) return "";
  const token = { bold: "**", italic: "*", code: "`" } as const;
  let on: readonly string[] = [];
  let out = "";
  const toggle = (next: readonly string[]) => {
    for (const mark of RUN_MARKS) {
      if (on.includes(mark) !== next.includes(mark)) out += token[mark];
    }
    on = next;
  };
  for (const run of paragraph) {
    const r = run as { text?: unknown; marks?: unknown };
    toggle(Array.isArray(r.marks) ? r.marks : []);
    out += String(r.text ?? "").replace(ESCAPED, "\\$&");
  }
  toggle([]);
  return out;
}

/** The editor's markup of one paragraph as text, or runs when it has marks. */
export function paragraphFromMarkup(
  markup: string,
): string | { text: string; marks: string[] }[] {
  const runs: { text: string; marks: string[] }[] = [];
  const on = { bold: false, italic: false, code: false };
  let text = "";
  const flush = () => {
    if (text === "") return;
    const marks = RUN_MARKS.filter((m) => on[m]);
    const last = runs.at(-1);
    if (last && last.marks.join() === marks.join()) last.text += text;
    else runs.push({ text, marks: [...marks] });
    text = "";
  };
  for (let i = 0; i < markup.length; i++) {
    const c = markup[i];
    if (c === "\\" && i + 1 < markup.length) {
      text += markup[++i];
    } else if (c === "`") {
      flush();
      on.code = !on.code;
    } else if (c === "*" && markup[i + 1] === "*") {
      flush();
      on.bold = !on.bold;
      i++;
    } else if (c === "*") {
      flush();
      on.italic = !on.italic;
    } else {
      text += c;
    }
  }
  flush();
  if (runs.length === 0) return "";
  if (runs.length === 1 && runs[0].marks.length === 0) return runs[0].text;
  return runs;
}

function paragraphsText(value: unknown): string {
  return Array.isArray(value) ? value.map(paragraphMarkup).join("\n\n") : "";
}

function paragraphsFrom(text: string): unknown[] {
  return text.replaceAll("\r\n", "\n").split(/\n[ \t]*\n/).map((p) => p.trim())
    .filter((p) => p !== "").map(paragraphFromMarkup);
}

function linesFrom(text: string): string[] {
  return text.replaceAll("\r\n", "\n").split("\n").map((l) => l.trim())
    .filter((l) => l !== "");
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

// --- Reading a posted form back into raw props ---

function wholeOrText(text: string): number | string {
  return /^-?[0-9]{1,16}$/.test(text.trim()) ? Number(text.trim()) : text;
}

/** Resolves a chosen media id to its reference; `kept` is the reference stored before. */
export type MediaResolver = (
  mediaId: string,
  kept: unknown,
) => Record<string, unknown> | null;

interface ReadOptions {
  resolveMedia: MediaResolver;
  /** Props stored before this form, for references whose crop and focal the form keeps. */
  before: Record<string, unknown>;
  /** Keep rows left blank (to show the form again with a row added). */
  keepBlank: boolean;
}

function readProps(
  spec: Record<string, PropSpec>,
  form: PostedForm,
  name: string,
  before: Record<string, unknown>,
  options: ReadOptions,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, prop] of Object.entries(spec)) {
    const value = readProp(
      prop,
      form,
      `${name}.${key}`,
      before[key],
      options,
    );
    if (value !== undefined) out[key] = value;
  }
  return out;
}

function readProp(
  prop: PropSpec,
  form: PostedForm,
  name: string,
  before: unknown,
  options: ReadOptions,
): unknown {
  switch (prop.kind) {
    case "text": {
      const text = one(form[name]).trim();
      if (text !== "") return text;
      return prop.later ? undefined : null;
    }
    case "paragraphs":
      return paragraphsFrom(one(form[name]));
    case "link": {
      const label = one(form[`${name}.label`]).trim();
      const href = one(form[`${name}.href`]).trim();
      if (label === "" && href === "") return prop.later ? undefined : null;
      return { label, href };
    }
    case "media": {
      const id = one(form[name]).trim();
      if (id === "") return null;
      return options.resolveMedia(id, before);
    }
    case "integer": {
      const text = one(form[name]);
      return text.trim() === "" ? null : wholeOrText(text);
    }
    case "true_flag":
      return one(form[name]) === "" ? undefined : true;
    case "texts":
      return linesFrom(one(form[name]));
    case "items":
      return readRows(form, name, before, options, (row, was) => {
        const item = prop.item;
        if (item.kind === "object") {
          return readProps(item.props, form, row, was, options);
        }
        const kind = one(form[`${row}.kind`]);
        const variant = item.variants[kind];
        if (!variant) return { kind };
        return { kind, ...readProps(variant, form, row, was, options) };
      });
    case "form_fields":
      return readRows(form, name, before, options, (row) => {
        const kind = one(form[`${row}.kind`]);
        const field: Record<string, unknown> = {
          name: one(form[`${row}.name`]).trim(),
          kind,
          label: one(form[`${row}.label`]).trim(),
          required: one(form[`${row}.required`]) !== "",
          help: one(form[`${row}.help`]).trim() || null,
          options: kind === "select"
            ? linesFrom(one(form[`${row}.options`]))
            : [],
        };
        if (kind === "file") {
          const accept = one(form[`${row}.accept`]).split(/[\s,]+/)
            .filter((a) => a !== "");
          if (accept.length > 0) field.accept = accept;
          for (const key of ["max_files", "max_bytes"]) {
            const text = one(form[`${row}.${key}`]);
            if (text.trim() !== "") field[key] = wholeOrText(text);
          }
        }
        return field;
      });
    case "custom_fields": {
      const text = one(form[name]).trim();
      if (text === "") return null;
      try {
        return JSON.parse(text);
      } catch {
        // The parser refuses it at this path: the person sees their own text again.
        return text;
      }
    }
  }
}

function isBlank(value: unknown): boolean {
  if (value === null || value === undefined || value === "") return true;
  if (value === false) return true;
  if (Array.isArray(value)) return value.every(isBlank);
  if (typeof value === "object") {
    return Object.entries(value as Record<string, unknown>).every(([k, v]) =>
      k === "kind" || isBlank(v)
    );
  }
  return false;
}

function readRows(
  form: PostedForm,
  name: string,
  before: unknown,
  options: ReadOptions,
  read: (row: string, was: Record<string, unknown>) => Record<string, unknown>,
): Record<string, unknown>[] {
  const count = Math.min(Number(one(form[`${name}.count`])) || 0, 100);
  const was = Array.isArray(before) ? before : [];
  const rows: Record<string, unknown>[] = [];
  for (let i = 0; i < count; i++) {
    const row = `${name}.${i}`;
    if (one(form[`${row}._remove`]) !== "") continue;
    const value = read(row, (was[i] ?? {}) as Record<string, unknown>);
    // A row added and left empty is not an item.
    if (!options.keepBlank && isBlank(value)) continue;
    rows.push(value);
  }
  return rows;
}

/** The props a posted section form holds, unjudged (the page parser judges them on save). */
export function readSectionProps(
  type: SectionType,
  form: PostedForm,
  options: {
    resolveMedia: MediaResolver;
    before: Record<string, unknown>;
    keepBlank?: boolean;
  },
): Record<string, unknown> {
  const read: ReadOptions = {
    ...options,
    keepBlank: options.keepBlank ?? false,
  };
  return readProps(SECTION_TYPES[type], form, "f", options.before, read);
}

/** The structure a posted section form holds. */
export function readStructure(
  type: SectionType,
  form: PostedForm,
): SectionStructure {
  const structure: SectionStructure = {
    id: one(form["s.id"]).trim(),
    type,
    variant: one(form["s.variant"]).trim() || "default",
    layout: one(form["s.layout"]).trim() || "default",
    appearance: {},
  };
  for (const key of Object.keys(APPEARANCE) as (keyof typeof APPEARANCE)[]) {
    const v = one(form[`s.appearance.${key}`]);
    if (v !== "") structure.appearance[key] = v;
  }
  if (type === "shared") {
    structure.variant = "default";
    structure.layout = "default";
    structure.shared = { entry: one(form["s.shared"]) };
  }
  return structure;
}

/**
 * Adds an empty row to the list posted as `listName` (`f.items`, `f.groups.0.items`) of the
 * props: the form shown again then has one more row. `kind` chooses a union list's variant.
 */
export function withRowAdded(
  props: Record<string, unknown>,
  listName: string,
  kind: string,
): boolean {
  const steps = listName.split(".").slice(1);
  let at: unknown = props;
  for (const step of steps.slice(0, -1)) {
    if (at === null || typeof at !== "object") return false;
    at = (at as Record<string, unknown>)[step];
  }
  if (at === null || typeof at !== "object") return false;
  const holder = at as Record<string, unknown>;
  const key = steps.at(-1) ?? "";
  const list = holder[key];
  if (!Array.isArray(list) || list.length >= 100) return false;
  list.push(kind === "" ? {} : { kind });
  return true;
}

/** Places refusals (by JSON path) on the control they concern, or the nearest fieldset. */
export function placeErrors(
  nodes: FormNode[],
  errors: { path: string; message: string }[],
): { path: string; message: string }[] {
  const unplaced: { path: string; message: string }[] = [];
  for (const error of errors) {
    let best: FormNode | null = null;
    const visit = (list: FormNode[]) => {
      for (const node of list) {
        const within = error.path === node.path ||
          error.path.startsWith(`${node.path}.`) ||
          error.path.startsWith(`${node.path}[`);
        if (!within) continue;
        if (!best || node.path.length > best.path.length) best = node;
        if (node.node === "group") visit(node.children);
      }
    };
    visit(nodes);
    if (best) (best as FormNode).error = error.message;
    else unplaced.push(error);
  }
  return unplaced;
}
