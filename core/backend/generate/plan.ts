// Turns a site's models into the generated backend's description (template/src/schema.ts): a
// table per model with a column per field, `<model>translation` tables for per-language values,
// junction tables for list relations. Refuses, naming model and field, what cannot be emitted.
import type { StoredModel } from "../../models/store_rows.ts";
import type { FieldDefinition } from "../../models/field_types.ts";
import { isToMany } from "../../models/field_types.ts";
import { walkFields } from "../../models/definition.ts";
import type { ModelAccess } from "../access.ts";
import type {
  ColumnSpec,
  ListRelationSpec,
  ModelSpec,
  Operation,
} from "./template/src/schema.ts";

/** A refusal of generation: the code and what it concerns. */
export interface GenerationProblem {
  code:
    | "unsupported_text_validation"
    | "invalid_field_validation"
    | "shared_references_require_live_delivery"
    | "relation_bounds_unsatisfiable"
    | "relation_target_absent"
    | "relation_required_cycle"
    | "relation_hierarchy_cycle"
    | "invalid_reference"
    | "token_scope_not_emitted"
    | "read_tokens_need_site_graduation";
  model: string;
  field?: string;
  message: string;
}

/** The table name of a model: its slug with `_` for `-`. */
export function tableOf(model: Pick<StoredModel, "slug">): string {
  return model.slug.replaceAll("-", "_");
}

function labelOf(model: StoredModel): string {
  return tableOf(model).split("_").map((w) => w[0].toUpperCase() + w.slice(1))
    .join("");
}

/** Keys a text rule may hold an executable validator under (editor hints kept opaque). */
const EXECUTABLE_KEYS = ["validate", "validator", "customValidation"];

function holdsPrivate(field: FieldDefinition): boolean {
  let found = field.private;
  if (field.type === "component") {
    walkFields(field.config.fields, (inner) => {
      if (inner.private) found = true;
    });
  }
  return found;
}

/** Problems of the text rules of a field (and of text fields inside components). */
function textProblems(
  model: StoredModel,
  field: FieldDefinition,
): GenerationProblem[] {
  const problems: GenerationProblem[] = [];
  walkFields([field], (f, path) => {
    if (f.type !== "text" && f.type !== "slug") return;
    const hints = { ...(f.derived ?? {}), ...(f.ui ?? {}) };
    if (EXECUTABLE_KEYS.some((k) => k in hints)) {
      problems.push({
        code: "unsupported_text_validation",
        model: model.slug,
        field: path,
        message: "Custom validation code cannot be emitted",
      });
    }
    const rules = f.validation as {
      minLength?: number;
      maxLength?: number;
      pattern?: string;
    };
    if (
      rules.minLength !== undefined && rules.maxLength !== undefined &&
      rules.minLength > rules.maxLength
    ) {
      problems.push({
        code: "invalid_field_validation",
        model: model.slug,
        field: path,
        message: "minLength is greater than maxLength",
      });
    }
    if (rules.pattern !== undefined) {
      try {
        new RegExp(rules.pattern, "u");
      } catch (error) {
        problems.push({
          code: "invalid_field_validation",
          model: model.slug,
          field: path,
          message: `The pattern does not compile: ${(error as Error).message}`,
        });
      }
    }
  });
  return problems;
}

function column(
  field: FieldDefinition,
  name: string,
  kind: ColumnSpec["kind"],
  extra: Partial<ColumnSpec> = {},
): ColumnSpec {
  return {
    name,
    kind,
    field: field.key,
    required: field.required,
    private: holdsPrivate(field),
    ...extra,
  };
}

/** The columns a field becomes (none for list relations: they get junction tables). */
function columnsOf(
  field: FieldDefinition,
  model: StoredModel,
  tables: Map<string, string>,
): ColumnSpec[] {
  switch (field.type) {
    case "text":
    case "slug":
      return [column(field, field.key, "text", {
        minLength: field.validation.minLength,
        maxLength: field.validation.maxLength,
        pattern: "pattern" in field.validation
          ? field.validation.pattern as string | undefined
          : undefined,
      })];
    case "number":
      return [column(
        field,
        field.key,
        field.config.integer ? "integer" : "number",
        {
          min: field.validation.min,
          max: field.validation.max,
          step: field.validation.step,
        },
      )];
    case "boolean":
    case "date":
    case "datetime":
    case "json":
    case "point":
      return [column(field, field.key, field.type)];
    case "rich_text":
      // `<field>_media` maps each media id the HTML shows to its address, or to a private-file
      // marker for a private field, whose files the files route serves (`?media=`).
      return [
        column(field, field.key, "rich_text"),
        column(field, `${field.key}_media`, "rich_media", {
          required: false,
          readOnly: true,
        }),
      ];
    case "component":
      return [column(field, field.key, "json")];
    case "select":
      return [column(
        field,
        field.key,
        field.config.multiple ? "select_list" : "select",
        { options: field.config.options.map((o) => o.value) },
      )];
    case "media":
      return [
        column(
          field,
          `${field.key}_id`,
          field.config.multiple ? "media_list" : "media_id",
        ),
        column(field, `${field.key}_url`, "media_url", {
          required: false,
          readOnly: true,
        }),
        column(field, `${field.key}_originals`, "media_originals", {
          required: false,
          readOnly: true,
        }),
      ];
    case "relation": {
      if (isToMany(field.config.cardinality)) return [];
      if (field.config.targets.length > 1) {
        // One reference across models: `{ model, id }`.
        return [column(field, `${field.key}_ref`, "json")];
      }
      const target = field.config.targets[0];
      return [column(field, `${field.key}_id`, "relation", {
        target: tables.get(target),
        hierarchy: target === model.id,
        exclusive: field.config.cardinality === "one-to-one",
      })];
    }
  }
}

