// The entry editor's form: which controls a model's fields get, stored values as form text, and posted text back as values.
import { readableFields, writableFields } from "../access/decide.ts";
import type { Authority } from "../access/authority.ts";
import type { FieldDefinition } from "../models/field_types.ts";
import type { StoredModel } from "../models/store_rows.ts";

/** What the form holds for one field: the text of its inputs, exactly as typed or as stored. */
export type RawValue = string | string[];

/** The form's text by field key. */
export type RawValues = Record<string, RawValue>;

/** One control of the editor; plain JSON, rendered by the page. */
export interface FieldControl {
  key: string;
  label: string;
  type: FieldDefinition["type"];
  required: boolean;
  localized: boolean;
  /** The person may read but not change it: shown read-only and never posted. */
  readOnly: boolean;
  /** Required, length, range and item-count hints from the model, in words. */
  hints: string[];
  multiple: boolean;
  options: { value: string; label: string }[];
  /** Number fields: whole numbers only. */
  integer: boolean;
  /** Number step, length limits: echoed to the browser's own checks. */
  min?: string;
  max?: string;
  step?: string;
  minLength?: number;
  maxLength?: number;
  /** Slug fields: the text field the slug follows. */
  source?: string;
  /** Relation fields: the models a target may be of. */
  targets: string[];
  /** Media fields: kinds accepted. */
  kinds: string[];
  /**
   * Component fields: the controls of one item. Inside a component, nested components and points
   * are edited as JSON.
   */
  children?: FieldControl[];
}

/** The most item rows a posted component field is read for (its `maxItems` is checked after). */
const COMPONENT_ROWS_MAX = 500;

/** Field types a component item edits as JSON text rather than with their own control. */
const JSON_INSIDE_COMPONENTS = new Set<FieldDefinition["type"]>([
  "component",
  "point",
]);

function hintsOf(field: FieldDefinition): string[] {
  const hints: string[] = [];
  if (field.required) hints.push("Required to publish");
  const v = field.validation as Record<string, unknown>;
  if (typeof v.minLength === "number" && typeof v.maxLength === "number") {
    hints.push(`${v.minLength} to ${v.maxLength} characters`);
  } else if (typeof v.maxLength === "number") {
    hints.push(`At most ${v.maxLength} characters`);
  } else if (typeof v.minLength === "number") {
    hints.push(`At least ${v.minLength} characters`);
  }
  if (v.min !== undefined && v.max !== undefined) {
    hints.push(`From ${v.min} to ${v.max}`);
  } else if (v.min !== undefined) hints.push(`At least ${v.min}`);
  else if (v.max !== undefined) hints.push(`At most ${v.max}`);
  if (typeof v.step === "number") hints.push(`In steps of ${v.step}`);
  if (typeof v.minItems === "number") {
    hints.push(`At least ${v.minItems} items`);
  }
  if (typeof v.maxItems === "number") hints.push(`At most ${v.maxItems} items`);
  if (typeof v.pattern === "string") hints.push(`Must match ${v.pattern}`);
  switch (field.type) {
    case "slug":
      hints.push("Lower-case letters, digits and single hyphens");
      break;
    case "datetime":
      hints.push("Date and time in UTC");
      break;
    case "json":
      hints.push("JSON");
      break;
    case "rich_text":
      hints.push("Rich text; without JavaScript, its HTML");
      break;
    case "point":
      hints.push("Latitude -90 to 90, longitude -180 to 180");
      break;
  }
  return hints;
}

/**
 * The controls of the fields the person may read, in model order: a field they may not read is
 * absent; one they may read but not write is read-only.
 */
export function fieldControls(
  model: StoredModel,
  authority: Authority,
): FieldControl[] {
  const keys = model.fields.map((f) => f.key);
  const readable = new Set(readableFields(authority, model.id, keys));
  const writable = new Set(writableFields(authority, model.id, keys));
  return model.fields.filter((f) => readable.has(f.key)).map((field) =>
    controlOf(field, !writable.has(field.key), false)
  );
}

