// The model definition `{ model, fields }`: its closed schema and every check made before saving.
import { z } from "zod";
import { readFieldList } from "./definition_fields.ts";
import { FIELD_KEY, type FieldDefinition } from "./field_types.ts";
import {
  joinPath,
  type Problem,
  readJsonText,
  zodProblems,
} from "./problems.ts";

/** At most this many named unique combinations, each of this many fields (spec 2 part 2.3 item 2). */
export const UNIQUE_COMBINATION_LIMITS = {
  combinations: 8,
  minFields: 2,
  maxFields: 4,
} as const;

/** A named set of fields whose values together may appear once per scope. */
export interface UniqueCombination {
  name: string;
  fields: string[];
  scope: "model" | "language";
}

/** Model settings stored with the definition. */
export interface ModelSettings {
  validation_mode: "draft" | "strict";
  unique_combinations: UniqueCombination[];
}

/** The `model` part of a definition. */
export interface ModelInfo {
  name: string;
  slug: string;
  description: string;
  kind: "collection" | "single";
  /** Public models are served by the public read API without a token. */
  isPublic: boolean;
  enableI18n: boolean;
  settings: ModelSettings;
}

/** A whole parsed model definition. */
export interface ModelDefinition {
  model: ModelInfo;
  fields: FieldDefinition[];
}

/** Codes a definition can be refused with (the problems carry the same codes). */
export type DefinitionCode =
  | "invalid_request"
  | "duplicate_field_key"
  | "component_nesting_too_deep"
  | "unique_unsupported"
  | "invalid_field_config"
  | "invalid_field_validation"
  | "invalid_visibility"
  | "field_not_found"
  | "invalid_reference";

/** A definition that cannot be read or saved: every problem with its path; `code` is the first's. */
export type DefinitionRefusal = {
  ok: false;
  code: DefinitionCode;
  problems: Problem[];
};

/** The answer of `parseModelDefinition`: the definition, or every problem. */
export type DefinitionResult =
  | { ok: true; definition: ModelDefinition }
  | DefinitionRefusal;

/**
 * Model slugs: lower-case letters, digits and `-`, starting with a letter; or the reserved
 * `shared_section` (spec 3 part 2.2), whose items are shared sections of pages.
 */
export const MODEL_SLUG = /^(?:[a-z][a-z0-9-]{0,63}|shared_section)$/;

const Combination = z.strictObject({
  name: z.string().regex(
    FIELD_KEY,
    "Expected a name of lower-case letters, digits and _",
  ),
  fields: z.array(z.string()),
  scope: z.enum(["model", "language"]).default("model"),
});

const Settings = z.strictObject({
  validation_mode: z.enum(["draft", "strict"]).default("draft"),
  unique_combinations: z.array(Combination).default([]),
});

/** The closed schema of the `model` part (settings read separately, as object or JSON text). */
export const ModelInfoShape = z.strictObject({
  name: z.string().trim().min(1).max(80),
  slug: z.string().regex(
    MODEL_SLUG,
    "Expected a slug of lower-case letters, digits and - starting with a letter, at most 64 characters",
  ),
  description: z.string().max(2000).default(""),
  kind: z.enum(["collection", "single"]).default("collection"),
  isPublic: z.boolean().default(true),
  enableI18n: z.boolean().default(false),
  settings: z.unknown().optional(),
});

const DefinitionShape = z.strictObject({
  model: z.unknown(),
  fields: z.unknown(),
});

/**
 * Reads a model definition (`config`, `validation`, `derived`, `ui` and `settings` may be
 * JSON text or objects) and checks it whole: shapes, per-type rules, keys, nesting, unique
 * rules and visibility conditions. Returns every problem, each with its path.
 */
