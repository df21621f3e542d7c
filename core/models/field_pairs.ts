// Pairs the fields of two definitions by id, and lists what a change did to them.
import { walkFields } from "./definition.ts";
import { type FieldDefinition, isListField } from "./field_types.ts";

/** A field present before and after a change (same id), with its key path on each side. */
export interface FieldPair {
  before: FieldDefinition | null;
  after: FieldDefinition | null;
  beforePath: string | null;
  afterPath: string | null;
}

/** Pairs the fields of two definitions by id, level by level; added and removed fields have one side. */
export function pairFields(
  before: readonly FieldDefinition[],
  after: readonly FieldDefinition[],
  beforePrefix = "",
  afterPrefix = "",
): FieldPair[] {
  const pairs: FieldPair[] = [];
  const old = new Map(before.map((f) => [f.id, f]));
  const join = (prefix: string, key: string) =>
    prefix === "" ? key : `${prefix}.${key}`;
  for (const field of after) {
    const was = field.id === undefined ? undefined : old.get(field.id);
    old.delete(field.id);
    const afterPath = join(afterPrefix, field.key);
    const beforePath = was ? join(beforePrefix, was.key) : null;
    pairs.push({ before: was ?? null, after: field, beforePath, afterPath });
    if (field.type === "component" || was?.type === "component") {
      const nestedBefore = was?.type === "component" ? was.config.fields : [];
      const nestedAfter = field.type === "component" ? field.config.fields : [];
      pairs.push(
        ...pairFields(nestedBefore, nestedAfter, beforePath ?? "", afterPath),
      );
    }
  }
  for (const was of old.values()) {
    walkFields([was], (f, path) => {
      pairs.push({
        before: f,
        after: null,
        beforePath: join(beforePrefix, path),
        afterPath: null,
      });
    });
  }
  return pairs;
}

/** The shape of the values a field stores; content of one shape cannot be read as another. */
export function valueShape(field: FieldDefinition): string {
  return `${field.type}${isListField(field) ? "[]" : ""}`;
}

/** What a saved change did to fields, for the areas that keep values by key. */
export interface DefinitionDiff {
  added: { id: string; path: string }[];
  removed: { id: string; path: string }[];
  renamed: { id: string; from: string; to: string }[];
  retyped: { id: string; path: string; from: string; to: string }[];
}

/** Lists added, removed, renamed and retyped fields (nested ones by dotted path). */
export function diffDefinitions(
  before: readonly FieldDefinition[],
  after: readonly FieldDefinition[],
): DefinitionDiff {
  const diff: DefinitionDiff = {
    added: [],
    removed: [],
    renamed: [],
    retyped: [],
  };
  for (
    const { before: was, after: now, beforePath, afterPath } of pairFields(
      before,
      after,
    )
  ) {
    if (!was && now && afterPath) {
      diff.added.push({ id: now.id ?? "", path: afterPath });
    }
    if (was && !now && beforePath) {
      diff.removed.push({ id: was.id ?? "", path: beforePath });
    }
    if (!was || !now || !beforePath || !afterPath) continue;
    const id = now.id ?? "";
    if (beforePath !== afterPath) {
      diff.renamed.push({ id, from: beforePath, to: afterPath });
    }
    if (valueShape(was) !== valueShape(now)) {
      diff.retyped.push({
        id,
        path: afterPath,
        from: valueShape(was),
        to: valueShape(now),
      });
    }
  }
  return diff;
}