/** The control of one field; `nested` for a field inside a component item. */
function controlOf(
  field: FieldDefinition,
  readOnly: boolean,
  nested: boolean,
): FieldControl {
  const v = field.validation as Record<string, unknown>;
  const asJson = nested && JSON_INSIDE_COMPONENTS.has(field.type);
  const control: FieldControl = {
    key: field.key,
    label: field.label,
    // A slug inside an item has no sibling input to follow: it is typed as text.
    type: asJson
      ? "json"
      : nested && field.type === "slug"
      ? "text"
      : field.type,
    required: field.required,
    localized: field.localized,
    readOnly,
    hints: asJson ? [...hintsOf(field), "JSON"] : hintsOf(field),
    multiple: false,
    options: [],
    integer: false,
    targets: [],
    kinds: [],
  };
  if (typeof v.minLength === "number") control.minLength = v.minLength;
  if (typeof v.maxLength === "number") control.maxLength = v.maxLength;
  if (v.min !== undefined) control.min = String(v.min);
  if (v.max !== undefined) control.max = String(v.max);
  if (v.step !== undefined) control.step = String(v.step);
  if (asJson) return control;
  switch (field.type) {
    case "select":
      control.multiple = field.config.multiple;
      control.options = field.config.options.map((o) => ({ ...o }));
      break;
    case "number":
      control.integer = field.config.integer;
      break;
    case "slug":
      if (field.config.source && !nested) control.source = field.config.source;
      break;
    case "relation":
      control.multiple = field.config.cardinality === "one-to-many" ||
        field.config.cardinality === "many-to-many";
      control.targets = [...field.config.targets];
      break;
    case "media":
      control.multiple = field.config.multiple;
      control.kinds = [...(field.config.kinds ?? [])];
      break;
    case "component":
      control.multiple = field.config.repeatable;
      control.children = field.config.fields.map((f) =>
        controlOf(f, readOnly, true)
      );
      break;
  }
  return control;
}

/** A component's stored value as its items (a single component is a list of at most one). */
function componentItems(
  control: FieldControl,
  value: unknown,
): Record<string, unknown>[] {
  const items = control.multiple ? value : [value];
  return Array.isArray(items)
    ? items.filter((i): i is Record<string, unknown> =>
      typeof i === "object" && i !== null && !Array.isArray(i)
    )
    : [];
}

/**
 * The item rows a component field shows: its items, then (unless read-only) one blank row for a
 * new item of a repeatable component, or the one row of an empty single component.
 */
export function componentRowsShown(
  control: FieldControl,
  raw: RawValue,
): (RawValues | null)[] {
  const rows = componentRows(raw);
  if (!control.multiple) return [rows[0] ?? null];
  return control.readOnly ? rows : [...rows, null];
}

/** A control and the text it shows. */
export interface ShownControl {
  control: FieldControl;
  value: RawValue;
}

/**
 * Every control the form shows with its text: the top-level ones, and each component item's
 * fields under their full key (`faq.0.link`), blank rows included. Pickers read their choices
 * from this list.
 */
export function shownControls(
  controls: readonly FieldControl[],
  raw: RawValues,
): ShownControl[] {
  return controls.flatMap((control) => {
    const value = raw[control.key] ?? (control.multiple ? [] : "");
    if (!control.children) return [{ control, value }];
    const children = control.children;
    return componentRowsShown(control, value).flatMap((row, n) =>
      children.map((child) => ({
        control: { ...child, key: `${control.key}.${n}.${child.key}` },
        value: row?.[child.key] ?? (child.multiple ? [] : ""),
      }))
    );
  });
}

/** The control of `key`, a top-level field or a field of a component item (`faq.0.link`). */
export function controlAt(
  controls: readonly FieldControl[],
  key: string,
): FieldControl | undefined {
  const top = controls.find((c) => c.key === key);
  if (top) return top;
  const [root, n, child, ...rest] = key.split(".");
  if (rest.length > 0 || !/^\d+$/.test(n ?? "")) return undefined;
  const found = controls.find((c) => c.key === root)?.children?.find((c) =>
    c.key === child
  );
  return found && { ...found, key };
}

/** The text of a component's item rows: a JSON list of each item's control texts. */
export function componentRows(raw: RawValue): RawValues[] {
  if (Array.isArray(raw) || raw.trim() === "") return [];
  try {
    const rows = JSON.parse(raw);
    return Array.isArray(rows)
      ? rows.filter((r) => typeof r === "object" && r !== null)
      : [];
  } catch {
    return [];
  }
}

