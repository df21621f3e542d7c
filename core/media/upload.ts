// Adds files to the library: type from the bytes, site settings, duplicates by digest, bytes first, row second.
import type { Db } from "../db/database.ts";
import { sha256HexSync } from "../kv/digest.ts";
import { queueMediaNotifications } from "../plugins/notifications.ts";
import { getSettings } from "../sites/settings.ts";
import { SETTINGS_SCHEMAS } from "../sites/settings_documents.ts";
import { type DetectedFile, detectFile } from "./detect.ts";
import { imageFacts } from "./placeholder.ts";
import {
  type MediaContext,
  type MediaItem,
  type MediaRow,
  readMediaRow,
  recordWrite,
  storageKeyOf,
  toItem,
} from "./items.ts";

/** Largest file the Management API accepts (spec 2 part 8: 32 MiB, whole file buffered). */
export const API_UPLOAD_LIMIT = 32 * 1024 * 1024;

/**
 * The largest file a door that buffers whole files (the Management API, plugin uploads and
 * media-source copies, imports) accepts: 32 MiB, or the plan limit
 * (`MEDIA_REQUEST_BODY_LIMIT_BYTES`) when that is lower (MED-013).
 */
export function apiUploadLimit(planLimitBytes: number): number {
  return Math.min(API_UPLOAD_LIMIT, planLimitBytes);
}

/** A file as it arrived. */
export interface IncomingFile {
  bytes: Uint8Array;
  /** The name the client gave; kept for display only, never used to decide the type. */
  fileName: string;
}

/** What an upload names besides the file (spec 2 part 2.4). */
export interface UploadOptions {
  altTexts?: Record<string, string>;
  width?: number;
  height?: number;
  aspectRatio?: string;
  onDuplicate?: "ask" | "use_existing" | "copy";
  folderId?: string | null;
  editedFrom?: string;
  /** Largest file this door accepts (the API: {@link API_UPLOAD_LIMIT}). */
  limitBytes: number;
  /**
   * Written in the row's transaction, after it (a plugin upload's audit entry): when it
   * throws, nothing is written and the stored bytes are deleted.
   */
  alsoRecord?: (tx: Db, item: MediaItem) => Promise<void>;
}

/** A refusal of a media command. */
export interface MediaRefusal {
  ok: false;
  code: string;
  [detail: string]: unknown;
}

/** An upload's success: a new item (201) or the existing one (200, `reused`). */
export type UploadResult =
  | { ok: true; created: true; item: MediaItem }
  | { ok: true; created: false; item: MediaItem; reused: true }
  | MediaRefusal;

/** What checking a file against the bytes and the site's settings found. */
export type CheckedFile =
  | { ok: true; detected: DetectedFile; digest: string }
  | MediaRefusal;

/** Checks `file` against its bytes and the site's media-file settings (SET-003, MED-006, MED-013, MED-014). */
export async function checkFile(
  ctx: MediaContext,
  file: IncomingFile,
  limitBytes: number,
): Promise<CheckedFile> {
  const stored = await getSettings(ctx, "media-files");
  const parsed = SETTINGS_SCHEMAS["media-files"].safeParse(stored.document);
  const settings = parsed.success ? parsed.data : null;
  const limit = Math.min(limitBytes, settings?.max_upload_bytes ?? limitBytes);
  if (file.bytes.length > limit) {
    return {
      ok: false,
      code: "media_too_large",
      limit_bytes: limit,
      byte_length: file.bytes.length,
    };
  }
  const detected = await detectFile(file.bytes);
  if (!detected.ok) {
    return {
      ok: false,
      code: detected.code,
      reason: detected.reason,
      detail: detected.detail,
    };
  }
  if (settings && !settings.enabled_kinds.includes(detected.kind)) {
    return {
      ok: false,
      code: "media_kind_not_enabled",
      kind: detected.kind,
      enabled_kinds: settings.enabled_kinds,
    };
  }
  if (
    settings?.enabled_formats &&
    !settings.enabled_formats.includes(detected.format)
  ) {
    return {
      ok: false,
      code: "media_format_not_enabled",
      format: detected.format,
      enabled_formats: settings.enabled_formats,
    };
  }
  return { ok: true, detected, digest: sha256HexSync(file.bytes) };
}

/** Site languages, for checking the keys of `alt_texts`. */
export async function siteLanguages(
  ctx: MediaContext,
): Promise<string[]> {
  const rows = await ctx.db.selectFrom("site_languages").select("code")
    .where("site_id", "=", ctx.siteId).orderBy("position").execute();
  return rows.map((r) => r.code);
}

/** Most characters of one alt text. */
export const ALT_TEXT_MAX = 1000;

/**
 * Alt texts as a form field sends them: a JSON object of language code to text (at most
 * {@link ALT_TEXT_MAX} characters); null when the value is anything else.
 */
export function altTextsFrom(value: string): Record<string, string> | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    return null;
  }
  if (
    parsed === null || typeof parsed !== "object" || Array.isArray(parsed) ||
    Object.entries(parsed).some(([k, v]) =>
      typeof v !== "string" || v.length > ALT_TEXT_MAX ||
      !/^[A-Za-z0-9_-]{1,64}$/.test(k)
    )
  ) {
    return null;
  }
  return parsed as Record<string, string>;
}

