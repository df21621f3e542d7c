// Expands media references of public items into the library item's public fields (one statement per answer).
import { sql } from "kysely";
import type { Db } from "../db/database.ts";
import { deliveryUrl } from "../media/items.ts";

/** A media reference as public answers carry it. */
export interface PublicMedia {
  id: string;
  kind: string;
  url: string;
  mime_type: string;
  file_name: string;
  byte_length: number;
  width: number | null;
  height: number | null;
  aspect_ratio: string | null;
  /** The alt text of the served language, else along its fallback chain; null when none. */
  alt: string | null;
  focal: { x: number; y: number } | null;
  loading: "eager" | "lazy";
  fetch_priority: "high" | "low" | "auto";
  /** An image's ThumbHash (base64), to paint before the image arrives; null for other kinds. */
  placeholder: string | null;
  /** An image's dominant colour, `#rrggbb`; null for other kinds. */
  dominant_color: string | null;
}

interface Row {
  id: string;
  kind: string;
  object_id: string;
  format: string;
  mime_type: string;
  file_name: string;
  byte_length: number | string;
  width: number | null;
  height: number | null;
  aspect_ratio: string | null;
  alt_texts: Record<string, string> | null;
  default_focal: { x: number; y: number } | null;
  loading: "eager" | "lazy";
  fetch_priority: "high" | "low" | "auto";
  external: boolean;
  external_url: string | null;
  placeholder: string | null;
  dominant_color: string | null;
  originals: {
    lang: string;
    object_id: string;
    format: string;
    mime_type: string;
    byte_length: number;
    width: number | null;
    height: number | null;
  }[] | null;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function idsOf(value: unknown): string[] {
  const list = Array.isArray(value) ? value : [value];
  return list.filter((v): v is string => typeof v === "string" && UUID.test(v))
    .map((v) => v.toLowerCase());
}

/** Options of {@link expandMedia}. */
export interface ExpandMediaOptions {
  siteId: string;
  /** Served language first, then its fallback chain (the default language last). */
  chain: string[];
  /** Origin of delivery URLs (`PUBLIC_URL`); empty gives site-relative URLs. */
  publicUrl: string;
}

/**
 * Replaces each id under `item.media.<field>` (a single id or a list) by the item's public
 * fields, in place. A language with its own original serves it; else the first language of the
 * chain that has one; else the default original. An id the library no longer holds becomes
 * null (in a list it is left out), so an answer never carries a dangling reference.
 */
export async function expandMedia(
  db: Db,
  items: Record<string, unknown>[],
  options: ExpandMediaOptions,
): Promise<void> {
  const wanted = new Set<string>();
  for (const item of items) {
    const media = item.media as Record<string, unknown> | undefined;
    if (!media) continue;
    for (const value of Object.values(media)) {
      for (const id of idsOf(value)) wanted.add(id);
    }
  }
  if (wanted.size === 0) return;
  const rows = await sql<Row>`
    select f.id, f.kind, f.object_id, f.format, f.mime_type, f.file_name, f.byte_length,
      f.width, f.height, f.aspect_ratio, f.alt_texts, f.default_focal, f.loading,
      f.fetch_priority, f.external, f.external_url, f.placeholder, f.dominant_color,
      (select json_agg(json_build_object('lang', o.lang, 'object_id', o.object_id,
          'format', o.format, 'mime_type', o.mime_type, 'byte_length', o.byte_length,
          'width', o.width, 'height', o.height))
        from media_originals o where o.site_id = f.site_id and o.media_id = f.id) as originals
    from media_files f
    where f.site_id = ${options.siteId} and f.id in (${
    sql.join([...wanted].map((id) => sql`${id}::uuid`))
  })
  `.execute(db);
  const byId = new Map(rows.rows.map((r) => [r.id, shape(r, options)]));
  for (const item of items) {
    const media = item.media as Record<string, unknown> | undefined;
    if (!media) continue;
    for (const [key, value] of Object.entries(media)) {
      if (Array.isArray(value)) {
        media[key] = idsOf(value).map((id) => byId.get(id)).filter(Boolean);
      } else if (typeof value === "string") {
        media[key] = byId.get(value.toLowerCase()) ?? null;
      }
    }
  }
}

function shape(row: Row, options: ExpandMediaOptions): PublicMedia {
  const originals = new Map((row.originals ?? []).map((o) => [o.lang, o]));
  const from = options.chain.find((lang) => originals.has(lang));
  const o = from ? originals.get(from)! : null;
  const alts = row.alt_texts ?? {};
  const altLang = options.chain.find((lang) => alts[lang]);
  return {
    id: row.id,
    kind: row.kind,
    // A plugin's reference import is served from its declared delivery origin, never by us.
    url: row.external && row.external_url ? row.external_url : deliveryUrl(
      options.publicUrl,
      options.siteId,
      o ? o.object_id : row.object_id,
      o ? o.format : row.format,
    ),
    mime_type: o ? o.mime_type : row.mime_type,
    file_name: row.file_name,
    byte_length: Number(o ? o.byte_length : row.byte_length),
    width: o ? o.width : row.width,
    height: o ? o.height : row.height,
    aspect_ratio: row.aspect_ratio,
    alt: altLang ? alts[altLang] : null,
    focal: row.default_focal ?? null,
    loading: row.loading,
    fetch_priority: row.fetch_priority,
    placeholder: row.placeholder,
    dominant_color: row.dominant_color,
  };
}

/** The items of an answer and the targets expanded inside them (`expanded.<field>.data`). */
export function withExpandedTargets(
  items: Record<string, unknown>[],
): Record<string, unknown>[] {
  const all = [...items];
  for (const item of items) {
    const expanded = item.expanded as
      | Record<string, { data?: unknown }>
      | undefined;
    if (expanded === undefined) continue;
    for (const value of Object.values(expanded)) {
      if (Array.isArray(value?.data)) {
        all.push(...value.data as Record<string, unknown>[]);
      }
    }
  }
  return all;
}
