// How the admin names an entry: its title field's value in a language, else its slug.
import { readReach } from "../access/decide.ts";
import type { StoredModel } from "../models/store_rows.ts";
import type { FieldDefinition } from "../models/field_types.ts";
import type { AdminContext } from "./context.ts";

/** The field the admin shows as an entry's title: `title`, else `name`, else the first text field. */
export function titleFieldOf(model: StoredModel): FieldDefinition | null {
  const text = model.fields.filter((f) => f.type === "text");
  return text.find((f) => f.key === "title") ??
    text.find((f) => f.key === "name") ?? text[0] ?? null;
}

/** The entry's title from its values, falling back to its slug. */
export function entryTitle(
  model: StoredModel,
  values: Record<string, unknown>,
  slug: string,
): string {
  const field = titleFieldOf(model);
  const value = field ? values[field.key] : undefined;
  return typeof value === "string" && value.trim() !== "" ? value : slug;
}

/** Ids of the models whose entries the person reads: every entry (`all`) or their own (`own`). */
export function readableModelIds(
  ctx: AdminContext,
  models: readonly StoredModel[],
): { all: string[]; own: string[] } {
  const all: string[] = [];
  const own: string[] = [];
  for (const m of models) {
    const reach = readReach(ctx.authority, m.id);
    if (reach === "all") all.push(m.id);
    else if (reach === "own") own.push(m.id);
  }
  return { all, own };
}