export function parseModelDefinition(input: unknown): DefinitionResult {
  const problems: Problem[] = [];
  const shape = DefinitionShape.safeParse(input);
  if (!shape.success) {
    return refusal(zodProblems(shape.error, "", "invalid_request"));
  }
  const model = readModelInfo(shape.data.model, "model", problems);
  const fields = readFieldList(shape.data.fields, "fields", 0, problems);
  if (model) {
    checkCombinations(model.settings.unique_combinations, fields, problems);
  }
  if (problems.length > 0 || !model) return refusal(problems);
  return { ok: true, definition: { model, fields } };
}

/** Reads the `model` part alone; problems are appended under `path`. */
export function readModelInfo(
  input: unknown,
  path: string,
  problems: Problem[],
): ModelInfo | null {
  const shape = ModelInfoShape.safeParse(input);
  if (!shape.success) {
    problems.push(...zodProblems(shape.error, path, "invalid_request"));
    return null;
  }
  const json = readJsonText(shape.data.settings ?? {});
  const settings = json.ok ? Settings.safeParse(json.value ?? {}) : null;
  if (!settings?.success) {
    problems.push(
      ...(settings
        ? zodProblems(
          settings.error,
          joinPath(path, "settings"),
          "invalid_request",
        )
        : [{
          path: joinPath(path, "settings"),
          code: "invalid_request",
          message: json.ok ? "Expected an object" : json.message,
        }]),
    );
    return null;
  }
  const { settings: _, ...info } = shape.data;
  return { ...info, settings: settings.data };
}

function checkCombinations(
  combinations: UniqueCombination[],
  fields: FieldDefinition[],
  problems: Problem[],
): void {
  const base = "model.settings.unique_combinations";
  const { combinations: max, minFields, maxFields } = UNIQUE_COMBINATION_LIMITS;
  if (combinations.length > max) {
    problems.push({
      path: joinPath(base, max),
      code: "unique_unsupported",
      message:
        `A model has at most ${max} unique combinations, got ${combinations.length}`,
    });
  }
  const byKey = new Map(fields.map((f) => [f.key, f]));
  const names = new Set<string>();
  combinations.forEach((combination, i) => {
    const at = joinPath(base, i);
    if (names.has(combination.name)) {
      problems.push({
        path: joinPath(at, "name"),
        code: "invalid_request",
        message: `Combination name "${combination.name}" is used twice`,
      });
    }
    names.add(combination.name);
    const members = combination.fields;
    if (members.length < minFields || members.length > maxFields) {
      problems.push({
        path: joinPath(at, "fields"),
        code: "unique_unsupported",
        message:
          `A unique combination names ${minFields} to ${maxFields} fields, got ${members.length}`,
      });
    }
    members.forEach((key, j) => {
      const field = byKey.get(key);
      const here = joinPath(joinPath(at, "fields"), j);
      if (!field) {
        problems.push({
          path: here,
          code: "field_not_found",
          message: `No top-level field "${key}"`,
        });
      } else if (field.type !== "text" && field.type !== "number") {
        problems.push({
          path: here,
          code: "unique_unsupported",
          message:
            `Field "${key}" is of type "${field.type}": combinations take text or number fields`,
        });
      } else if (members.indexOf(key) !== j) {
        problems.push({
          path: here,
          code: "unique_unsupported",
          message: `Field "${key}" is named twice`,
        });
      }
    });
  });
}

/** The refusal for a list of definition problems; its code is the first problem's. */
export function refusal(problems: Problem[]): DefinitionRefusal {
  const code = (problems[0]?.code ?? "invalid_request") as DefinitionCode;
  return { ok: false, code, problems };
}

/** Every field of a definition with its dotted key path (`seo.meta_title`), depth first. */
export function walkFields(
  fields: readonly FieldDefinition[],
  visit: (field: FieldDefinition, keyPath: string) => void,
  prefix = "",
): void {
  for (const field of fields) {
    const keyPath = prefix === "" ? field.key : `${prefix}.${field.key}`;
    visit(field, keyPath);
    if (field.type === "component") {
      walkFields(field.config.fields, visit, keyPath);
    }
  }
}
