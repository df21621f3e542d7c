// Reads the fields of a model definition: closed shapes, per-type config and rules, nesting and keys.
import { z } from "zod";
import {
  CONFIG_SCHEMAS,
  FIELD_KEY,
  FIELD_TYPES,
  type FieldDefinition,
  isToMany,
  MAX_COMPONENT_DEPTH,
  UUID,
  VALIDATION_SCHEMAS,
} from "./field_types.ts";
import {
  joinPath,
  type Problem,
  readJsonText,
  zodProblems,
} from "./problems.ts";
import { checkFlags, checkRules } from "./field_rules.ts";
import { readCondition } from "./visibility.ts";

const FieldShape = z.strictObject({
  id: z.string().regex(UUID, "Expected an id (UUID)")
    .transform((id) => id.toLowerCase()).optional(),
  key: z.string().regex(
    FIELD_KEY,
    "Expected a key of lower-case letters, digits and _ starting with a letter, at most 64 characters",
  ),
  label: z.string().trim().min(1).max(80),
  type: z.enum(FIELD_TYPES),
  required: z.boolean().default(false),
  unique: z.boolean().default(false),
  private: z.boolean().default(false),
  localized: z.boolean().default(false),
  config: z.unknown().optional(),
  validation: z.unknown().optional(),
  derived: z.unknown().optional(),
  ui: z.unknown().optional(),
  visibility: z.unknown().optional(),
});

/**
 * Reads a list of fields at one level: the top level (`componentDepth` 0) or the nested
 * fields of a component that has `componentDepth` component ancestors, counting itself.
 */
export function readFieldList(
  input: unknown,
  path: string,
  componentDepth: number,
  problems: Problem[],
): FieldDefinition[] {
  if (!Array.isArray(input)) {
    problems.push({
      path,
      code: "invalid_request",
      message: "Expected a list of fields",
    });
    return [];
  }
  const read: { field: FieldDefinition; visibility: unknown; at: string }[] =
    [];
  const seen = new Map<string, string>();
  input.forEach((raw, i) => {
    const at = joinPath(path, i);
    const result = readField(raw, at, componentDepth, problems);
    if (!result) return;
    const earlier = seen.get(result.field.key);
    if (earlier !== undefined) {
      problems.push({
        path: joinPath(at, "key"),
        code: "duplicate_field_key",
        message: `Key "${result.field.key}" is already used by ${earlier}`,
      });
    } else seen.set(result.field.key, at);
    read.push({ ...result, at });
  });
  const siblings = new Map(read.map((r) => [r.field.key, r.field]));
  for (const { field, visibility, at } of read) {
    if (visibility !== undefined && visibility !== null) {
      const json = readJsonText(visibility);
      const checked = json.ok
        ? readCondition(
          json.value,
          siblings,
          field.key,
          joinPath(at, "visibility"),
        )
        : {
          condition: null,
          problems: [{
            path: joinPath(at, "visibility"),
            code: "invalid_visibility",
            message: json.message,
          }],
        };
      field.visibility = checked.condition;
      problems.push(...checked.problems);
    }
    if (field.type === "slug" && field.config.source !== undefined) {
      const source = siblings.get(field.config.source);
      if (!source || source.type !== "text") {
        problems.push({
          path: joinPath(at, "config.source"),
          code: "field_not_found",
          message:
            `No text field "${field.config.source}" beside this slug to derive it from`,
        });
      }
    }
  }
  return read.map((r) => r.field);
}

function readField(
  raw: unknown,
  path: string,
  componentDepth: number,
  problems: Problem[],
): { field: FieldDefinition; visibility: unknown } | null {
  const shape = FieldShape.safeParse(raw);
  if (!shape.success) {
    problems.push(...zodProblems(shape.error, path, "invalid_request"));
    return null;
  }
  const base = shape.data;
  const before = problems.length;
  const config = readPart(
    base.config,
    CONFIG_SCHEMAS[base.type],
    joinPath(path, "config"),
    "invalid_field_config",
    problems,
  );
  const validation = readPart(
    base.validation,
    VALIDATION_SCHEMAS[base.type],
    joinPath(path, "validation"),
    "invalid_field_validation",
    problems,
  );
  const derived = readOpaque(base.derived, joinPath(path, "derived"), problems);
  const ui = readOpaque(base.ui, joinPath(path, "ui"), problems);
  if (problems.length > before) return null;
  const field = {
    ...(base.id === undefined ? {} : { id: base.id }),
    key: base.key,
    label: base.label,
    type: base.type,
    required: base.required,
    unique: base.unique,
    private: base.private,
    localized: base.localized,
    config,
    validation,
    derived,
    ui,
    visibility: null,
  } as FieldDefinition;
  checkFlags(field, path, componentDepth, problems);
  checkRules(field, path, problems);
  if (field.type === "relation") {
    const many = isToMany(field.config.cardinality);
    if (!many && (field.config.ordered || field.config.localizedMembership)) {
      problems.push({
        path: joinPath(
          path,
          field.config.ordered
            ? "config.ordered"
            : "config.localizedMembership",
        ),
        code: "invalid_field_config",
        message:
          `A ${field.config.cardinality} relation holds one target: ordering and per-language lists need one-to-many or many-to-many`,
      });
    }
    field.config.ordered = field.config.ordered ?? many;
  }
  if (field.type === "component") {
    if (componentDepth > MAX_COMPONENT_DEPTH) {
      problems.push({
        path,
        code: "component_nesting_too_deep",
        message:
          `Component "${field.key}" is ${componentDepth} levels below a root component: at most ${MAX_COMPONENT_DEPTH} are allowed`,
      });
      return null;
    }
    field.config.fields = readFieldList(
      field.config.fields,
      joinPath(path, "config.fields"),
      componentDepth + 1,
      problems,
    );
  }
  return { field, visibility: base.visibility };
}

function readPart<S extends z.ZodType>(
  input: unknown,
  schema: S,
  path: string,
  code: string,
  problems: Problem[],
): z.output<S> | null {
  const json = readJsonText(input ?? {});
  if (!json.ok) {
    problems.push({ path, code, message: json.message });
    return null;
  }
  const parsed = schema.safeParse(json.value ?? {});
  if (!parsed.success) {
    problems.push(...zodProblems(parsed.error, path, code));
    return null;
  }
  return parsed.data;
}

function readOpaque(
  input: unknown,
  path: string,
  problems: Problem[],
): Record<string, unknown> | null {
  if (input === undefined || input === null) return null;
  const json = readJsonText(input);
  if (json.ok && json.value === null) return null;
  if (json.ok && typeof json.value === "object" && !Array.isArray(json.value)) {
    return json.value as Record<string, unknown>;
  }
  problems.push({
    path,
    code: "invalid_request",
    message: json.ok ? "Expected a JSON object or null" : json.message,
  });
  return null;
}
