// This module is browser compatible.
// Validates an entry's field values against its model, naming each problem by its full path.
import type { ModelSettings } from "./definition.ts";
import type { FieldDefinition } from "./field_types.ts";
import { joinPath } from "./problems.ts";
import { checkValue } from "./value_checks.ts";
import {
  checkCount,
  type ValueReference,
  type ValueSink,
} from "./value_lists.ts";
import { isShown } from "./visibility.ts";
import { parsePageDocument } from "../pages/parse.ts";
import type { SectionRegistry } from "../pages/custom.ts";

export type { ValueReference } from "./value_lists.ts";

/** One problem with a value: `path` like `seo.meta_title` or `faqs[2].question`. */
export interface ValueProblem {
  path: string;
  code: string;
  message: string;
  /** The language being validated. */
  locale: string;
  /** For rich text: the element or attribute refused. */
  element?: string;
  attribute?: string;
}

/** Options of `validateEntryValues`. */
export interface ValidateValuesOptions {
  /** `save` defers missing required values in draft validation mode; `publish` checks fully. */
  mode: "save" | "publish";
  /** The language whose values these are (non-localized values included). */
  locale: string;
  /** Exact https origins an administrator allows for rich-text embeds; none when absent. */
  embedOrigins?: readonly string[];
  /**
   * The site's registered custom sections (promoted by accepting a template); when absent a
   * page's custom section names no definition and is refused.
   */
  sections?: SectionRegistry;
}

/** The part of a model values are validated against (a `StoredModel` fits). */
export interface ValidatedModel {
  fields: readonly FieldDefinition[];
  settings: Pick<ModelSettings, "validation_mode">;
}

/** Every value problem, and every reference the values make (for existence checks elsewhere). */
export interface InspectedValues {
  problems: ValueProblem[];
  references: ValueReference[];
}

/**
 * Validates the values of one language of an entry: unknown keys, types, rules, and
 * required values (shown fields only; deferred on save in draft validation mode).
 * Relation and media values are checked for shape; `references` lists them for the caller.
 */
export function inspectEntryValues(
  model: ValidatedModel,
  values: unknown,
  options: ValidateValuesOptions,
): InspectedValues {
  const result: InspectedValues = { problems: [], references: [] };
  const enforceRequired = options.mode === "publish" ||
    model.settings.validation_mode === "strict";
  const sinkAt = (path: string): ValueSink => ({
    path,
    embedOrigins: options.embedOrigins ?? [],
    problem: (code, message, extra) =>
      result.problems.push({
        path,
        code,
        message,
        locale: options.locale,
        ...clean(extra),
      }),
    reference: (ref) => result.references.push(ref),
  });
  const checkList = (
    fields: readonly FieldDefinition[],
    input: unknown,
    path: string,
  ) => {
    if (typeof input !== "object" || input === null || Array.isArray(input)) {
      sinkAt(path).problem(
        "invalid_type",
        path === ""
          ? "Expected an object of field values"
          : `Field "${path}" expects an object`,
      );
      return;
    }
    const values = input as Record<string, unknown>;
    const known = new Set(fields.map((f) => f.key));
    for (const key of Object.keys(values)) {
      if (!known.has(key)) {
        sinkAt(joinPath(path, key)).problem(
          "unknown_field",
          `Unknown field "${joinPath(path, key)}"`,
        );
      }
    }
    for (const field of fields) {
      const at = joinPath(path, field.key);
      const value = values[field.key];
      const present = value !== undefined && value !== null &&
        checkField(field, value, at);
      if (present || !field.required || !enforceRequired) continue;
      if (field.visibility && !isShown(field.visibility, values)) continue;
      sinkAt(at).problem("required", `Field "${at}" is required`);
    }
  };
  const checkField = (
    field: FieldDefinition,
    value: unknown,
    at: string,
  ): boolean => {
    if (isPageField(field)) {
      // A page document is checked by the one page parser, each refusal at its exact path.
      const parsed = parsePageDocument(value, { registry: options.sections });
      if (!parsed.ok) {
        const rest = parsed.error.detail.path.slice(1);
        result.problems.push({
          path: `${at}${rest}`,
          code: parsed.error.code,
          message: `Page "${at}": ${parsed.error.message}`,
          locale: options.locale,
        });
      }
      return true;
    }
    if (field.type !== "component") return checkValue(field, value, sinkAt(at));
    if (!field.config.repeatable) {
      checkList(field.config.fields, value, at);
      return true;
    }
    if (!Array.isArray(value)) {
      sinkAt(at).problem(
        "invalid_type",
        `Field "${at}" expects a list of items`,
      );
      return true;
    }
    if (value.length === 0) return false;
    checkCount(value.length, field.validation, sinkAt(at));
    value.forEach((item, i) =>
      checkList(field.config.fields, item, joinPath(at, i))
    );
    return true;
  };
  checkList(model.fields, values, "");
  return result;
}

/** True for the field holding a page document: a json field keyed `slides` (spec 3 part 1). */
export function isPageField(field: FieldDefinition): boolean {
  return field.type === "json" && field.key === "slides";
}

/** The problems of `inspectEntryValues` alone; empty when the values may be saved (or published). */
export function validateEntryValues(
  model: ValidatedModel,
  values: unknown,
  options: ValidateValuesOptions,
): ValueProblem[] {
  return inspectEntryValues(model, values, options).problems;
}

/** The refusal a save or publication answers with value problems (`422 field_validation_failed`). */
export function fieldValidationFailed(
  problems: ValueProblem[],
): { ok: false; code: "field_validation_failed"; errors: ValueProblem[] } {
  return { ok: false, code: "field_validation_failed", errors: problems };
}

function clean(
  extra?: { element?: string; attribute?: string },
): { element?: string; attribute?: string } {
  const out: { element?: string; attribute?: string } = {};
  if (extra?.element) out.element = extra.element;
  if (extra?.attribute) out.attribute = extra.attribute;
  return out;
}
