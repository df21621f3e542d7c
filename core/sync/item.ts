// Shapes a served row of `public_items` as a published item (spec 3 part 2.1) without private fields.
import type { StoredModel } from "../models/store_rows.ts";

/** A published item as public answers carry it. */
export interface PublishedItem {
  id: string;
  slug: string;
  model: string;
  locale: string;
  version: number;
  published_at: string;
  fields: Record<string, unknown>;
  relations: Record<string, unknown>;
  media: Record<string, unknown>;
}

/** The columns of `public_items` an item is built from. */
export interface ServedRow {
  group_id: string;
  model_id: string;
  served_locale: string;
  slug: string;
  version_number: number;
  published_at: Date | string;
  fields: unknown;
}

/** Builds an item: private fields never appear; relation and media values go to their own objects. */
export function toPublishedItem(
  row: ServedRow,
  model: StoredModel,
): PublishedItem {
  const values = (row.fields ?? {}) as Record<string, unknown>;
  const fields: Record<string, unknown> = {};
  const relations: Record<string, unknown> = {};
  const media: Record<string, unknown> = {};
  for (const field of model.fields) {
    if (field.private) continue;
    const value = values[field.key] ?? null;
    if (field.type === "relation") relations[field.key] = value;
    else if (field.type === "media") media[field.key] = value;
    else fields[field.key] = value;
  }
  return {
    id: row.group_id,
    slug: row.slug,
    model: model.slug,
    locale: row.served_locale,
    version: row.version_number,
    published_at: new Date(row.published_at).toISOString(),
    fields,
    relations,
    media,
  };
}
