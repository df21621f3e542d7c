// Checks the `data` of a write against the generated columns: known columns only, each value of
// its kind within the rules the model declared (lengths and patterns of text, number ranges and
// steps, select options, dates), required values present on create.
import { refuse } from "./errors.ts";
import type { ColumnSpec } from "./schema.ts";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const DATE = /^\d{4}-\d{2}-\d{2}$/;
const DATETIME =
  /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/;
/** Rich text is stored as HTML up to 256 KiB. */
const RICH_TEXT_BYTES = 256 * 1024;

/** True for an id this backend accepts. */
export function isId(value: unknown): value is string {
  return typeof value === "string" && UUID.test(value);
}

/** One refused value. */
export interface FieldProblem {
  field: string;
  message: string;
}

// Patterns compile once per process; the generator refused any that does not compile with `u`.
const patterns = new Map<string, RegExp>();
function patternOf(source: string): RegExp {
  let re = patterns.get(source);
  if (!re) {
    re = new RegExp(source, "u");
    patterns.set(source, re);
  }
  return re;
}

function isDate(value: unknown): boolean {
  if (typeof value !== "string" || !DATE.test(value)) return false;
  const d = new Date(`${value}T00:00:00Z`);
  return !isNaN(d.getTime()) && d.toISOString().slice(0, 10) === value;
}

/** The problem of one value of a column, or null when it is accepted. */
export function valueProblem(
  column: ColumnSpec,
  value: unknown,
): string | null {
  if (value === null) return column.required ? "Required" : null;
  switch (column.kind) {
    case "text": {
      if (typeof value !== "string") return "Expected text";
      const length = [...value].length;
      if (column.minLength !== undefined && length < column.minLength) {
        return `At least ${column.minLength} characters`;
      }
      if (column.maxLength !== undefined && length > column.maxLength) {
        return `At most ${column.maxLength} characters`;
      }
      if (
        column.pattern !== undefined && !patternOf(column.pattern).test(value)
      ) {
        return "Does not match the pattern";
      }
      if (column.required && value.length === 0) return "Required";
      return null;
    }
    case "rich_text":
      return typeof value !== "string"
        ? "Expected HTML text"
        : new TextEncoder().encode(value).length > RICH_TEXT_BYTES
        ? "At most 256 KiB"
        : null;
    case "number":
    case "integer": {
      if (typeof value !== "number" || !Number.isFinite(value)) {
        return "Expected a number";
      }
      if (column.kind === "integer" && !Number.isInteger(value)) {
        return "Expected a whole number";
      }
      if (column.min !== undefined && value < column.min) {
        return `At least ${column.min}`;
      }
      if (column.max !== undefined && value > column.max) {
        return `At most ${column.max}`;
      }
      if (column.step !== undefined) {
        const steps = (value - (column.min ?? 0)) / column.step;
        if (Math.abs(steps - Math.round(steps)) > 1e-9) {
          return `A multiple of ${column.step}`;
        }
      }
      return null;
    }
    case "boolean":
      return typeof value === "boolean" ? null : "Expected true or false";
    case "date":
      return isDate(value) ? null : "Expected a date YYYY-MM-DD";
    case "datetime":
      return typeof value === "string" && DATETIME.test(value) &&
          !isNaN(Date.parse(value))
        ? null
        : "Expected a timestamp such as 2026-01-31T09:30:00Z";
    case "select":
      return typeof value === "string" && column.options?.includes(value)
        ? null
        : "Not one of the options";
    case "select_list":
      return Array.isArray(value) &&
          value.every((v) =>
            typeof v === "string" && column.options?.includes(v)
          )
        ? null
        : "Expected a list of the options";
    case "media_id":
    case "relation":
      return isId(value) ? null : "Expected an id";
    case "media_list":
      return Array.isArray(value) && value.every(isId)
        ? null
        : "Expected a list of ids";
    case "point": {
      const p = value as { lat?: unknown; lon?: unknown };
      return typeof p === "object" && typeof p.lat === "number" &&
          typeof p.lon === "number" && Math.abs(p.lat) <= 90 &&
          Math.abs(p.lon) <= 180 && Object.keys(p).length === 2
        ? null
        : "Expected { lat, lon } in degrees";
    }
    case "json":
    case "media_url":
    case "media_originals":
    case "rich_media":
      return null;
  }
}

/**
 * The row to write from `data`: unknown or read-only columns are `400 invalid_request`, bad
 * values `422 field_validation_failed` naming each field; on create a missing required value
 * is refused too. JSON values are encoded for jsonb columns.
 */
export function rowToWrite(
  columns: readonly ColumnSpec[],
  data: unknown,
  mode: "create" | "update",
  extra: readonly string[] = [],
): Record<string, unknown> {
  if (!data || typeof data !== "object" || Array.isArray(data)) {
    refuse(400, "invalid_request", { message: "data must be an object" });
  }
  const byName = new Map(columns.map((c) => [c.name, c]));
  const row: Record<string, unknown> = {};
  const problems: FieldProblem[] = [];
  for (const [key, value] of Object.entries(data)) {
    if (extra.includes(key)) {
      row[key] = value;
      continue;
    }
    const column = byName.get(key);
    if (!column || column.readOnly) {
      refuse(400, "invalid_request", { message: `Unknown column "${key}"` });
    }
    const problem = valueProblem(column, value);
    if (problem) problems.push({ field: key, message: problem });
    else {
      row[key] = value !== null && typeof value === "object"
        ? JSON.stringify(value)
        : value;
    }
  }
  if (mode === "create") {
    for (const column of columns) {
      if (column.required && !(column.name in (data as object))) {
        problems.push({ field: column.name, message: "Required" });
      }
    }
  }
  if (problems.length > 0) {
    refuse(422, "field_validation_failed", { fields: problems });
  }
  return row;
}
