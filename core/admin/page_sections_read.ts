// The page editor's forms read back: a posted section form (flat names such as `f.items.0.title`)
// into raw props that the page parser then judges, and the parser's refusals placed on its fields.
import { one } from "./form_values.ts";
import type {
  FormNode,
  PostedForm,
  SectionStructure,
} from "./page_sections.ts";
import { linesFrom, paragraphsFrom } from "./page_sections_text.ts";
import {
  APPEARANCE,
  type PropSpec,
  SECTION_TYPES,
  type SectionType,
} from "../pages/vocabulary.ts";

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
