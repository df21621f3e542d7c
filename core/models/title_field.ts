// Which field names an entry (its title), and the title text the admin's lists sort and search by.
import { sql } from "kysely";
import type { Db } from "../db/database.ts";
import type { FieldDefinition } from "./field_types.ts";

/** The longest title kept for lists: a btree index entry must stay well under 2,700 bytes. */
export const LIST_TITLE_MAX = 300;

/** The field that names an entry: `title`, else `name`, else the first text field. */
export function titleFieldOf<F extends Pick<FieldDefinition, "key" | "type">>(
  model: { fields: readonly F[] },
): F | null {
  const text = model.fields.filter((f) => f.type === "text");
  return text.find((f) => f.key === "title") ??
    text.find((f) => f.key === "name") ?? text[0] ?? null;
}

/** The title of a version's `fields` as an entry list keeps it (`entries.list_title`). */
export function listTitleOf(
  model: { fields: readonly Pick<FieldDefinition, "key" | "type">[] } | null,
  fields: Record<string, unknown>,
): string {
  const field = model ? titleFieldOf(model) : null;
  const value = field ? fields[field.key] : undefined;
  // Cut by characters, as the migration's `left()` does, so no surrogate pair is split.
  return typeof value === "string"
    ? Array.from(value).slice(0, LIST_TITLE_MAX).join("")
    : "";
}

/**
 * Rewrites the list titles of a model's entries from their current versions, after a model change
 * that picked another title field (or none).
 */
export async function refreshListTitles(
  db: Db,
  siteId: string,
  modelId: string,
  titleKey: string | null,
): Promise<void> {
  await sql`
    update entries e
      set list_title = ${
    titleKey === null
      ? sql`''`
      : sql`left(coalesce(v.fields->>${titleKey}, ''), ${LIST_TITLE_MAX})`
  }
      from entry_versions v
      where e.site_id = ${siteId} and e.model_id = ${modelId}
        and v.id = e.current_version_id and v.site_id = e.site_id
  `.execute(db);
}
