// The model editor's settings of each field kind as form controls instead of JSON: which settings
// a kind has, and a posted form read back into the field's config and validation JSON. The model
// service then checks the result with its own rules (closed schemas per type, rule sanity), so a
// bad value is refused there with its path, as a hand-typed JSON value would be.
import { MEDIA_KINDS } from "../models/field_constants.ts";
import { RELATION_CARDINALITIES } from "../models/field_types.ts";
import { one } from "./form_values.ts";

/** One setting control of a field kind. */
export interface SettingControl {
  /** `config` or `validation`: where the value goes. */
  in: "config" | "validation";
  key: string;
  label: string;
  kind:
    | "integer"
    | "number"
    | "text"
    | "date"
    | "boolean"
    | "options"
    | "cardinality"
    | "targets"
    | "media_kinds";
  hint?: string;
}

const lengths: SettingControl[] = [
  { in: "validation", key: "minLength", label: "Shortest", kind: "integer" },
  { in: "validation", key: "maxLength", label: "Longest", kind: "integer" },
];
const items: SettingControl[] = [
  { in: "validation", key: "minItems", label: "Fewest items", kind: "integer" },
  { in: "validation", key: "maxItems", label: "Most items", kind: "integer" },
];

/** The settings each field kind offers as controls; kinds not listed have none. */
export const SETTINGS_OF: Record<string, SettingControl[]> = {
  text: [...lengths, {
    in: "validation",
    key: "pattern",
    label: "Pattern",
    kind: "text",
    hint: "A regular expression the whole value must match, such as ^[A-Z]",
  }],
  slug: [{
    in: "config",
    key: "source",
    label: "Made from the field",
    kind: "text",
    hint: "The key of the text field a new slug is made from",
  }, ...lengths],
  number: [
    {
      in: "config",
      key: "integer",
      label: "Whole numbers only",
      kind: "boolean",
    },
    { in: "validation", key: "min", label: "Smallest", kind: "number" },
    { in: "validation", key: "max", label: "Largest", kind: "number" },
    { in: "validation", key: "step", label: "Step", kind: "number" },
  ],
  date: [
    { in: "validation", key: "min", label: "Earliest", kind: "date" },
    { in: "validation", key: "max", label: "Latest", kind: "date" },
  ],
  datetime: [
    {
      in: "validation",
      key: "min",
      label: "Earliest",
      kind: "text",
      hint: "A time with its zone, such as 2026-01-31T09:30:00Z",
    },
    { in: "validation", key: "max", label: "Latest", kind: "text" },
  ],
  select: [
    {
      in: "config",
      key: "options",
      label: "Choices",
      kind: "options",
      hint: "One per line: a value, or a value | the label people see",
    },
    {
      in: "config",
      key: "multiple",
      label: "Several may be chosen",
      kind: "boolean",
    },
    ...items,
  ],
  relation: [
    { in: "config", key: "targets", label: "Links to", kind: "targets" },
    {
      in: "config",
      key: "cardinality",
      label: "Kind of link",
      kind: "cardinality",
    },
    { in: "config", key: "ordered", label: "Keeps its order", kind: "boolean" },
    {
      in: "config",
      key: "localizedMembership",
      label: "A list per language",
      kind: "boolean",
    },
    ...items,
  ],
  media: [
    { in: "config", key: "kinds", label: "Kinds of file", kind: "media_kinds" },
    { in: "config", key: "multiple", label: "Several files", kind: "boolean" },
    ...items,
  ],
  component: [
    { in: "config", key: "repeatable", label: "Repeatable", kind: "boolean" },
    ...items,
  ],
};

/** The words of the relation kinds, for the cardinality select. */
export const CARDINALITY_WORDS: Record<string, string> = {
  "one-to-one": "One to one",
  "many-to-one": "Many to one (each links to one)",
  "one-to-many": "One to many",
  "many-to-many": "Many to many",
};

export { MEDIA_KINDS, RELATION_CARDINALITIES };

/** Choices as the options textarea shows them: `value` or `value | label`, one per line. */
export function optionsText(options: unknown): string {
  if (!Array.isArray(options)) return "";
  return options.map((o) =>
    typeof o === "string"
      ? o
      : o && typeof o === "object"
      ? (o as { value: string; label: string }).value ===
          (o as { label: string }).label
        ? (o as { value: string }).value
        : `${(o as { value: string }).value} | ${
          (o as { label: string }).label
        }`
      : String(o)
  ).join("\n");
}

function readOptions(text: string): unknown[] {
  return text.split(/\r?\n/).map((line) => line.trim()).filter((l) => l)
    .map((line) => {
      const bar = line.indexOf("|");
      if (bar < 0) return line;
      const value = line.slice(0, bar).trim();
      const label = line.slice(bar + 1).trim();
      return label === "" || label === value ? value : { value, label };
    });
}

/** A number typed in a form: the number, or the text as typed for the model rules to refuse. */
function numberOf(text: string, integer: boolean): unknown {
  const n = Number(text);
  if (!Number.isFinite(n)) return text;
  return integer && !Number.isInteger(n) ? text : n;
}

function jsonObject(text: string): Record<string, unknown> | null {
  try {
    const value = JSON.parse(text || "{}");
    return value && typeof value === "object" && !Array.isArray(value)
      ? value as Record<string, unknown>
      : null;
  } catch {
    return null;
  }
}

/**
 * The field's config and validation JSON after its settings controls: the advanced JSON (or the
 * stored value) with every control's key set, or removed when left empty. JSON that does not read
 * as an object is passed on unchanged, so the model rules refuse it by name.
 */
export function settingsFromForm(
  type: string,
  form: Record<string, unknown>,
  prefix: string,
  json: { config: string; validation: string },
): { config: string; validation: string } {
  const controls = SETTINGS_OF[type] ?? [];
  const config = jsonObject(json.config);
  const validation = jsonObject(json.validation);
  if (controls.length === 0 || form[`${prefix}.settings`] === undefined) {
    return json;
  }
  for (const control of controls) {
    const target = control.in === "config" ? config : validation;
    if (!target) continue;
    const name = `${prefix}.${control.in}.${control.key}`;
    const values = form[name];
    const text = one(values).trim();
    let value: unknown;
    switch (control.kind) {
      case "boolean":
        value = values !== undefined ? true : undefined;
        // A false default is the same as leaving it out; an explicit false keeps older readers right.
        if (value === undefined && control.key in target) value = false;
        break;
      case "integer":
        value = text === "" ? undefined : numberOf(text, true);
        break;
      case "number":
        value = text === "" ? undefined : numberOf(text, false);
        break;
      case "options":
        value = text === "" ? undefined : readOptions(one(values));
        break;
      case "targets":
      case "media_kinds": {
        const list = (Array.isArray(values) ? values : [values])
          .filter((v): v is string => typeof v === "string" && v !== "");
        value = list.length === 0 ? undefined : list;
        break;
      }
      default:
        value = text === "" ? undefined : text;
    }
    if (value === undefined) delete target[control.key];
    else target[control.key] = value;
  }
  return {
    config: config ? JSON.stringify(config) : json.config,
    validation: validation ? JSON.stringify(validation) : json.validation,
  };
}