/** The alt-text languages that are not languages of the site. */
export async function unknownLanguages(
  ctx: MediaContext,
  altTexts: Record<string, string> | undefined,
): Promise<string[]> {
  if (!altTexts) return [];
  const known = new Set(await siteLanguages(ctx));
  return Object.keys(altTexts).filter((lang) => !known.has(lang));
}

/** True when the folder exists on the site (null: Unfiled, always there). */
export async function folderExists(
  ctx: MediaContext,
  folderId: string | null | undefined,
): Promise<boolean> {
  if (!folderId) return true;
  const row = await ctx.db.selectFrom("media_folders").select("id")
    .where("site_id", "=", ctx.siteId).where("id", "=", folderId)
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * Adds a file (MED-005 to MED-014). The bytes are written first and the row second, in one
 * transaction with the answer; when the row cannot be written the bytes are deleted, and a
 * crash in between leaves only an object no row names, which the orphan sweep removes.
 */
export async function uploadMedia(
  ctx: MediaContext,
  file: IncomingFile,
  options: UploadOptions,
): Promise<UploadResult> {
  const checked = await checkFile(ctx, file, options.limitBytes);
  if (!checked.ok) return checked;
  const { detected, digest } = checked;
  const unknown = await unknownLanguages(ctx, options.altTexts);
  if (unknown.length > 0) {
    return { ok: false, code: "unknown_locale", languages: unknown };
  }
  let source: MediaRow | null = null;
  if (options.editedFrom) {
    source = await readMediaRow(ctx.db, ctx.siteId, options.editedFrom);
    if (!source) {
      return {
        ok: false,
        code: "media_edit_source_not_found",
        edited_from: options.editedFrom,
      };
    }
  }
  const folderId = options.folderId !== undefined
    ? options.folderId
    : source?.folder_id ?? null;
  if (!await folderExists(ctx, folderId)) {
    return { ok: false, code: "media_folder_not_found", folder_id: folderId };
  }
  const onDuplicate = options.onDuplicate ?? "ask";
  if (onDuplicate !== "copy") {
    const same = await ctx.db.selectFrom("media_files").selectAll()
      .where("site_id", "=", ctx.siteId).where("digest", "=", digest)
      .where("external", "=", false)
      .orderBy("created_at").orderBy("id").execute() as MediaRow[];
    if (same.length > 0) {
      const existing = toItem(ctx.publicUrl, same[0]);
      if (onDuplicate === "ask") {
        return {
          ok: false,
          code: "media_duplicate",
          existing,
          copy_count: same.length,
        };
      }
      return { ok: true, created: false, item: existing, reused: true };
    }
  }
  const id = crypto.randomUUID();
  const objectId = crypto.randomUUID();
  const key = storageKeyOf(ctx.siteId, objectId, detected.format);
  await ctx.storage.put(key, file.bytes, detected.mimeType);
  const facts = detected.kind === "image"
    ? await imageFacts(file.bytes, detected.format)
    : null;
  const now = ctx.clock.now();
  const headerHasSize = detected.width !== null && detected.height !== null;
  const row: MediaRow = {
    id,
    site_id: ctx.siteId,
    folder_id: folderId,
    kind: detected.kind,
    object_id: objectId,
    storage_key: key,
    file_name: cleanFileName(file.fileName, detected.format),
    mime_type: detected.mimeType,
    format: detected.format,
    byte_length: file.bytes.length,
    // The header wins; the request's fields fill in only for files whose header has neither.
    width: headerHasSize ? detected.width : options.width ?? null,
    height: headerHasSize ? detected.height : options.height ?? null,
    aspect_ratio: headerHasSize ? null : options.aspectRatio ?? null,
    digest,
    alt_texts: { ...(source?.alt_texts as object ?? {}), ...options.altTexts },
    default_focal: source?.kind === "image" && detected.kind === "image"
      ? source.default_focal ?? null
      : null,
    loading: "lazy",
    fetch_priority: "auto",
    tags: source?.tags ?? [],
    credit: source?.credit ?? null,
    attribution: null,
    external: false,
    external_url: null,
    external_source: null,
    edited_from: source?.id ?? null,
    revision: 1,
    created_at: now,
    updated_at: now,
    placeholder: facts?.placeholder ?? null,
    dominant_color: facts?.dominant_color ?? null,
  };
  const item = toItem(ctx.publicUrl, row);
  try {
    await ctx.db.transaction().execute(async (tx) => {
      await tx.insertInto("media_files").values({
        ...row,
        alt_texts: JSON.stringify(row.alt_texts),
        default_focal: row.default_focal === null
          ? null
          : JSON.stringify(row.default_focal),
        tags: JSON.stringify(row.tags),
        attribution: null,
        external_source: null,
      }).execute();
      await recordWrite(tx, ctx, { created: true, item });
      await options.alsoRecord?.(tx, item);
      await queueMediaNotifications(tx, ctx.siteId, [item.id], {
        deleted: false,
        now,
      });
    });
  } catch (error) {
    await ctx.storage.delete(key).catch(() => {});
    throw error;
  }
  return { ok: true, created: true, item };
}

/** A display name: the client's base name without path, control characters or over-long tails. */
export function cleanFileName(name: string, format: string): string {
  const base = name.split(/[\\/]/).pop() ?? "";
  // deno-lint-ignore no-control-regex
  const clean = base.replace(/[\u0000-\u001f\u007f]/g, "").trim().slice(0, 200);
  return clean || `file.${format}`;
}