/** A stored value as the text of its control. */
export function rawOf(control: FieldControl, value: unknown): RawValue {
  if (control.type === "component" && control.children) {
    const children = control.children;
    const rows = componentItems(control, value).map((item) =>
      rawValues(children, item)
    );
    return rows.length > 0 ? JSON.stringify(rows) : "";
  }
  if (value === undefined || value === null) return control.multiple ? [] : "";
  switch (control.type) {
    case "json":
    case "component":
      return JSON.stringify(value, null, 2);
    case "boolean":
      return value === true ? "true" : "false";
    case "datetime":
      return typeof value === "string"
        ? new Date(value).toISOString().slice(0, 16)
        : "";
    case "point": {
      const p = value as { latitude?: unknown; longitude?: unknown };
      return [String(p.latitude ?? ""), String(p.longitude ?? "")];
    }
    case "relation": {
      const ref = (item: unknown) =>
        typeof item === "object" && item !== null
          ? `${(item as { model: string }).model}:${
            (item as { id: string }).id
          }`
          : String(item);
      return Array.isArray(value) ? value.map(ref) : ref(value);
    }
    case "select":
    case "media":
      return Array.isArray(value) ? value.map(String) : String(value);
    default:
      return typeof value === "string" ? value : String(value);
  }
}

/** Every control's text from stored values. */
export function rawValues(
  controls: readonly FieldControl[],
  values: Record<string, unknown>,
): RawValues {
  return Object.fromEntries(
    controls.map((c) => [c.key, rawOf(c, values[c.key])]),
  );
}

/** A problem the form itself found before asking the services (JSON that does not parse...). */
export interface FormProblem {
  path: string;
  message: string;
}

/** What a posted form says: the text of each writable control, and the values it means. */
export interface ParsedForm {
  raw: RawValues;
  values: Record<string, unknown>;
  problems: FormProblem[];
}

/** Form posts send text area line breaks as CRLF (HTML's form encoding); values keep LF. */
function list(value: unknown): string[] {
  if (value === undefined) return [];
  return (Array.isArray(value) ? value : [value]).map((v) =>
    String(v).replace(/\r\n?/g, "\n")
  );
}

function one(value: unknown): string {
  return list(value)[0] ?? "";
}

/**
 * Reads the posted form (`f.<key>` per field) for the writable controls. Empty inputs leave the
 * field out (the saved version does not hold it). Read-only fields are never read from the
 * form: the services keep what the person could not change.
 */
export function parseEntryForm(
  controls: readonly FieldControl[],
  form: Record<string, unknown>,
): ParsedForm {
  const raw: RawValues = {};
  const values: Record<string, unknown> = {};
  const problems: FormProblem[] = [];
  for (const control of controls) {
    if (control.readOnly) continue;
    const name = `f.${control.key}`;
    const posted = form[name];
    switch (control.type) {
      case "boolean": {
        // A checkbox sends nothing when unchecked; the hidden marker says the control was there.
        if (form[`present.${control.key}`] === undefined) continue;
        const on = list(posted).includes("true");
        raw[control.key] = on ? "true" : "false";
        values[control.key] = on;
        break;
      }
      case "number": {
        const text = one(posted).trim();
        raw[control.key] = text;
        if (text === "") break;
        const n = Number(text);
        if (!Number.isFinite(n)) {
          problems.push({ path: control.key, message: "Enter a number" });
        } else values[control.key] = n;
        break;
      }
      case "datetime": {
        const text = one(posted).trim();
        raw[control.key] = text;
        if (text === "") break;
        const at = new Date(`${text.length === 16 ? `${text}:00` : text}Z`);
        if (Number.isNaN(at.getTime())) {
          problems.push({
            path: control.key,
            message: "Enter a date and time",
          });
        } else values[control.key] = at.toISOString().replace(".000Z", "Z");
        break;
      }
      case "component": {
        if (!control.children) break;
        const parsed = parseComponent(control, control.children, form);
        raw[control.key] = parsed.rows.length > 0
          ? JSON.stringify(parsed.rows)
          : "";
        problems.push(...parsed.problems);
        if (parsed.items.length > 0) {
          values[control.key] = control.multiple
            ? parsed.items
            : parsed.items[0];
        }
        break;
      }
      case "json": {
        const text = one(posted);
        raw[control.key] = text;
        if (text.trim() === "") break;
        try {
          values[control.key] = JSON.parse(text);
        } catch {
          problems.push({
            path: control.key,
            message:
              "This is not valid JSON: check quotes, commas and brackets",
          });
        }
        break;
      }
      case "point": {
        const [lat, lon] = [one(form[`${name}.lat`]), one(form[`${name}.lon`])];
        raw[control.key] = [lat, lon];
        if (lat.trim() === "" && lon.trim() === "") break;
        const p = { latitude: Number(lat), longitude: Number(lon) };
        if (!Number.isFinite(p.latitude) || !Number.isFinite(p.longitude)) {
          problems.push({
            path: control.key,
            message: "Enter a latitude and a longitude",
          });
        } else values[control.key] = p;
        break;
      }
      case "relation": {
        const ids = list(posted).map((s) => s.trim()).filter((s) => s !== "");
        raw[control.key] = control.multiple ? ids : ids[0] ?? "";
        const ref = (text: string) => {
          if (control.targets.length <= 1) return text.split(":").at(-1)!;
          const [model, id] = text.split(":");
          return id ? { model, id } : text;
        };
        if (control.multiple) values[control.key] = ids.map(ref);
        else if (ids[0]) values[control.key] = ref(ids[0]);
        break;
      }
      case "select":
      case "media": {
        const items = list(posted).flatMap((s) =>
          control.type === "media" ? s.split(/[\s,]+/) : [s]
        ).map((s) => s.trim()).filter((s) => s !== "");
        raw[control.key] = control.multiple ? items : items[0] ?? "";
        if (control.multiple) {
          if (items.length > 0) values[control.key] = items;
        } else if (items[0]) values[control.key] = items[0];
        break;
      }
      default: {
        const text = one(posted);
        raw[control.key] = text;
        if (text !== "") values[control.key] = text;
      }
    }
  }
  return { raw, values, problems };
}