const DEFAULT_RULE = { audience: "service" as const, roles: [] };

/** What {@link planModels} answers. */
export type PlanResult =
  | { ok: true; models: ModelSpec[] }
  | { ok: false; problems: GenerationProblem[] };

/**
 * The description of `models`, or every problem found. `access` holds the saved rules;
 * `disabled` operations per model id are removed from execution and description.
 */
export function planModels(
  models: readonly StoredModel[],
  access: readonly ModelAccess[],
  disabled: ReadonlyMap<string, Operation[]> = new Map(),
): PlanResult {
  const problems: GenerationProblem[] = [];
  const tables = new Map(models.map((m) => [m.id, tableOf(m)]));
  const specs: ModelSpec[] = [];
  for (const model of models) {
    const table = tableOf(model);
    const base: ColumnSpec[] = [];
    const translated: ColumnSpec[] = [];
    const lists: ListRelationSpec[] = [];
    for (const field of model.fields) {
      problems.push(...textProblems(model, field));
      if (field.type === "relation") {
        problems.push(...relationProblems(model, field, tables));
        if (isToMany(field.config.cardinality)) {
          lists.push({
            field: field.key,
            targets: field.config.targets.map((t) => tables.get(t) ?? t),
            junctions: field.config.targets.map((t) => ({
              table: field.config.targets.length > 1
                ? `${table}_${field.key}_${tables.get(t) ?? "absent"}`
                : `${table}_${field.key}`,
              field: field.key,
              target: tables.get(t) ?? t,
              exclusive: field.config.cardinality === "one-to-many",
              localized: model.enableI18n &&
                field.config.localizedMembership,
            })),
            // A required list needs at least one target.
            minItems: field.required
              ? Math.max(1, field.validation.minItems ?? 0)
              : field.validation.minItems,
            maxItems: field.validation.maxItems,
            localized: model.enableI18n && field.config.localizedMembership,
          });
          continue;
        }
      }
      const columns = columnsOf(field, model, tables);
      const perLanguage = model.enableI18n && field.localized &&
        field.type !== "relation" && field.type !== "media";
      // One media map per row serves every language's HTML, so it stays on the row.
      for (const c of columns) {
        (perLanguage && c.kind !== "rich_media" ? translated : base).push(c);
      }
    }
    const rules = access.find((a) => a.model_id === model.id);
    const ops = [
      "findMany",
      "findManyPaginated",
      "findUnique",
      "create",
      "update",
      "delete",
    ] as const;
    specs.push({
      id: model.id,
      name: table,
      label: labelOf(model),
      single: model.kind === "single",
      columns: base,
      translation: translated.length > 0
        ? { table: `${table}translation`, columns: translated }
        : null,
      lists,
      access: Object.fromEntries(ops.map((op) => {
        const rule = rules?.operations[op];
        return [
          op,
          rule ? { audience: rule.audience, roles: rule.roles } : DEFAULT_RULE,
        ];
      })) as ModelSpec["access"],
      disabled: disabled.get(model.id) ?? [],
    });
  }
  problems.push(...requiredCycles(models, tables));
  return problems.length > 0
    ? { ok: false, problems }
    : { ok: true, models: specs };
}

function relationProblems(
  model: StoredModel,
  field: Extract<FieldDefinition, { type: "relation" }>,
  tables: Map<string, string>,
): GenerationProblem[] {
  const problems: GenerationProblem[] = [];
  for (const target of field.config.targets) {
    if (!tables.has(target)) {
      problems.push({
        code: "relation_target_absent",
        model: model.slug,
        field: field.key,
        message: `Target model ${target} is not generated`,
      });
    }
  }
  const { minItems, maxItems } = field.validation;
  const list = isToMany(field.config.cardinality);
  if (
    (minItems !== undefined && maxItems !== undefined && minItems > maxItems) ||
    (list && field.required && maxItems === 0) ||
    (!list && minItems !== undefined && minItems > 1)
  ) {
    problems.push({
      code: "relation_bounds_unsatisfiable",
      model: model.slug,
      field: field.key,
      message: "No list of targets satisfies minItems, maxItems and required",
    });
  }
  return problems;
}

/**
 * Required to-one relations that loop (A needs B needs A, or a required parent of the same
 * model): no first row could ever be written.
 */
function requiredCycles(
  models: readonly StoredModel[],
  tables: Map<string, string>,
): GenerationProblem[] {
  const edges = new Map<string, { to: string; field: string }[]>();
  for (const model of models) {
    edges.set(
      model.id,
      model.fields.flatMap((f) =>
        f.type === "relation" && f.required &&
          !isToMany(f.config.cardinality) && f.config.targets.length === 1 &&
          tables.has(f.config.targets[0])
          ? [{ to: f.config.targets[0], field: f.key }]
          : []
      ),
    );
  }
  const problems: GenerationProblem[] = [];
  const slugOf = new Map(models.map((m) => [m.id, m.slug]));
  for (const model of models) {
    // Depth-first from each model: a path back to it is a cycle through its first edge.
    for (const start of edges.get(model.id) ?? []) {
      const seen = new Set<string>();
      const stack = [start.to];
      let loops = false;
      while (stack.length > 0 && !loops) {
        const at = stack.pop()!;
        if (at === model.id) loops = true;
        else if (!seen.has(at)) {
          seen.add(at);
          for (const e of edges.get(at) ?? []) stack.push(e.to);
        }
      }
      if (loops) {
        problems.push({
          code: "relation_required_cycle",
          model: slugOf.get(model.id)!,
          field: start.field,
          message: "Required relations loop back to this model",
        });
      }
    }
  }
  return problems;
}
