// Which fields of a model search reads: the title, the summary, searchable text and linked names.
import type { FieldDefinition } from "../models/field_types.ts";
import type { StoredModel } from "../models/store_rows.ts";

/** Field types whose text is searched; relation fields add linked names. */
export const TEXT_TYPES = new Set(["text", "slug", "select", "rich_text"]);

/** The public title field: `title`, else `name`, else the first public text field. */
export function titleField(model: StoredModel): FieldDefinition | null {
  const open = model.fields.filter((f) => !f.private && f.type === "text");
  return open.find((f) => f.key === "title") ??
    open.find((f) => f.key === "name") ?? open[0] ?? null;
}

/** Public fields whose words are searched (text-like and relation fields). */
export function searchableFields(model: StoredModel): FieldDefinition[] {
  return model.fields.filter((f) =>
    !f.private && (TEXT_TYPES.has(f.type) || f.type === "relation")
  );
}

/** The plain text of a stored value: strings, lists of strings, rich text without markup. */
export function plainText(field: FieldDefinition, value: unknown): string {
  if (value === null || value === undefined) return "";
  if (Array.isArray(value)) {
    return value.map((v) => plainText(field, v)).join(" ");
  }
  if (typeof value !== "string") return "";
  if (field.type !== "rich_text") return value;
  return value.replace(/<[^>]*>/g, " ").replace(/&nbsp;/g, " ")
    .replace(/&amp;/g, "&").replace(/&lt;/g, "<").replace(/&gt;/g, ">")
    .replace(/&quot;/g, '"').replace(/&#39;/g, "'");
}

/** True when the item asks to be left out of search engines (`noindex`, `seo.noindex`, `hide_from_search`). */
export function hiddenFromSearch(values: Record<string, unknown>): boolean {
  const seo = values.seo as Record<string, unknown> | null | undefined;
  return values.noindex === true || values.hide_from_search === true ||
    (typeof seo === "object" && seo !== null && seo.noindex === true);
}

/** A short summary: `summary`, `excerpt` or `description`, else the first other text field; never linked names. */
export function summaryOf(
  model: StoredModel,
  values: Record<string, unknown>,
  title: FieldDefinition | null,
): string {
  const open = model.fields.filter((f) =>
    !f.private && TEXT_TYPES.has(f.type) && f.key !== title?.key
  );
  const preferred = ["summary", "excerpt", "description"].map((k) =>
    open.find((f) => f.key === k)
  ).find((f) => f && plainText(f, values[f.key]).trim());
  const field = preferred ??
    open.find((f) =>
      f.type !== "select" && f.type !== "slug" &&
      plainText(f, values[f.key]).trim()
    );
  if (!field) return "";
  const text = plainText(field, values[field.key]).replace(/\s+/g, " ").trim();
  return text.length > 160 ? `${text.slice(0, 157).trimEnd()}…` : text;
}
