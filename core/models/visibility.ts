// Conditional visibility of fields: the condition grammar, its definition-time checks, its evaluation.
import { type FieldDefinition, isDate } from "./field_types.ts";
import { joinPath, type Problem } from "./problems.ts";
import type { Condition, ConditionOp, ConditionTerm } from "./condition.ts";

/** A group holds at most this many terms, and groups nest at most this many levels. */
export const CONDITION_LIMITS = { terms: 4, levels: 3 } as const;

const ORDERED: ConditionOp[] = ["eq", "neq", "gt", "gte", "lt", "lte"];
const OPS: Record<string, ConditionOp[]> = {
  boolean: ["eq", "neq"],
  select: ["eq", "neq", "in", "not_in"],
  text: ["eq", "neq", "contains"],
  number: ORDERED,
  date: ORDERED,
};
const CODE = "invalid_visibility";

/**
 * Checks a visibility condition against the fields beside it (same level) and returns it
 * in canonical form, or the problems found; `self` is the key of the field it belongs to.
 */
export function readCondition(
  input: unknown,
  siblings: ReadonlyMap<string, FieldDefinition>,
  self: string,
  path: string,
): { condition: Condition | null; problems: Problem[] } {
  const problems: Problem[] = [];
  const fail = (at: string, message: string, code = CODE) => {
    problems.push({ path: at, code, message });
    return null;
  };
  const walk = (node: unknown, at: string, level: number): Condition | null => {
    if (typeof node !== "object" || node === null || Array.isArray(node)) {
      return fail(at, "Expected a condition object");
    }
    const keys = Object.keys(node);
    if (keys.length === 1 && (keys[0] === "and" || keys[0] === "or")) {
      const join = keys[0] as "and" | "or";
      const terms = (node as Record<string, unknown>)[join];
      const here = joinPath(at, join);
      if (level + 1 > CONDITION_LIMITS.levels) {
        return fail(
          at,
          `Condition groups nest at most ${CONDITION_LIMITS.levels} levels`,
        );
      }
      if (!Array.isArray(terms) || terms.length < 1) {
        return fail(here, "Expected a list of 1 to 4 conditions");
      }
      if (terms.length > CONDITION_LIMITS.terms) {
        return fail(
          here,
          `A group holds at most ${CONDITION_LIMITS.terms} terms, got ${terms.length}`,
        );
      }
      const read = terms.map((t, i) => walk(t, joinPath(here, i), level + 1));
      if (read.some((t) => t === null)) return null;
      return join === "and"
        ? { and: read as Condition[] }
        : { or: read as Condition[] };
    }
    return readTerm(node as Record<string, unknown>, at);
  };
  const readTerm = (
    term: Record<string, unknown>,
    at: string,
  ): ConditionTerm | null => {
    const unknown = Object.keys(term).filter((k) =>
      !["field", "op", "value"].includes(k)
    );
    if (unknown.length > 0) {
      return fail(joinPath(at, unknown[0]), `Unknown key "${unknown[0]}"`);
    }
    const { field: key, op, value } = term;
    if (typeof key !== "string") {
      return fail(joinPath(at, "field"), "Expected a field key");
    }
    if (key === self) {
      return fail(
        joinPath(at, "field"),
        `Field "${key}" cannot depend on itself`,
      );
    }
    const field = siblings.get(key);
    if (!field) {
      return fail(
        joinPath(at, "field"),
        `No field "${key}" beside this one`,
        "field_not_found",
      );
    }
    const ops = OPS[field.type];
    if (!ops) {
      return fail(
        joinPath(at, "field"),
        `Field "${key}" is of type "${field.type}": conditions take boolean, select, text, number or date fields`,
      );
    }
    if (op === "empty" || op === "not_empty") {
      if (value !== undefined) {
        return fail(joinPath(at, "value"), `Operator "${op}" takes no value`);
      }
      return { field: key, op: op as ConditionOp };
    }
    if (typeof op !== "string" || !ops.includes(op as ConditionOp)) {
      return fail(
        joinPath(at, "op"),
        `Operator "${
          String(op)
        }" does not apply to a ${field.type} field: use one of ${
          [...ops, "empty", "not_empty"].join(", ")
        }`,
      );
    }
    const problem = valueProblem(field, op as ConditionOp, value);
    if (problem) return fail(joinPath(at, "value"), problem);
    return {
      field: key,
      op: op as ConditionOp,
      value: value as ConditionTerm["value"],
    };
  };
  const condition = walk(input, path, 0);
  return { condition: problems.length > 0 ? null : condition, problems };
}

function valueProblem(
  field: FieldDefinition,
  op: ConditionOp,
  value: unknown,
): string | null {
  switch (field.type) {
    case "boolean":
      return typeof value === "boolean" ? null : "Expected true or false";
    case "number":
      return typeof value === "number" && Number.isFinite(value)
        ? null
        : "Expected a number";
    case "date":
      return isDate(value) ? null : "Expected a date YYYY-MM-DD";
    case "text":
      return typeof value === "string" && value.length <= 500
        ? null
        : "Expected text of at most 500 characters";
    case "select": {
      const options = new Set(field.config.options.map((o) => o.value));
      const list = op === "in" || op === "not_in" ? value : [value];
      if (!Array.isArray(list) || list.length === 0) {
        return "Expected a list of option values";
      }
      const bad = list.find((v) => typeof v !== "string" || !options.has(v));
      return bad === undefined
        ? null
        : `"${String(bad)}" is not an option of "${field.key}"`;
    }
    default:
      return "Unsupported field type";
  }
}

/** True when the field whose condition this is shows, given the values beside it. */
export function isShown(
  condition: Condition,
  values: Record<string, unknown>,
): boolean {
  if ("and" in condition) return condition.and.every((c) => isShown(c, values));
  if ("or" in condition) return condition.or.some((c) => isShown(c, values));
  const actual = values[condition.field];
  const empty = actual === undefined || actual === null || actual === "" ||
    (Array.isArray(actual) && actual.length === 0);
  if (condition.op === "empty") return empty;
  if (condition.op === "not_empty") return !empty;
  const expected = condition.value;
  if (Array.isArray(actual) || Array.isArray(expected)) {
    const have = Array.isArray(actual) ? actual : empty ? [] : [actual];
    const want = Array.isArray(expected) ? expected : [expected];
    const hit = want.some((w) => have.includes(w));
    return condition.op === "eq" || condition.op === "in" ? hit : !hit;
  }
  switch (condition.op) {
    case "eq":
      return actual === expected;
    case "neq":
      return actual !== expected;
    case "contains":
      return typeof actual === "string" && actual.includes(String(expected));
    default: {
      if (empty || typeof actual !== typeof expected) return false;
      const a = actual as number | string;
      const b = expected as number | string;
      if (condition.op === "gt") return a > b;
      if (condition.op === "gte") return a >= b;
      if (condition.op === "lt") return a < b;
      return a <= b;
    }
  }
}
