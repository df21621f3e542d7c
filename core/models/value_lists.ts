// This module is browser compatible.
// Checks list-shaped values (relations, item counts) and defines where value checks report.
import {
  type FieldDefinition,
  isToMany,
  type MediaKind,
  UUID,
} from "./field_types.ts";
import type { RichBlockRef } from "./rich_text.ts";

/** A field that is not a component. */
export type Scalar = Exclude<FieldDefinition, { type: "component" }>;

/** A reference a value makes; existence, site and readability are checked by the entries area. */
export type ValueReference =
  | {
    kind: "relation";
    path: string;
    field_id: string;
    refs: { model: string; id: string }[];
  }
  | { kind: "media"; path: string; ids: string[]; kinds: MediaKind[] | null }
  | { kind: "rich_block"; path: string; block: RichBlockRef };

/** Where a check reports: a problem at the field's path, and references it found. */
export interface ValueSink {
  problem(
    code: string,
    message: string,
    extra?: { element?: string; attribute?: string },
  ): void;
  reference(ref: ValueReference): void;
  path: string;
  embedOrigins: readonly string[];
}

/** Checks a relation value's shape: ids, or `{ model, id }` when several models are accepted. */
export function checkRelation(
  field: Extract<Scalar, { type: "relation" }>,
  value: unknown,
  sink: ValueSink,
): boolean {
  const { targets, cardinality } = field.config;
  const many = isToMany(cardinality);
  const list = many ? value : [value];
  if (!Array.isArray(list)) {
    return (sink.problem(
      "invalid_type",
      `Field "${sink.path}" expects a list of targets`,
    ),
      true);
  }
  if (list.length === 0) return false;
  const refs: { model: string; id: string }[] = [];
  for (const item of list) {
    const ref = typeof item === "string"
      ? { model: targets.length === 1 ? targets[0] : null, id: item }
      : item as { model?: unknown; id?: unknown };
    const shaped = typeof ref === "object" && ref !== null &&
      !Array.isArray(ref) &&
      Object.keys(ref).every((k) => k === "model" || k === "id") &&
      typeof ref.id === "string" && UUID.test(ref.id);
    if (!shaped) {
      sink.problem(
        "invalid_type",
        `Field "${sink.path}" expects ${
          targets.length === 1 ? "entry ids" : "references { model, id }"
        }`,
      );
      return true;
    }
    if (ref.model === null) {
      sink.problem(
        "relation_target_model_required",
        `Field "${sink.path}" accepts several models: write { model, id }`,
      );
      return true;
    }
    const model = String(ref.model).toLowerCase();
    if (!targets.includes(model)) {
      sink.problem(
        "relation_target_model_not_allowed",
        `Field "${sink.path}" does not accept model "${String(ref.model)}"`,
      );
      return true;
    }
    refs.push({ model, id: (ref.id as string).toLowerCase() });
  }
  if (many) {
    checkItems(refs.map((r) => `${r.model}/${r.id}`), field.validation, sink);
  }
  sink.reference({
    kind: "relation",
    path: sink.path,
    field_id: field.id ?? "",
    refs,
  });
  return true;
}

/** Checks a list value for repeated items and its item count rules. */
export function checkItems(
  list: readonly unknown[],
  rules: ItemRules,
  sink: ValueSink,
): void {
  const repeated = list.find((v, i) => list.indexOf(v) !== i);
  if (repeated !== undefined) {
    sink.problem(
      "duplicate_item",
      `Field "${sink.path}" lists "${String(repeated)}" more than once`,
    );
  }
  checkCount(list.length, rules, sink);
}

/** Item count rules of list fields. */
export interface ItemRules {
  minItems?: number;
  maxItems?: number;
}

/** Checks a number of items against `minItems` and `maxItems`. */
export function checkCount(n: number, rules: ItemRules, sink: ValueSink): void {
  if (rules.minItems !== undefined && n < rules.minItems) {
    sink.problem(
      "too_few_items",
      `Field "${sink.path}" holds ${n} items: at least ${rules.minItems} are needed`,
    );
  }
  if (rules.maxItems !== undefined && n > rules.maxItems) {
    sink.problem(
      "too_many_items",
      `Field "${sink.path}" holds ${n} items: at most ${rules.maxItems} are allowed`,
    );
  }
}
