// Changes to library items: metadata, replacing the bytes, per-language originals, moving files.
import {
  deliveryUrl,
  type Focal,
  type MediaContext,
  type MediaItem,
  readMediaRow,
  recordWrite,
  toItem,
} from "./items.ts";
import {
  folderExists,
  type IncomingFile,
  type MediaRefusal,
  siteLanguages,
  type StagedFile,
  storeFile,
  type StreamedFile,
  unknownLanguages,
} from "./upload.ts";
import { releaseObjects } from "./cleanup.ts";
import { localeChainsOf } from "./locales.ts";
import { logPublicMediaChange } from "./sync_log.ts";
import { queueMediaNotifications } from "../plugins/notifications.ts";

/** What `PUT /media/{id}` may change (MED-015). */
export interface MediaChanges {
  /** Language -> text; an omitted language keeps its text, an empty string clears it. */
  alt_texts?: Record<string, string>;
  default_focal?: Focal | null;
  loading?: "eager" | "lazy";
  fetch_priority?: "high" | "low" | "auto";
}

/** Changes metadata only; file, dimensions and address never change (MED-015, MED-016, MED-018). */
export async function updateMedia(
  ctx: MediaContext,
  id: string,
  changes: MediaChanges,
): Promise<{ ok: true; item: MediaItem } | MediaRefusal> {
  const row = await readMediaRow(ctx.db, ctx.siteId, id);
  if (!row) return { ok: false, code: "not_found" };
  if (row.external) {
    return { ok: false, code: "media_external_bytes_unavailable" };
  }
  if (changes.default_focal !== undefined && changes.default_focal !== null) {
    if (row.kind !== "image") {
      return { ok: false, code: "media_framing_not_image", kind: row.kind };
    }
  }
  const unknown = await unknownLanguages(ctx, changes.alt_texts);
  if (unknown.length > 0) {
    return { ok: false, code: "unknown_locale", languages: unknown };
  }
  const alt = { ...(row.alt_texts as Record<string, string>) };
  for (const [lang, text] of Object.entries(changes.alt_texts ?? {})) {
    if (text === "") delete alt[lang];
    else alt[lang] = text;
  }
  const now = ctx.clock.now();
  const next = {
    ...row,
    alt_texts: alt,
    default_focal: changes.default_focal !== undefined
      ? changes.default_focal
      : row.default_focal,
    loading: changes.loading ?? row.loading,
    fetch_priority: changes.fetch_priority ?? row.fetch_priority,
    revision: row.revision + 1,
    updated_at: now,
  };
  const item = toItem(ctx.publicUrl, next);
  await ctx.db.transaction().execute(async (tx) => {
    await tx.updateTable("media_files").set({
      alt_texts: JSON.stringify(next.alt_texts),
      default_focal: next.default_focal === null
        ? null
        : JSON.stringify(next.default_focal),
      loading: next.loading,
      fetch_priority: next.fetch_priority,
      revision: next.revision,
      updated_at: now,
    }).where("site_id", "=", ctx.siteId).where("id", "=", id).execute();
    await logPublicMediaChange(tx, ctx.siteId, id, now);
    await recordWrite(tx, ctx, item);
    await queueMediaNotifications(tx, ctx.siteId, [id], {
      deleted: false,
      now,
    });
  });
  return { ok: true, item };
}

/** What a replace may name besides the file; omitted fields keep their values (MED-017). */
export interface ReplaceOptions {
  altTexts?: Record<string, string>;
  width?: number;
  height?: number;
  aspectRatio?: string;
  limitBytes: number;
}

/**
 * Replaces the bytes keeping id, references, folder, tags, credit and framing (MED-017). The
 * new bytes get a new object (and URL); the old object is released after the commit.
 */
