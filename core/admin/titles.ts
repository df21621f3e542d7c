// How the admin names an entry: its title field's value in a language, else its slug.
import { type RawBuilder, sql } from "kysely";
import { readReach } from "../access/decide.ts";
import type { StoredModel } from "../models/store_rows.ts";
import { titleFieldOf } from "../models/title_field.ts";
import type { AdminContext } from "./context.ts";

export { titleFieldOf };

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

/**
 * SQL that is true when the list title of the entry row `e` holds `text`, in any case, with LIKE
 * wildcards taken literally. The trigram index of migration 0232 serves it.
 */
export function listTitleHolds(text: string): RawBuilder<boolean> {
  return sql<boolean>`lower(e.list_title) like lower(${likeContaining(text)})`;
}

/** A LIKE pattern that matches values containing `text`, its `%`, `_` and `\\` taken literally. */
export function likeContaining(text: string): string {
  return `%${text.replace(/[\\%_]/g, (ch) => `\\${ch}`)}%`;
}
