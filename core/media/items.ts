// Media library rows as the API answers them: the item, its delivery URL, and reads by id and page.
import type { ImageLibraryChoice } from "./image_library.ts";
import { isId } from "../entries/store.ts";
import { type Selectable, sql } from "kysely";
import type { Clock } from "../clock.ts";
import type { Db } from "../db/database.ts";
import type { MediaFilesTable } from "../db/schema.ts";
import type { MediaStorage } from "./storage.ts";

/** What every media command and read receives. */
export interface MediaContext {
  db: Db;
  storage: MediaStorage;
  clock: Clock;
  siteId: string;
  /** Origin the delivery URLs are built on (`PUBLIC_URL`). */
  publicUrl: string;
  /** For a keyed write: the digest of its key, stored with the effect (`media_writes`). */
  keyDigest: string | null;
  /** Which library reads images for placeholders (`MEDIA_IMAGE_LIBRARY`; default `auto`). */
  imageLibrary?: ImageLibraryChoice;
}

/** A stored media row. */
export type MediaRow = Selectable<MediaFilesTable>;

/** A focal point as fractions of the image. */
export interface Focal {
  x: number;
  y: number;
}

/** A media item as the Management API answers it (spec 2 part 2.4). */
export interface MediaItem {
  id: string;
  kind: MediaFilesTable["kind"];
  folder_id: string | null;
  file_name: string;
  mime_type: string;
  format: string;
  byte_length: number;
  width: number | null;
  height: number | null;
  aspect_ratio: string | null;
  digest: string;
  object_id: string;
  url: string | null;
  alt_texts: Record<string, string>;
  default_focal: Focal | null;
  loading: "eager" | "lazy";
  fetch_priority: "high" | "low" | "auto";
  tags: string[];
  credit: string | null;
  attribution: unknown;
  external: boolean;
  /** For a reference item: the plugin, source and item it stands for. */
  external_source?: {
    installation_id: string;
    plugin_id: string;
    source_id: string;
    item_id: string;
  };
  edited_from: string | null;
  /** An image's ThumbHash (base64): a blurred preview a front end decodes in a few microseconds. */
  placeholder: string | null;
  /** An image's dominant colour, `#rrggbb`. */
  dominant_color: string | null;
  revision: number;
  created_at: string;
  updated_at: string;
}

/** The stored key of an object: one per upload, never reused, so its URL may be cached forever. */
export function storageKeyOf(
  siteId: string,
  objectId: string,
  format: string,
): string {
  return `sites/${siteId}/${objectId}.${format}`;
}

/** The public delivery URL of one stored object (routes/media/[site]/[file].ts serves it). */
export function deliveryUrl(
  publicUrl: string,
  siteId: string,
  objectId: string,
  format: string,
): string {
  return `${publicUrl}/media/${siteId}/${objectId}.${format}`;
}

/** Shapes a row as the API answers it. */
export function toItem(publicUrl: string, row: MediaRow): MediaItem {
  return {
    id: row.id,
    kind: row.kind,
    folder_id: row.folder_id,
    file_name: row.file_name,
    mime_type: row.mime_type,
    format: row.format,
    byte_length: Number(row.byte_length),
    width: row.width,
    height: row.height,
    aspect_ratio: row.aspect_ratio,
    digest: row.digest,
    object_id: row.object_id,
    // A reference item is served from its source's delivery origin, never by this service.
    url: row.external && row.external_url
      ? row.external_url
      : deliveryUrl(publicUrl, row.site_id, row.object_id, row.format),
    alt_texts: (row.alt_texts ?? {}) as Record<string, string>,
    default_focal: (row.default_focal ?? null) as Focal | null,
    loading: row.loading,
    fetch_priority: row.fetch_priority,
    tags: (row.tags ?? []) as string[],
    credit: row.credit,
    attribution: row.attribution ?? null,
    external: row.external,
    ...(row.external_source
      ? {
        external_source: (typeof row.external_source === "string"
          ? JSON.parse(row.external_source)
          : row.external_source) as NonNullable<MediaItem["external_source"]>,
      }
      : {}),
    edited_from: row.edited_from,
    placeholder: row.placeholder ?? null,
    dominant_color: row.dominant_color ?? null,
    revision: row.revision,
    created_at: new Date(row.created_at).toISOString(),
    updated_at: new Date(row.updated_at).toISOString(),
  };
}