export async function replaceMedia(
  ctx: MediaContext,
  id: string,
  file: IncomingFile | StreamedFile | StagedFile,
  options: ReplaceOptions,
): Promise<{ ok: true; item: MediaItem } | MediaRefusal> {
  const row = await readMediaRow(ctx.db, ctx.siteId, id);
  if (!row) return { ok: false, code: "not_found" };
  if (row.external) {
    return { ok: false, code: "media_external_bytes_unavailable" };
  }
  const checked = await storeFile(
    ctx,
    file,
    options.limitBytes,
    async (detected) => {
      if (detected.kind !== row.kind) {
        // References were checked against the kind; a replace must not break them.
        return {
          ok: false,
          code: "unsupported_media_type",
          reason: "kind_changed",
          detail: `A ${row.kind} can only be replaced by another ${row.kind}`,
        };
      }
      const unknown = await unknownLanguages(ctx, options.altTexts);
      if (unknown.length > 0) {
        return { ok: false, code: "unknown_locale", languages: unknown };
      }
      return null;
    },
  );
  if (!checked.ok) return checked;
  const { detected, digest, objectId, key, facts, byteLength } = checked.stored;
  const now = ctx.clock.now();
  const headerHasSize = detected.width !== null && detected.height !== null;
  const next = {
    ...row,
    placeholder: facts?.placeholder ?? null,
    dominant_color: facts?.dominant_color ?? null,
    object_id: objectId,
    storage_key: key,
    file_name: file.fileName ? file.fileName.slice(0, 200) : row.file_name,
    mime_type: detected.mimeType,
    format: detected.format,
    byte_length: byteLength,
    width: headerHasSize ? detected.width : options.width ?? row.width,
    height: headerHasSize ? detected.height : options.height ?? row.height,
    aspect_ratio: headerHasSize
      ? null
      : options.aspectRatio ?? row.aspect_ratio,
    digest,
    alt_texts: {
      ...(row.alt_texts as Record<string, string>),
      ...options.altTexts,
    },
    revision: row.revision + 1,
    updated_at: now,
  };
  const item = toItem(ctx.publicUrl, next);
  try {
    await ctx.db.transaction().execute(async (tx) => {
      await tx.updateTable("media_files").set({
        object_id: objectId,
        storage_key: key,
        file_name: next.file_name,
        mime_type: next.mime_type,
        format: next.format,
        byte_length: next.byte_length,
        width: next.width,
        height: next.height,
        aspect_ratio: next.aspect_ratio,
        digest,
        placeholder: next.placeholder,
        dominant_color: next.dominant_color,
        alt_texts: JSON.stringify(next.alt_texts),
        revision: next.revision,
        updated_at: now,
      }).where("site_id", "=", ctx.siteId).where("id", "=", id).execute();
      await tx.insertInto("media_cleanup").values({
        storage_key: row.storage_key,
        site_id: ctx.siteId,
        since: now,
        attempts: 0,
      }).onConflict((oc) => oc.doNothing()).execute();
      await logPublicMediaChange(tx, ctx.siteId, id, now);
      await recordWrite(tx, ctx, item);
      await queueMediaNotifications(tx, ctx.siteId, [id], {
        deleted: false,
        now,
      });
    });
  } catch (error) {
    await ctx.storage.delete(key).catch(() => {});
    throw error;
  }
  await releaseObjects(ctx, [row.storage_key]);
  return { ok: true, item };
}

/** One language's original as `GET /media/{id}/originals` lists it (MED-019). */
export interface OriginalView {
  lang: string;
  /** True when this language has its own override; else it follows the fallback chain. */
  override: boolean;
  /** The language whose file is served (an override's own, a fallback's, or null: the default file). */
  served_from: string | null;
  object_id: string;
  url: string | null;
  mime_type: string;
  byte_length: number;
  width: number | null;
  height: number | null;
}

/** Every site language's original: its override, else the fallback chain's, else the default (MED-023). */
export async function readOriginals(
  ctx: MediaContext,
  id: string,
): Promise<
  { ok: true; media_id: string; data: OriginalView[] } | MediaRefusal
