// Checks a parsed list query against the model and turns it into SQL conditions, order and keyset.
import { type RawBuilder, sql } from "kysely";
import { isDate, UUID } from "../models/field_types.ts";
import type { FieldDefinition } from "../models/field_types.ts";
import type { StoredModel } from "../models/store_rows.ts";
import { HttpError } from "../web/errors.ts";
import { ITEM_KEYS } from "./items.ts";
import { invalid, type ListQuery } from "./list_params.ts";
import { publicField } from "./read_context.ts";

function unsupported(message: string): never {
  throw new HttpError(400, "public_filter_type_unsupported", message);
}

/** A relation field usable for `relation`, `tag` and `expand`: public, to one model. */
export function singleModelRelation(
  model: StoredModel,
  key: string,
  onBad: (message: string) => never,
  onMulti: (message: string) => never,
): FieldDefinition & { type: "relation" } {
  const field = publicField(model, key);
  if (!field || field.type !== "relation") {
    onBad(`"${key.slice(0, 64)}" is not a relation field of this model`);
  }
  if (field.config.targets.length !== 1) {
    onMulti(`Relation field "${key}" accepts several models`);
  }
  return field;
}

/** The SQL value a sortable field orders by, and the type its cursor value is cast to. */
export interface SortPlan {
  value: RawBuilder<unknown>;
  cast: "numeric" | "text" | "float8" | "timestamptz";
  desc: boolean;
  /** The sorted field's key. */
  key: string;
  /**
   * The `public_item_values` column an index range scan drives the sort by: numbers, strings
   * (the first 255 characters of a longer one: ties of that prefix are ordered by the whole
   * value) and timestamps; null for a computed distance.
   */
  indexed: "num_value" | "text_value" | "time_value" | null;
}

const NUMBER_TEXT = /^-?\d{1,30}(\.\d{1,30})?$/;

const FIELDS = sql`p.fields`;

function jsonText(key: string, fields: RawBuilder<unknown>) {
  return sql`(case when jsonb_typeof(${fields} -> ${key}::text) = 'string' then ${fields} ->> ${key}::text end)`;
}
function jsonNumber(key: string, fields: RawBuilder<unknown>) {
  return sql`(case when jsonb_typeof(${fields} -> ${key}::text) = 'number' then (${fields} ->> ${key}::text)::numeric end)`;
}

/**
 * The one-entry object `{key: value}` a containment filter looks for, as a jsonb constant. A
 * constant, not `jsonb_build_object(...)`: that function is only stable, so PostgreSQL built the
 * object again for every index entry a filtered page read (a third of the page's execution).
 */
function containing(key: string, value: unknown): RawBuilder<unknown> {
  return sql`${JSON.stringify({ [key]: value })}::jsonb`;
}

/** {@link containing} for a checked decimal (NUMBER_TEXT), kept exact as a JSON number. */
function containingNumber(key: string, decimal: string): RawBuilder<unknown> {
  // JSON allows no leading zeros; jsonb compares numbers by value, so 7 and 7.50 still meet.
  const number = decimal.replace(/^(-?)0+(?=\d)/, "$1");
  return sql`${`{${JSON.stringify(key)}: ${number}}`}::jsonb`;
}

/** Checks `sort` and `origin` against the model. */
export function planSort(
  model: StoredModel,
  query: ListQuery,
): SortPlan | null {
  if (!query.sort) return null;
  const { field: key, desc } = query.sort;
  const field = publicField(model, key);
  if (!field) invalid(`Unknown field "${key}"`);
  if (field.type === "point") {
    if (!query.origin) {
      invalid(
        `Sorting by point field "${key}" needs origin=<latitude>,<longitude>`,
      );
    }
    const { latitude, longitude } = query.origin;
    const lat = sql`((p.fields -> ${key}::text ->> 'latitude')::float8)`;
    const lng = sql`((p.fields -> ${key}::text ->> 'longitude')::float8)`;
    return {
      value:
        sql`(case when jsonb_typeof(p.fields -> ${key}::text) = 'object' then
        2 * 6371000 * asin(least(1, sqrt(power(sin(radians(${lat} - ${latitude}::float8) / 2), 2)
        + cos(radians(${latitude}::float8)) * cos(radians(${lat}))
        * power(sin(radians(${lng} - ${longitude}::float8) / 2), 2)))) end)`,
      cast: "float8",
      desc,
      key,
      indexed: null,
    };
  }
  if (query.origin) invalid("origin applies only to sorting by a point field");
  switch (field.type) {
    case "number":
      return {
        value: jsonNumber(key, FIELDS),
        cast: "numeric",
        desc,
        key,
        indexed: "num_value",
      };
    case "date":
    case "text":
    case "slug":
      return {
        value: sql`(${jsonText(key, FIELDS)} collate "C")`,
        cast: "text",
        desc,
        key,
        indexed: "text_value",
      };
    case "select":
      if (field.config.multiple) {
        unsupported(`Cannot sort by multiple-choice field "${key}"`);
      }
      return {
        value: sql`(${jsonText(key, FIELDS)} collate "C")`,
        cast: "text",
        desc,
        key,
        indexed: "text_value",
      };
    case "datetime":
      return {
        value: sql`(${jsonText(key, FIELDS)})::timestamptz`,
        cast: "timestamptz",
        desc,
        key,
        indexed: "time_value",
      };
    default:
      unsupported(`Cannot sort by ${field.type} field "${key}"`);
  }
}

/**
 * One condition of a list (conditions are ANDed), written against any jsonb column holding the
 * item's fields or a copy of some of them.
 */
