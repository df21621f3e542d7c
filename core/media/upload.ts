// Adds files to the library: type from the bytes, site settings, duplicates by digest, bytes first, row second.
import type { Db } from "../db/database.ts";
import { queueMediaNotifications } from "../plugins/notifications.ts";
import { getSettings } from "../sites/settings.ts";
import { SETTINGS_SCHEMAS } from "../sites/settings_documents.ts";
import type { DetectedFile } from "./detect.ts";
import { type ImageFacts, storedImageFacts } from "./placeholder.ts";
import {
  type MediaRefusal,
  tooLarge,
  writeChecked,
  type WrittenFile,
} from "./write_checked.ts";
import {
  type MediaContext,
  type MediaItem,
  type MediaRow,
  readMediaRow,
  recordWrite,
  toItem,
} from "./items.ts";

export type { MediaRefusal } from "./write_checked.ts";

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

/**
 * A file that arrives as a stream (the admin's form): read once, stored while it arrives and
 * never gathered in memory.
 */
export interface StreamedFile {
  stream: ReadableStream<Uint8Array>;
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

/** An upload's success: a new item (201) or the existing one (200, `reused`). */
export type UploadResult =
  | { ok: true; created: true; item: MediaItem }
  | { ok: true; created: false; item: MediaItem; reused: true }
  | MediaRefusal;

/** The site's media-file settings, or null when none are stored or they no longer parse. */
async function mediaFileSettings(ctx: MediaContext) {
  const stored = await getSettings(ctx, "media-files");
  const parsed = SETTINGS_SCHEMAS["media-files"].safeParse(stored.document);
  return parsed.success ? parsed.data : null;
}

type MediaFileSettings = Awaited<ReturnType<typeof mediaFileSettings>>;

/** The refusal of a detected file by the site's settings (SET-003, MED-014), or null. */
function settingsRefusal(
  settings: MediaFileSettings,
  detected: DetectedFile,
): MediaRefusal | null {
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
  return null;
}

/** A file in storage that passed every check, under a key no row names yet. */
export interface StoredFile extends WrittenFile {
  /** Placeholder and dominant colour of an image (null for other files or when no image library can read it). */
  facts: ImageFacts | null;
}

/**
 * A file the Management API wrote to storage while its body arrived, before the idempotency
 * check (which needs the file's digest): `staged` is the written file, or the refusal found
 * while writing (nothing then stays stored). {@link storeFile} takes it over (`taken`) and
 * removes the object when a later check refuses it; a request that never gets there (a replay,
 * a refusal before the file is looked at) leaves `taken` false and the API removes the object.
 */
export interface StagedFile {
  staged:
    | { ok: true; written: WrittenFile }
    | { ok: false; refusal: MediaRefusal };
  /** The name the client gave; kept for display only, never used to decide the type. */
  fileName: string;
  /** Set by {@link storeFile} once it owns the stored object. */
  taken: boolean;
}

/** Bytes of one chunk when a buffered file is written as a stream. */
const CHUNK_BYTES = 64 * 1024;

function streamOf(bytes: Uint8Array): ReadableStream<Uint8Array> {
  let at = 0;
  return new ReadableStream({
    pull(controller) {
      if (at >= bytes.length) {
        controller.close();
        return;
      }
      controller.enqueue(bytes.subarray(at, at + CHUNK_BYTES));
      at += CHUNK_BYTES;
    },
  });
}

/**
 * Writes a Management API upload's file to storage while its body arrives (MED-006, MED-013,
 * MED-014): the type and the site's settings from its head, the limit at its first byte over,
 * the digest for the idempotency fingerprint. A file refused by its head is read to its end
 * unstored for the digest; one over the limit stops the body (`digest` null: the request is
 * refused before any key is claimed).
 */
export async function stageFile(
  ctx: MediaContext,
  stream: ReadableStream<Uint8Array>,
  limitBytes: number,
): Promise<
  { staged: StagedFile["staged"]; digest: string } | {
    tooLarge: MediaRefusal;
  }
> {
  const settings = await mediaFileSettings(ctx);
  const limit = Math.min(limitBytes, settings?.max_upload_bytes ?? limitBytes);
  const result = await writeChecked(ctx, stream, {
    limit,
    check: (detected) => Promise.resolve(settingsRefusal(settings, detected)),
    readToEnd: true,
  });
  if (result.ok) {
    return { staged: result, digest: result.written.digest };
  }
  if (result.digest === null) return { tooLarge: result.refusal };
  return {
    staged: { ok: false, refusal: result.refusal },
    digest: result.digest,
  };
}

/**
 * Checks `file` and writes it to storage under a new key while it arrives (MED-006, MED-013,
 * MED-014; {@link writeChecked}): a refused file is never stored, or removed when it is refused
 * after its last byte. `beforeStoring` adds the caller's checks of the detected file (kind of a
 * replaced item, folder, languages). A staged file was written already: its checks run now,
 * and a refusal removes it.
 */
export async function storeFile(
  ctx: MediaContext,
  file: IncomingFile | StreamedFile | StagedFile,
  limitBytes: number,
  beforeStoring?: (detected: DetectedFile) => Promise<MediaRefusal | null>,
): Promise<{ ok: true; stored: StoredFile } | MediaRefusal> {
  const settings = await mediaFileSettings(ctx);
  const check = async (detected: DetectedFile) =>
    settingsRefusal(settings, detected) ??
      await beforeStoring?.(detected) ?? null;
  let written: WrittenFile;
  if ("staged" in file) {
    file.taken = true;
    if (!file.staged.ok) return file.staged.refusal;
    written = file.staged.written;
    const refused = await check(written.detected).catch(async (error) => {
      await ctx.storage.delete(written.key).catch(() => {});
      throw error;
    });
    if (refused) {
      await ctx.storage.delete(written.key);
      return refused;
    }
  } else {
    const limit = Math.min(
      limitBytes,
      settings?.max_upload_bytes ?? limitBytes,
    );
    const buffered = "bytes" in file ? file.bytes : null;
    if (buffered && buffered.length > limit) {
      return tooLarge(limit, buffered.length);
    }
    const result = await writeChecked(
      ctx,
      buffered ? streamOf(buffered) : (file as StreamedFile).stream,
      { limit, check },
    );
    if (!result.ok) return result.refusal;
    written = result.written;
  }
  try {
    const facts = written.detected.kind === "image"
      ? await storedImageFacts(
        ctx,
        written,
        "bytes" in file ? file.bytes : null,
      )
      : null;
    return { ok: true, stored: { ...written, facts } };
  } catch (error) {
    await ctx.storage.delete(written.key).catch(() => {});
    throw error;
  }
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
 * Adds a file (MED-005 to MED-014). The bytes are written first, while they arrive, and the
 * row second, in one transaction with the answer; when the row cannot be written (or the bytes
 * turn out to be a duplicate) the bytes are deleted, and a crash in between leaves only an
 * object no row names, which the orphan sweep removes.
 */
export async function uploadMedia(
  ctx: MediaContext,
  file: IncomingFile | StreamedFile | StagedFile,
  options: UploadOptions,
): Promise<UploadResult> {
  let source: MediaRow | null = null;
  let folderId: string | null = null;
  const checked = await storeFile(ctx, file, options.limitBytes, async () => {
    const unknown = await unknownLanguages(ctx, options.altTexts);
    if (unknown.length > 0) {
      return { ok: false, code: "unknown_locale", languages: unknown };
    }
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
    folderId = options.folderId !== undefined
      ? options.folderId
      : (source as MediaRow | null)?.folder_id ?? null;
    if (!await folderExists(ctx, folderId)) {
      return { ok: false, code: "media_folder_not_found", folder_id: folderId };
    }
    return null;
  });
  if (!checked.ok) return checked;
  const { detected, digest, objectId, key, byteLength, facts } = checked.stored;
  try {
    return await recordUpload(ctx, file.fileName, options, {
      source: source as MediaRow | null,
      folderId,
      detected,
      digest,
      objectId,
      key,
      byteLength,
      facts,
    });
  } catch (error) {
    await ctx.storage.delete(key).catch(() => {});
    throw error;
  }
}

async function recordUpload(
  ctx: MediaContext,
  fileName: string,
  options: UploadOptions,
  stored: StoredFile & { source: MediaRow | null; folderId: string | null },
): Promise<UploadResult> {
  const { source, folderId, detected, digest, objectId, key, facts } = stored;
  const onDuplicate = options.onDuplicate ?? "ask";
  if (onDuplicate !== "copy") {
    const same = await ctx.db.selectFrom("media_files").selectAll()
      .where("site_id", "=", ctx.siteId).where("digest", "=", digest)
      .where("external", "=", false)
      .orderBy("created_at").orderBy("id").execute() as MediaRow[];
    if (same.length > 0) {
      await ctx.storage.delete(key);
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
  const now = ctx.clock.now();
  const headerHasSize = detected.width !== null && detected.height !== null;
  const row: MediaRow = {
    id,
    site_id: ctx.siteId,
    folder_id: folderId,
    kind: detected.kind,
    object_id: objectId,
    storage_key: key,
    file_name: cleanFileName(fileName, detected.format),
    mime_type: detected.mimeType,
    format: detected.format,
    byte_length: stored.byteLength,
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
  return { ok: true, created: true, item };
}

/** A display name: the client's base name without path, control characters or over-long tails. */
export function cleanFileName(name: string, format: string): string {
  const base = name.split(/[\\/]/).pop() ?? "";
  // deno-lint-ignore no-control-regex
  const clean = base.replace(/[\u0000-\u001f\u007f]/g, "").trim().slice(0, 200);
  return clean || `file.${format}`;
}
