// Field types of content models: their names, the shape of each type's config and validation.
import { z } from "zod";
import type { Condition } from "./condition.ts";
import { MEDIA_KINDS, UUID } from "./field_constants.ts";

/** Every field type a model may declare. */
export const FIELD_TYPES = [
  "text",
  "slug",
  "number",
  "boolean",
  "date",
  "datetime",
  "select",
  "json",
  "rich_text",
  "relation",
  "media",
  "point",
  "component",
] as const;

/** A field type name. */
export type FieldType = typeof FIELD_TYPES[number];

/** Relation kinds; the first word is how many owners a target may have. */
export const RELATION_CARDINALITIES = [
  "one-to-one",
  "many-to-one",
  "one-to-many",
  "many-to-many",
] as const;

/** Media kinds a media field or media block may name (kept beside zod-free constants for the browser). */
export { MEDIA_KINDS, UUID };

/** A media kind. */
export type MediaKind = typeof MEDIA_KINDS[number];

/** Components nest at most this many levels below a root component (spec 2 part 2.3 item 9). */
export const MAX_COMPONENT_DEPTH = 3;

/** Field keys: lower-case letters, digits and `_`, starting with a letter. */
export const FIELD_KEY = /^[a-z][a-z0-9_]{0,63}$/;

/** A calendar date `YYYY-MM-DD`. */
export function isDate(value: unknown): value is string {
  if (typeof value !== "string" || !/^\d{4}-\d{2}-\d{2}$/.test(value)) {
    return false;
  }
  const date = new Date(`${value}T00:00:00Z`);
  return !isNaN(date.getTime()) && date.toISOString().slice(0, 10) === value;
}

/** An RFC 3339 timestamp with a zone (`Z` or an offset). */
export function isDateTime(value: unknown): value is string {
  return typeof value === "string" &&
    /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/
      .test(value) &&
    isDate(value.slice(0, 10)) && !isNaN(Date.parse(value));
}

const uuid = z.string().regex(UUID, "Expected an id (UUID)").transform((id) =>
  id.toLowerCase()
);
const count = z.number().int().min(0);
const date = z.string().refine(isDate, "Expected a date YYYY-MM-DD");
const dateTime = z.string().refine(
  isDateTime,
  "Expected a timestamp such as 2026-01-31T09:30:00Z",
);
const lengths = { minLength: count.optional(), maxLength: count.optional() };
const items = { minItems: count.optional(), maxItems: count.optional() };
const option = z.union([
  z.string().min(1).max(200),
  z.strictObject({
    value: z.string().min(1).max(200),
    label: z.string().min(1).max(200),
  }),
]).transform((o) => typeof o === "string" ? { value: o, label: o } : o);

/** Config schema of each field type (closed objects; defaults filled in). */
export const CONFIG_SCHEMAS = {
  text: z.strictObject({}),
  slug: z.strictObject({ source: z.string().regex(FIELD_KEY).optional() }),
  number: z.strictObject({ integer: z.boolean().default(false) }),
  boolean: z.strictObject({}),
  date: z.strictObject({}),
  datetime: z.strictObject({}),
  select: z.strictObject({
    options: z.array(option).min(1).max(200),
    multiple: z.boolean().default(false),
  }),
  json: z.strictObject({}),
  rich_text: z.strictObject({}),
  relation: z.strictObject({
    targets: z.array(uuid).min(1).max(20),
    cardinality: z.enum(RELATION_CARDINALITIES),
    ordered: z.boolean().optional(),
    localizedMembership: z.boolean().default(false),
  }),
  media: z.strictObject({
    kinds: z.array(z.enum(MEDIA_KINDS)).min(1).optional(),
    multiple: z.boolean().default(false),
  }),
  point: z.strictObject({}),
  component: z.strictObject({
    fields: z.array(z.unknown()).min(1),
    repeatable: z.boolean().default(false),
  }),
} as const;

/** Validation-rule schema of each field type (closed objects). */
export const VALIDATION_SCHEMAS = {
  text: z.strictObject({
    ...lengths,
    pattern: z.string().max(1000).optional(),
  }),
  slug: z.strictObject(lengths),
  number: z.strictObject({
    min: z.number().optional(),
    max: z.number().optional(),
    step: z.number().positive().optional(),
  }),
  boolean: z.strictObject({}),
  date: z.strictObject({ min: date.optional(), max: date.optional() }),
  datetime: z.strictObject({
    min: dateTime.optional(),
    max: dateTime.optional(),
  }),
  select: z.strictObject(items),
  json: z.strictObject({}),
  rich_text: z.strictObject({}),
  relation: z.strictObject(items),
  media: z.strictObject(items),
  point: z.strictObject({}),
  component: z.strictObject(items),
} as const;

type Configs = { [T in FieldType]: z.output<typeof CONFIG_SCHEMAS[T]> };

/** The parsed config of a field of type `T`; a component holds its nested fields. */
export type FieldConfig<T extends FieldType> = T extends "component"
  ? { fields: FieldDefinition[]; repeatable: boolean }
  : T extends "relation" ? Configs[T] & { ordered: boolean }
  : Configs[T];

/** The parsed validation rules of a field of type `T`. */
export type FieldValidation<T extends FieldType> = z.output<
  typeof VALIDATION_SCHEMAS[T]
>;

/** What every field has, whatever its type. */
export interface FieldCommon {
  /** Absent on a field a definition adds; assigned when the model is saved. */
  id?: string;
  key: string;
  label: string;
  required: boolean;
  unique: boolean;
  private: boolean;
  localized: boolean;
  /** Opaque JSON object kept for the editor (derivation hints); null when unset. */
  derived: Record<string, unknown> | null;
  /** Opaque JSON object of editor hints; null when unset. */
  ui: Record<string, unknown> | null;
  visibility: Condition | null;
}

/** A field of one type, its config and rules typed by that type. */
export type FieldOf<T extends FieldType> = FieldCommon & {
  type: T;
  config: FieldConfig<T>;
  validation: FieldValidation<T>;
};

/** A parsed field definition (a union discriminated by `type`). */
export type FieldDefinition = { [T in FieldType]: FieldOf<T> }[FieldType];

/** True when a relation field holds a list of targets. */
export function isToMany(cardinality: string): boolean {
  return cardinality === "one-to-many" || cardinality === "many-to-many";
}

/** True when a field's value is a list (multiple select, media or relation, repeatable component). */
export function isListField(field: FieldDefinition): boolean {
  switch (field.type) {
    case "select":
    case "media":
      return field.config.multiple;
    case "relation":
      return isToMany(field.config.cardinality);
    case "component":
      return field.config.repeatable;
    default:
      return false;
  }
}
