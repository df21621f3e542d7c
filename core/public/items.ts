// Shapes projection rows into published items (spec 3 part 2.1), leaving out private fields and hidden targets.
import type { FieldDefinition } from "../models/field_types.ts";
import type { StoredModel } from "../models/store_rows.ts";
import { isPageField } from "../models/validate_values.ts";
import { isoInstant } from "./instants.ts";
import {
  deliveredKey,
  type DeliveredPage,
  deliverPages,
} from "../pages/shared.ts";

/** The page contract version this service serves (`contracts.page.served`). */
export const PAGE_CONTRACT_SERVED = 5;

/** Item keys a `fields` selection may name besides model fields. */
export const ITEM_KEYS = [
  "id",
  "slug",
  "locale",
  "model",
  "version",
  "published_at",
];

/** One row of `public_items` (or a preview's draft) as reads select it. */
export interface PublicRow {
  group_id: string;
  slug: string;
  served_locale: string;
  version_number: number;
  /** A `Date`, or PostgreSQL's text of the instant where a read selects it as text (cheaper). */
  published_at: Date | string | null;
  fields: Record<string, unknown>;
}

/** What shaping needs beyond the row. */
export interface ShapeOptions {
  /** Keys of a `fields` selection; null returns everything. */
  select: ReadonlySet<string> | null;
  /** Ids of relation targets the reader may see (published, readable model, same language). */
  visibleTargets: ReadonlySet<string>;
  /** Model id -> slug, for multi-model relation values. */
  modelSlugs: ReadonlyMap<string, string>;
  /** Page documents of the rows as delivery serves them (see {@link deliverPageRows}). */
  pages?: ReadonlyMap<string, DeliveredPage>;
}

/** A published item in the public shape. */
export function shapeItem(
  model: StoredModel,
  row: PublicRow,
  options: ShapeOptions,
): Record<string, unknown> {
  const select = options.select;
  // Without a selection every group is shown, empty or not; with one, only groups that hold a
  // selected field (created on first use: a list shapes many items, each object counts).
  let fields: Record<string, unknown> | null = select === null ? {} : null;
  let relations: Record<string, unknown> | null = select === null ? {} : null;
  let media: Record<string, unknown> | null = select === null ? {} : null;
  // An indexed loop: under load a `for…of` here allocated an iterator result per field (about
  // 5 KB per list page in a heap profile), as this function does not stay optimised.
  const defined = model.fields;
  for (let i = 0; i < defined.length; i++) {
    const field = defined[i];
    if (field.private || (select !== null && !select.has(field.key))) continue;
    const value = row.fields[field.key] ?? null;
    if (field.type === "relation") {
      (relations ??= {})[field.key] = visibleRelation(value, options);
    } else if (field.type === "media") {
      (media ??= {})[field.key] = value;
    } else if (isPageField(field)) {
      (fields ??= {})[field.key] = page(row, options)?.document ?? null;
    } else {
      (fields ??= {})[field.key] = publicValue(field, value);
      // The library items a public rich-text value shows, expanded like media fields, so a front
      // end can draw them; a private field's media stay out with the field (issue 46).
      if (field.type === "rich_text" && typeof value === "string") {
        const ids = richTextMediaIds(value);
        if (ids.length > 0) (media ??= {})[field.key] = ids;
      }
    }
  }
  const item: Record<string, unknown> = {
    id: row.group_id,
    slug: row.slug,
    locale: row.served_locale,
  };
  if (select === null || select.has("model")) item.model = model.slug;
  if (select === null || select.has("version")) {
    item.version = row.version_number;
  }
  if (select === null || select.has("published_at")) {
    item.published_at = isoInstant(row.published_at);
  }
  if (fields) item.fields = fields;
  if (relations) item.relations = relations;
  if (media) item.media = media;
  if (select === null) {
    const slides = model.fields.find((f) =>
      f.key === "slides" && f.type === "json" && !f.private
    );
    if (slides) {
      const delivered = page(row, options);
      item.page_contract = delivered?.error
        ? { required: null, error: delivered.error }
        : { required: delivered?.required ?? null };
    }
  }
  return item;
}

/** Whether a model's items carry a page document. */
export function holdsPages(model: StoredModel): boolean {
  return model.fields.some((f) => isPageField(f) && !f.private);
}

/**
 * The page documents of rows of a model holding pages, expanded for delivery (shared sections
 * resolved in each row's language); an empty map for other models.
 */
export async function deliverPageRows(
  db: Parameters<typeof deliverPages>[0],
  siteId: string,
  model: StoredModel,
  rows: readonly PublicRow[],
): Promise<Map<string, DeliveredPage>> {
  if (!holdsPages(model)) return new Map();
  return await deliverPages(db, siteId, rows);
}

/** Cache tags `instance:<id>` of the shared sections the delivered pages embed. */
export function sharedTags(
  pages: ReadonlyMap<string, DeliveredPage>,
): string[] {
  const ids = new Set<string>();
  for (const p of pages.values()) p.shared.forEach((id) => ids.add(id));
  return [...ids].map((id) => `instance:${id}`);
}

function page(
  row: PublicRow,
  options: ShapeOptions,
): DeliveredPage | undefined {
  return options.pages?.get(deliveredKey(row.group_id, row.served_locale));
}

/** Relation ids of readable model fields a value holds (single ids or `{ model, id }`). */
export function relationIds(value: unknown): string[] {
  const list = Array.isArray(value)
    ? value
    : value === null || value === undefined
    ? []
    : [value];
  return list.map((v) =>
    typeof v === "string"
      ? v
      : typeof v === "object" && v !== null
      ? String((v as { id?: unknown }).id)
      : ""
  ).filter((id) => id !== "");
}

function visibleRelation(value: unknown, options: ShapeOptions): unknown {
  const show = (v: unknown) => {
    if (typeof v === "string") {
      return options.visibleTargets.has(v) ? v : undefined;
    }
    if (typeof v === "object" && v !== null) {
      const { id, model } = v as { id?: string; model?: string };
      if (!id || !options.visibleTargets.has(id)) return undefined;
      return { model: options.modelSlugs.get(model ?? "") ?? model, id };
    }
    return undefined;
  };
  if (Array.isArray(value)) {
    return value.map(show).filter((v) => v !== undefined);
  }
  return value === null ? null : show(value) ?? null;
}

/** A component value without the private fields below it; other values pass through. */
/** The media ids a rich-text value names (media figures and gallery images), each once, in order. */
export function richTextMediaIds(html: string): string[] {
  if (!html.includes("data-media")) return [];
  const ids = new Set<string>();
  for (const m of html.matchAll(/\sdata-media="([0-9a-fA-F-]{36})"/g)) {
    ids.add(m[1].toLowerCase());
  }
  return [...ids];
}

function publicValue(field: FieldDefinition, value: unknown): unknown {
  if (
    field.type !== "component" || value === null || typeof value !== "object"
  ) return value;
  const clean = (one: unknown) => {
    if (one === null || typeof one !== "object" || Array.isArray(one)) {
      return one;
    }
    const out: Record<string, unknown> = {};
    for (const sub of field.config.fields) {
      if (sub.private || !(sub.key in (one as Record<string, unknown>))) {
        continue;
      }
      out[sub.key] = publicValue(
        sub,
        (one as Record<string, unknown>)[sub.key],
      );
    }
    return out;
  };
  return Array.isArray(value) ? value.map(clean) : clean(value);
}