export interface ListCondition {
  /**
   * The one top-level field key the condition reads, so it gives the same answer on any object
   * holding that entry as it is; null when it reads more than `fields` (tags) and must run on
   * `p.fields`.
   */
  key: string | null;
  on(fields: RawBuilder<unknown>): RawBuilder<unknown>;
}

/** The conditions of every filter, relation and tag (ANDed). */
export function planConditions(
  model: StoredModel,
  query: ListQuery,
  targetModel: (
    field: FieldDefinition & { type: "relation" },
  ) => { id: string } | undefined,
  siteId: string,
): ListCondition[] {
  const out: ListCondition[] = [];
  for (const [key, spec] of query.filters) {
    const field = publicField(model, key);
    if (!field) invalid(`Unknown field "${key}"`);
    const eqTypes = ["text", "slug", "select", "boolean", "number", "date"];
    if (!eqTypes.includes(field.type)) {
      unsupported(`Cannot filter by ${field.type} field "${key}"`);
    }
    if (spec.kind === "eq") {
      const alternatives = spec.values.map((v) => {
        switch (field.type) {
          case "boolean":
            if (v !== "true" && v !== "false") {
              invalid(`Filter "${key}" takes true or false`);
            }
            return containing(key, v === "true");
          case "number":
            if (!NUMBER_TEXT.test(v)) {
              invalid(`Filter "${key}" takes a decimal number`);
            }
            return containingNumber(key, v);
          case "date":
            if (!isDate(v)) invalid(`Filter "${key}" takes a date YYYY-MM-DD`);
            return containing(key, v);
          case "select":
            return containing(key, field.config.multiple ? [v] : v);
          default:
            return containing(key, v);
        }
      });
      out.push({
        key,
        on: (fields) =>
          sql`(${
            sql.join(
              alternatives.map((a) => sql`${fields} @> ${a}`),
              sql` or `,
            )
          })`,
      });
      continue;
    }
    if (field.type !== "number" && field.type !== "date") {
      unsupported(`Ranges apply only to number and date fields, not "${key}"`);
    }
    const check = (v: string) => {
      if (field.type === "number" ? !NUMBER_TEXT.test(v) : !isDate(v)) {
        invalid(
          `Filter "${key}" takes ${
            field.type === "number" ? "a decimal number" : "a date YYYY-MM-DD"
          }`,
        );
      }
      return field.type === "number" ? Number(v) : v;
    };
    const lower = spec.lower ? check(spec.lower.value) : null;
    const upper = spec.upper ? check(spec.upper.value) : null;
    if (lower !== null && upper !== null) {
      const inclusive = spec.lower!.op === "gte" && spec.upper!.op === "lte";
      if (inclusive ? lower > upper : lower >= upper) {
        invalid(
          `Filter "${key}" is unsatisfiable: the lower bound is not below the upper bound`,
        );
      }
    }
    const value = (fields: RawBuilder<unknown>) =>
      field.type === "number" ? jsonNumber(key, fields) : jsonText(key, fields);
    const cast = (v: string) =>
      field.type === "number" ? sql`${v}::numeric` : sql`${v}::text`;
    if (spec.lower) {
      const bound = cast(spec.lower.value);
      const op = spec.lower.op === "gt" ? sql`>` : sql`>=`;
      out.push({ key, on: (fields) => sql`${value(fields)} ${op} ${bound}` });
    }
    if (spec.upper) {
      const bound = cast(spec.upper.value);
      const op = spec.upper.op === "lt" ? sql`<` : sql`<=`;
      out.push({ key, on: (fields) => sql`${value(fields)} ${op} ${bound}` });
    }
  }
  for (const rel of query.relations) {
    const field = singleModelRelation(model, rel.field, invalid, unsupported);
    if (!targetModel(field)) {
      invalid(`"${rel.field}" is not a relation field of this model`);
    }
    if (!UUID.test(rel.id)) invalid(`Invalid item id "${rel.id.slice(0, 64)}"`);
    const id = rel.id.toLowerCase();
    const contained = containing(
      rel.field,
      isListRelation(field) ? [id] : id,
    );
    out.push({
      key: rel.field,
      on: (fields) => sql`${fields} @> ${contained}`,
    });
  }
  for (const tag of query.tags) {
    const field = singleModelRelation(model, tag.field, invalid, unsupported);
    const target = targetModel(field);
    if (!target) {
      invalid(`"${tag.field}" is not a relation field of this model`);
    }
    const member = isListRelation(field)
      ? sql`jsonb_build_array(t.group_id::text)`
      : sql`to_jsonb(t.group_id::text)`;
    // Reads the served language of the item and other rows, not only one entry of its fields.
    out.push({
      key: null,
      on: (fields) =>
        sql`exists (select 1 from public_items t where t.site_id = ${siteId}
      and t.model_id = ${target.id} and t.requested_locale = p.served_locale
      and t.slug = ${tag.slug} and ${fields} @> jsonb_build_object(${tag.field}::text, ${member}))`,
    });
  }
  return out;
}

/** Checks the `fields` selection: model fields (not private) and item keys only. */
export function planSelection(
  model: StoredModel,
  query: ListQuery,
): Set<string> | null {
  if (!query.fields) return null;
  for (const key of query.fields) {
    if (!ITEM_KEYS.includes(key) && !publicField(model, key)) {
      invalid(`Unknown field "${key.slice(0, 64)}"`);
    }
  }
  return new Set(query.fields);
}

/** True when a relation field holds a list. */
export function isListRelation(
  field: FieldDefinition & { type: "relation" },
): boolean {
  return field.config.cardinality === "one-to-many" ||
    field.config.cardinality === "many-to-many";
}
