// A model proposal as a reviewer reads it: the model's fields now beside the proposed ones, by key.
import type { ModelDefinition } from "../models/definition.ts";
import type { FieldDefinition } from "../models/field_types.ts";
import { stableJson } from "../models/problems.ts";

/** One field of the comparison. */
export interface FieldDiff {
  key: string;
  status: "added" | "removed" | "changed" | "same";
  before: string | null;
  after: string | null;
}

/** One changed part of the model itself (name, slug, public, ...). */
export interface InfoDiff {
  name: string;
  before: string;
  after: string;
}

function describe(field: FieldDefinition): string {
  const flags = [
    field.required ? "required" : "",
    field.localized ? "per language" : "",
    field.unique ? "unique" : "",
    field.private ? "private" : "",
  ].filter(Boolean);
  const config = stableJson(field.config);
  const validation = stableJson(field.validation);
  return [
    `${field.label} (${field.type})`,
    flags.join(", "),
    config === "{}" ? "" : `config ${config}`,
    validation === "{}" ? "" : `validation ${validation}`,
  ].filter(Boolean).join(" · ");
}

/** The fields of `before` (null for a new model) and `after`, matched by key, in the proposed order. */
export function fieldDiff(
  before: ModelDefinition | null,
  after: ModelDefinition,
): FieldDiff[] {
  const old = new Map((before?.fields ?? []).map((f) => [f.key, f]));
  const proposed = new Set(after.fields.map((f) => f.key));
  const rows: FieldDiff[] = after.fields.map((field) => {
    const was = old.get(field.key);
    const now = describe(field);
    if (!was) {
      return { key: field.key, status: "added", before: null, after: now };
    }
    const then = describe(was);
    return {
      key: field.key,
      status: then === now ? "same" : "changed",
      before: then,
      after: now,
    };
  });
  for (const [key, field] of old) {
    if (!proposed.has(key)) {
      rows.push({
        key,
        status: "removed",
        before: describe(field),
        after: null,
      });
    }
  }
  return rows;
}

/** The parts of the model itself that differ. */
export function infoDiff(
  before: ModelDefinition | null,
  after: ModelDefinition,
): InfoDiff[] {
  const parts = [
    "name",
    "slug",
    "description",
    "kind",
    "isPublic",
    "enableI18n",
    "settings",
  ] as const;
  return parts.flatMap((name) => {
    const then = before ? stableJson(before.model[name]) : "";
    const now = stableJson(after.model[name]);
    return then === now ? [] : [{ name, before: then, after: now }];
  });
}
