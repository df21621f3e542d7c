// Decides which changes between two model definitions existing content cannot survive.
import type { ModelDefinition } from "./definition.ts";
import { pairFields, valueShape } from "./field_pairs.ts";

export {
  type DefinitionDiff,
  diffDefinitions,
  type FieldPair,
  pairFields,
} from "./field_pairs.ts";

/**
 * What the model builder needs to know about a model's content. Paths are dotted key paths
 * without list indexes (`seo.meta_title`, `faqs.question`); the entries area answers them.
 */
export interface ContentFacts {
  /** Logical entries of the model, Trash included. */
  countEntries(): Promise<number>;
  /** Entries whose current values hold a non-empty value under `path`, in any language. */
  countEntriesWithValue(path: string): Promise<number>;
  /** Entries that would have no value under `path` where one would be required. */
  countEntriesMissingValue(path: string): Promise<number>;
  /** Kept versions (drafts, published and history) that hold a value under `path`. */
  countVersionsWithValue(path: string): Promise<number>;
  /** Entries whose non-empty values under all `paths` together repeat within `scope`. */
  countDuplicateValues(
    paths: string[],
    scope: "model" | "language",
  ): Promise<number>;
}

/** Facts for a model that holds nothing, such as a model just created. */
export const NO_CONTENT: ContentFacts = {
  countEntries: () => Promise.resolve(0),
  countEntriesWithValue: () => Promise.resolve(0),
  countEntriesMissingValue: () => Promise.resolve(0),
  countVersionsWithValue: () => Promise.resolve(0),
  countDuplicateValues: () => Promise.resolve(0),
};

/** A key path a model has ever given a field, with that field's id. */
export interface RetainedKey {
  key: string;
  field_id: string;
  field_type: string;
}

/** Kinds of change that existing content can block. */
export type ChangeKind =
  | "retained_key_reuse"
  | "type_change"
  | "localization_change"
  | "relation_change"
  | "required_missing"
  | "unique_conflict"
  | "single_entry_conflict";

/** One blocked change, as listed in `409 model_change_blocked` (spec 2 part 4.3). */
export interface ModelChange {
  kind: ChangeKind;
  /** Dotted key path of the field, the combination name, or null for the model itself. */
  field: string | null;
  affected_count: number;
  message: string;
  suggestion: string;
}

/**
 * Lists the changes from `before` (null for a new model) to `after` that existing content
 * cannot survive. `after` must carry field ids (new fields included). Proposals list these;
 * a save refuses with `model_change_blocked` when any are found.
 */
export async function assessModelChange(
  before: ModelDefinition | null,
  after: ModelDefinition,
  facts: ContentFacts,
  retained: readonly RetainedKey[],
): Promise<ModelChange[]> {
  const changes: ModelChange[] = [];
  const add = (
    kind: ChangeKind,
    field: string | null,
    affected: number,
    message: string,
    suggestion: string,
  ) => {
    if (affected > 0) {
      changes.push({
        kind,
        field,
        affected_count: affected,
        message,
        suggestion,
      });
    }
  };
  for (
    const { before: was, after: now, beforePath, afterPath } of pairFields(
      before?.fields ?? [],
      after.fields,
    )
  ) {
    if (!now || !afterPath) continue;
    const keyChanged = !was || beforePath !== afterPath;
    const others = retained.filter((r) =>
      r.key === afterPath && r.field_id !== now.id
    );
    if (keyChanged && others.length > 0) {
      add(
        "retained_key_reuse",
        afterPath,
        await facts.countVersionsWithValue(afterPath),
        `Kept versions still hold values under "${afterPath}" from an earlier field`,
        `Choose another key, or keep the earlier field`,
      );
    }
    const path = beforePath ?? afterPath;
    if (was && valueShape(was) !== valueShape(now)) {
      add(
        "type_change",
        path,
        await facts.countEntriesWithValue(path),
        `Field "${path}" changes from ${valueShape(was)} to ${
          valueShape(now)
        } while entries hold values`,
        `Add a new field of the new type, copy the values, then remove this one`,
      );
    }
    if (was && was.localized !== now.localized) {
      add(
        "localization_change",
        path,
        await facts.countEntriesWithValue(path),
        `Field "${path}" changes whether it is localized while entries hold values`,
        `Add a new field with the new setting and copy the values`,
      );
    }
    if (
      was?.type === "relation" && now.type === "relation" &&
      valueShape(was) === valueShape(now)
    ) {
      const dropped = was.config.targets.filter((t) =>
        !now.config.targets.includes(t)
      );
      const shapeChanged = was.config.cardinality !== now.config.cardinality ||
        was.config.localizedMembership !== now.config.localizedMembership;
      if (dropped.length > 0 || shapeChanged) {
        add(
          "relation_change",
          path,
          await facts.countEntriesWithValue(path),
          `Relation "${path}" narrows its targets or changes its cardinality while entries hold links`,
          `Remove the affected links first`,
        );
      }
    }
    if (now.required && (!was || !was.required)) {
      add(
        "required_missing",
        path,
        await facts.countEntriesMissingValue(path),
        `Field "${afterPath}" becomes required while entries have no value for it`,
        `Fill the value in every entry first, or keep the field optional`,
      );
    }
    if (now.unique && (!was || !was.unique)) {
      add(
        "unique_conflict",
        path,
        await facts.countDuplicateValues(
          [path],
          now.localized ? "language" : "model",
        ),
        `Field "${afterPath}" becomes unique while entries share values`,
        `Make the values distinct first`,
      );
    }
  }
  await assessCombinations(before, after, facts, add);
  if (before?.model.kind === "collection" && after.model.kind === "single") {
    const entries = await facts.countEntries();
    add(
      "single_entry_conflict",
      null,
      entries > 1 ? entries : 0,
      `The model holds ${entries} entries: a single-entry model holds at most one`,
      `Delete entries (Trash counts) until one is left`,
    );
  }
  return changes;
}

async function assessCombinations(
  before: ModelDefinition | null,
  after: ModelDefinition,
  facts: ContentFacts,
  add: (
    kind: ChangeKind,
    field: string | null,
    affected: number,
    message: string,
    suggestion: string,
  ) => void,
): Promise<void> {
  const old = new Map(
    (before?.model.settings.unique_combinations ?? []).map((c) => [c.name, c]),
  );
  const currentKey = new Map<string, string>();
  for (const field of after.fields) {
    const was = before?.fields.find((f) =>
      f.id !== undefined && f.id === field.id
    );
    currentKey.set(field.key, was?.key ?? field.key);
  }
  for (const combination of after.model.settings.unique_combinations) {
    const was = old.get(combination.name);
    const paths = combination.fields.map((k) => currentKey.get(k) ?? k);
    const same = was && was.scope === combination.scope &&
      was.fields.length === paths.length && was.fields.every((k, i) =>
        k === paths[i]
      );
    if (same) continue;
    add(
      "unique_conflict",
      combination.name,
      await facts.countDuplicateValues(paths, combination.scope),
      `Unique combination "${combination.name}" is new or changed while entries share values`,
      `Make the values distinct first`,
    );
  }
}