> {
  const row = await readMediaRow(ctx.db, ctx.siteId, id);
  if (!row) return { ok: false, code: "not_found" };
  const overrides = await ctx.db.selectFrom("media_originals").selectAll()
    .where("site_id", "=", ctx.siteId).where("media_id", "=", id).execute();
  const byLang = new Map(overrides.map((o) => [o.lang, o]));
  const chains = await localeChainsOf(ctx.db, ctx.siteId);
  const data: OriginalView[] = [];
  for (const lang of await siteLanguages(ctx)) {
    const from = (chains.get(lang) ?? [lang]).find((l) => byLang.has(l)) ??
      null;
    const o = from ? byLang.get(from)! : null;
    data.push({
      lang,
      override: byLang.has(lang),
      served_from: from,
      object_id: o ? o.object_id : row.object_id,
      url: deliveryUrl(
        ctx.publicUrl,
        ctx.siteId,
        o ? o.object_id : row.object_id,
        o ? o.format : row.format,
      ),
      mime_type: o ? o.mime_type : row.mime_type,
      byte_length: Number(o ? o.byte_length : row.byte_length),
      width: o ? o.width : row.width,
      height: o ? o.height : row.height,
    });
  }
  return { ok: true, media_id: id, data };
}

/**
 * Sets one language's original when `expectedObjectId` is the current override's object id
 * (empty string: there is none yet); else `media_changed` (MED-020, MED-022).
 */
export async function putOriginal(
  ctx: MediaContext,
  id: string,
  lang: string,
  file: IncomingFile | StreamedFile | StagedFile,
  options: { expectedObjectId: string; limitBytes: number },
): Promise<
  { ok: true; media_id: string; data: OriginalView[] } | MediaRefusal
> {
  const row = await readMediaRow(ctx.db, ctx.siteId, id);
  if (!row) return { ok: false, code: "not_found" };
  if (row.external) {
    return { ok: false, code: "media_external_bytes_unavailable" };
  }
  if (!(await siteLanguages(ctx)).includes(lang)) {
    return { ok: false, code: "unknown_locale", languages: [lang] };
  }
  const current = await ctx.db.selectFrom("media_originals").selectAll()
    .where("site_id", "=", ctx.siteId).where("media_id", "=", id)
    .where("lang", "=", lang).executeTakeFirst();
  if ((current?.object_id ?? "") !== options.expectedObjectId) {
    return {
      ok: false,
      code: "media_changed",
      current_object_id: current?.object_id ?? "",
    };
  }
  const checked = await storeFile(
    // A language's original shares the default original's placeholder: none is computed.
    { ...ctx, imageLibrary: "none" },
    file,
    options.limitBytes,
    (detected) =>
      Promise.resolve(
        detected.kind === row.kind ? null : {
          ok: false,
          code: "unsupported_media_type",
          reason: "kind_changed",
          detail: `A ${row.kind} can only have ${row.kind} originals`,
        },
      ),
  );
  if (!checked.ok) return checked;
  const { detected, objectId, key, byteLength } = checked.stored;
  const now = ctx.clock.now();
  let stale = false;
  try {
    await ctx.db.transaction().execute(async (tx) => {
      // The pin is checked again in the transaction: of two racing writes one is refused.
      const values = {
        object_id: objectId,
        storage_key: key,
        mime_type: detected.mimeType,
        format: detected.format,
        byte_length: byteLength,
        width: detected.width,
        height: detected.height,
        created_at: now,
      };
      if (current) {
        const done = await tx.updateTable("media_originals").set(values)
          .where("site_id", "=", ctx.siteId).where("media_id", "=", id)
          .where("lang", "=", lang).where("object_id", "=", current.object_id)
          .executeTakeFirst();
        if (Number(done.numUpdatedRows) !== 1) {
          stale = true;
          throw new StaleOriginal();
        }
        await tx.insertInto("media_cleanup").values({
          storage_key: current.storage_key,
          site_id: ctx.siteId,
          since: now,
          attempts: 0,
        }).onConflict((oc) => oc.doNothing()).execute();
      } else {
        const done = await tx.insertInto("media_originals").values({
          site_id: ctx.siteId,
          media_id: id,
          lang,
          ...values,
        }).onConflict((oc) => oc.doNothing()).returning("lang")
          .executeTakeFirst();
        if (!done) {
          stale = true;
          throw new StaleOriginal();
        }
      }
      await tx.updateTable("media_files").set({
        revision: row.revision + 1,
        updated_at: now,
      }).where("site_id", "=", ctx.siteId).where("id", "=", id).execute();
      await logPublicMediaChange(tx, ctx.siteId, id, now);
      await recordWrite(tx, ctx, { media_id: id, lang, object_id: objectId });
      await queueMediaNotifications(tx, ctx.siteId, [id], {
        deleted: false,
        now,
      });
    });
  } catch (error) {
    await ctx.storage.delete(key).catch(() => {});
    if (stale) return { ok: false, code: "media_changed" };
    throw error;
  }
  if (current) await releaseObjects(ctx, [current.storage_key]);
  return await readOriginals(ctx, id);
}