/** One row of the site, or null. */
export async function readMediaRow(
  db: Db,
  siteId: string,
  id: string,
): Promise<MediaRow | null> {
  const row = await db.selectFrom("media_files").selectAll()
    .where("site_id", "=", siteId).where("id", "=", id).executeTakeFirst();
  return (row as MediaRow | undefined) ?? null;
}

/** Options of {@link listMedia}. */
export interface ListMediaOptions {
  /** A folder id, `unfiled`, or absent for every file. */
  folder?: string;
  /** Part of the file name or an alt text, any case. */
  q?: string;
  kind?: MediaFilesTable["kind"];
  limit: number;
  cursor?: string;
}

/** A page of the library, newest first, and the cursor of the next page (null at the end). */
export async function listMedia(
  ctx: { db: Db; siteId: string; publicUrl: string },
  options: ListMediaOptions,
): Promise<{ data: MediaItem[]; next_cursor: string | null } | null> {
  let query = ctx.db.selectFrom("media_files").selectAll()
    .where("site_id", "=", ctx.siteId);
  if (options.folder === "unfiled") {
    query = query.where("folder_id", "is", null);
  } else if (options.folder) {
    query = query.where("folder_id", "=", options.folder);
  }
  if (options.kind) query = query.where("kind", "=", options.kind);
  if (options.q) {
    const like = `%${options.q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    query = query.where((eb) =>
      eb.or([
        eb("file_name", "ilike", like),
        eb(sql<string>`alt_texts::text`, "ilike", like),
      ])
    );
  }
  if (options.cursor) {
    const after = readCursor(options.cursor);
    if (!after) return null;
    query = query.where((eb) =>
      eb.or([
        eb("created_at", "<", after.at),
        eb.and([eb("created_at", "=", after.at), eb("id", "<", after.id)]),
      ])
    );
  }
  const rows = await query.orderBy("created_at", "desc").orderBy("id", "desc")
    .limit(options.limit + 1).execute() as MediaRow[];
  const page = rows.slice(0, options.limit);
  const last = page.at(-1);
  return {
    data: page.map((row) => toItem(ctx.publicUrl, row)),
    next_cursor: rows.length > options.limit && last
      ? btoa(`${new Date(last.created_at).toISOString()}|${last.id}`)
        .replace(/=+$/, "")
      : null,
  };
}

function readCursor(cursor: string): { at: Date; id: string } | null {
  try {
    const [at, id] = atob(cursor).split("|");
    const date = new Date(at);
    if (Number.isNaN(date.getTime()) || !isId(id)) {
      return null;
    }
    return { at: date, id };
  } catch {
    return null;
  }
}

/** Stores the answer of a keyed write in the command's transaction. */
export async function recordWrite(
  tx: Db,
  ctx: MediaContext,
  answer: unknown,
): Promise<void> {
  if (!ctx.keyDigest) return;
  await tx.insertInto("media_writes").values({
    site_id: ctx.siteId,
    key_digest: ctx.keyDigest,
    answer: JSON.stringify(answer),
    created_at: ctx.clock.now(),
  }).execute();
}

/** The answer a keyed write stored, or null when none was written. */
export async function findWrite(
  db: Db,
  siteId: string,
  keyDigest: string | null,
): Promise<unknown | null> {
  if (!keyDigest) return null;
  const row = await db.selectFrom("media_writes").select("answer")
    .where("site_id", "=", siteId).where("key_digest", "=", keyDigest)
    .executeTakeFirst();
  return row ? row.answer : null;
}