/**
 * Reads a component's item rows (`f.<key>.<n>.<field>`, `f.<key>.rows` of them). A row whose
 * "remove" box is ticked is dropped, and so is an untouched blank row (the one offered for a new
 * item, or a single component left empty).
 */
function parseComponent(
  control: FieldControl,
  children: readonly FieldControl[],
  form: Record<string, unknown>,
): {
  rows: RawValues[];
  items: Record<string, unknown>[];
  problems: FormProblem[];
} {
  const base = `${control.key}.`;
  const count = Math.min(
    Math.max(0, Math.trunc(Number(one(form[`f.${base}rows`])) || 0)),
    COMPONENT_ROWS_MAX,
  );
  const rows: RawValues[] = [];
  const items: Record<string, unknown>[] = [];
  const problems: FormProblem[] = [];
  for (let n = 0; n < count; n++) {
    const prefix = `${base}${n}.`;
    if (list(form[`f.${prefix}remove`]).includes("1")) continue;
    // The item's inputs, renamed as if its fields were the form's own.
    const own: Record<string, unknown> = {};
    for (const [name, posted] of Object.entries(form)) {
      if (name.startsWith(`f.${prefix}`)) {
        own[`f.${name.slice(2 + prefix.length)}`] = posted;
      } else if (name.startsWith(`present.${prefix}`)) {
        own[`present.${name.slice(8 + prefix.length)}`] = posted;
      }
    }
    const item = parseEntryForm(children, own);
    const untouched = Object.values(item.raw).every((r) =>
      Array.isArray(r)
        ? r.every((t) => t.trim() === "")
        : r.trim() === "" || r === "false"
    );
    if (untouched && item.problems.length === 0) continue;
    const at = control.multiple
      ? `${control.key}[${items.length}]`
      : control.key;
    rows.push(item.raw);
    items.push(item.values);
    problems.push(
      ...item.problems.map((p) => ({ ...p, path: `${at}.${p.path}` })),
    );
  }
  return { rows, items, problems };
}

/** Problems grouped by the top-level field they concern (`seo.meta_title` belongs to `seo`). */
export function problemsByField(
  problems: readonly { path: string; message: string }[],
): Record<string, string[]> {
  const byField: Record<string, string[]> = {};
  for (const p of problems) {
    const root = p.path.split(/[.[]/)[0] || "_";
    const detail = p.path.includes(".") || p.path.includes("[")
      ? `${p.path}: ${p.message}`
      : p.message;
    (byField[root] ??= []).push(detail);
  }
  return byField;
}
