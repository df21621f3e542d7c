// Checks that a field's flags and validation rules make sense for its type and place.
import {
  type FieldDefinition,
  type FieldType,
  isToMany,
} from "./field_types.ts";
import { joinPath, type Problem } from "./problems.ts";

const UNIQUE_TYPES: FieldType[] = ["text", "number"];

/** Checks the flags a field's type and place allow: unique, localized. */
export function checkFlags(
  field: FieldDefinition,
  path: string,
  depth: number,
  problems: Problem[],
): void {
  if (field.unique && (!UNIQUE_TYPES.includes(field.type) || depth > 0)) {
    problems.push({
      path: joinPath(path, "unique"),
      code: "unique_unsupported",
      message: depth > 0
        ? `Field "${field.key}" sits inside a component: only top-level text or number fields can be unique`
        : `Field "${field.key}" is of type "${field.type}": only text or number fields can be unique`,
    });
  }
  if (field.localized && depth > 0) {
    problems.push({
      path: joinPath(path, "localized"),
      code: "invalid_field_config",
      message:
        `Field "${field.key}" sits inside a component: nested fields follow their root component's language; set localized on the root`,
    });
  }
  if (field.localized && field.type === "relation") {
    problems.push({
      path: joinPath(path, "localized"),
      code: "invalid_field_config",
      message:
        `Relation "${field.key}" cannot be localized: set config.localizedMembership to keep a list per language`,
    });
  }
}

/** Checks a field's rules hold together: bounds in order, patterns that compile, counts on lists. */
export function checkRules(
  field: FieldDefinition,
  path: string,
  problems: Problem[],
): void {
  const rules = field.validation as Record<string, unknown>;
  const at = (key: string) => joinPath(path, `validation.${key}`);
  const order = (low: string, high: string) => {
    const a = rules[low];
    const b = rules[high];
    if (a === undefined || b === undefined) return;
    const bad = field.type === "datetime"
      ? Date.parse(a as string) > Date.parse(b as string)
      : (a as number) > (b as number);
    if (bad) {
      problems.push({
        path: at(low),
        code: "invalid_field_validation",
        message: `"${low}" (${a}) is greater than "${high}" (${b})`,
      });
    }
  };
  order("minLength", "maxLength");
  order("minItems", "maxItems");
  order("min", "max");
  if (field.type === "text" && field.validation.pattern !== undefined) {
    try {
      new RegExp(field.validation.pattern, "u");
    } catch (error) {
      problems.push({
        path: at("pattern"),
        code: "invalid_field_validation",
        message: `Cannot read pattern "${field.validation.pattern}": ${
          (error as Error).message
        }`,
      });
    }
  }
  const list = "minItems" in rules || "maxItems" in rules;
  const holdsList = field.type === "select" || field.type === "media"
    ? field.config.multiple
    : field.type === "relation"
    ? isToMany(field.config.cardinality)
    : field.type === "component"
    ? field.config.repeatable
    : true;
  if (list && !holdsList) {
    problems.push({
      path: at("minItems" in rules ? "minItems" : "maxItems"),
      code: "invalid_field_validation",
      message:
        `Field "${field.key}" holds one value: item counts apply to multiple, to-many or repeatable fields`,
    });
  }
  if (field.type === "select") {
    const values = field.config.options.map((o) => o.value);
    const dup = values.find((v, i) => values.indexOf(v) !== i);
    if (dup !== undefined) {
      problems.push({
        path: joinPath(path, "config.options"),
        code: "invalid_field_config",
        message: `Option "${dup}" is listed twice`,
      });
    }
  }
}