class StaleOriginal extends Error {}

/** Removes one language's override when `expectedObjectId` names it (MED-021, MED-022). */
export async function deleteOriginal(
  ctx: MediaContext,
  id: string,
  lang: string,
  expectedObjectId: string,
): Promise<
  { ok: true; media_id: string; data: OriginalView[] } | MediaRefusal
> {
  const row = await readMediaRow(ctx.db, ctx.siteId, id);
  if (!row) return { ok: false, code: "not_found" };
  const current = await ctx.db.selectFrom("media_originals").selectAll()
    .where("site_id", "=", ctx.siteId).where("media_id", "=", id)
    .where("lang", "=", lang).executeTakeFirst();
  if (!current || current.object_id !== expectedObjectId) {
    return {
      ok: false,
      code: "media_changed",
      current_object_id: current?.object_id ?? "",
    };
  }
  const now = ctx.clock.now();
  await ctx.db.transaction().execute(async (tx) => {
    await tx.deleteFrom("media_originals").where("site_id", "=", ctx.siteId)
      .where("media_id", "=", id).where("lang", "=", lang)
      .where("object_id", "=", current.object_id).execute();
    await tx.insertInto("media_cleanup").values({
      storage_key: current.storage_key,
      site_id: ctx.siteId,
      since: now,
      attempts: 0,
    }).onConflict((oc) => oc.doNothing()).execute();
    await tx.updateTable("media_files").set({
      revision: row.revision + 1,
      updated_at: now,
    }).where("site_id", "=", ctx.siteId).where("id", "=", id).execute();
    await logPublicMediaChange(tx, ctx.siteId, id, now);
    await recordWrite(tx, ctx, { media_id: id, lang, removed: true });
    await queueMediaNotifications(tx, ctx.siteId, [id], {
      deleted: false,
      now,
    });
  });
  await releaseObjects(ctx, [current.storage_key]);
  return await readOriginals(ctx, id);
}

/** Moves 1 to 200 files to one folder or Unfiled (MED-034). */
export async function moveMedia(
  ctx: MediaContext,
  ids: string[],
  folderId: string | null,
): Promise<
  { ok: true; moved: number; folder_id: string | null } | MediaRefusal
> {
  if (!await folderExists(ctx, folderId)) {
    return { ok: false, code: "media_folder_not_found", folder_id: folderId };
  }
  const unique = [...new Set(ids)];
  const found = await ctx.db.selectFrom("media_files").select("id")
    .where("site_id", "=", ctx.siteId).where("id", "in", unique).execute();
  if (found.length !== unique.length) {
    const have = new Set(found.map((r) => r.id));
    return {
      ok: false,
      code: "not_found",
      missing: unique.filter((id) => !have.has(id)),
    };
  }
  const answer = {
    ok: true as const,
    moved: unique.length,
    folder_id: folderId,
  };
  await ctx.db.transaction().execute(async (tx) => {
    const now = ctx.clock.now();
    await tx.updateTable("media_files").set({
      folder_id: folderId,
      updated_at: now,
    }).where("site_id", "=", ctx.siteId).where("id", "in", unique).execute();
    await recordWrite(tx, ctx, { moved: answer.moved, folder_id: folderId });
    await queueMediaNotifications(tx, ctx.siteId, unique, {
      deleted: false,
      now,
    });
  });
  return answer;
}
