// Which entries use a media item, within what the reader may see, and removing a file nothing uses.
import { sql } from "kysely";
import type { Db } from "../db/database.ts";
import { queueMediaNotifications } from "../plugins/notifications.ts";
import { releaseObjects } from "./cleanup.ts";
import { type MediaContext, readMediaRow, recordWrite } from "./items.ts";
import type { MediaRefusal } from "./upload.ts";

/** Readable entries listed at most (spec 2 part 8). */
export const USED_BY_LIMIT = 50;
/** Entries counted at most; beyond it `total` is null and `at_least` says how many were seen. */
export const USAGE_SCAN_LIMIT = 1000;

/** One entry using the file. */
export interface UsedBy {
  entry_id: string;
  group_id: string;
  model_id: string;
  locale: string;
  slug: string;
}

/** Usage as `GET /media/{id}/usage` answers it (MED-024). */
export interface MediaUsage {
  used_by: UsedBy[];
  /** Entries the reader may not read: counted, never named. */
  hidden: number;
  /** A lower bound of the entries using the file. */
  at_least: number;
  /** Every entry using the file, or null when the count was capped or some are unreadable. */
  total: number | null;
  /** True when more readable entries exist than `used_by` lists. */
  more: boolean;
  /** True when some entries using the file are not readable by the reader. */
  unreadable: boolean;
}

/**
 * Entries whose current or published version names the media id anywhere in its values
 * (media fields, rich-text blocks and galleries, page documents), Trash included, since a
 * restore brings them back.
 */
export async function readUsage(
  db: Db,
  siteId: string,
  mediaId: string,
  canRead: (modelId: string) => boolean,
): Promise<MediaUsage> {
  const needle = `%${mediaId}%`;
  const rows = await sql<UsedBy>`
    select e.id as entry_id, e.group_id, e.model_id, e.locale, e.slug
    from entries e
    where e.site_id = ${siteId} and exists (
      select 1 from entry_versions v
      where v.site_id = e.site_id
        and v.id in (e.current_version_id, e.published_version_id)
        and v.fields::text like ${needle})
    order by e.model_id, e.slug, e.locale, e.id
    limit ${USAGE_SCAN_LIMIT + 1}
  `.execute(db);
  const capped = rows.rows.length > USAGE_SCAN_LIMIT;
  const seen = rows.rows.slice(0, USAGE_SCAN_LIMIT);
  const readable = seen.filter((r) => canRead(r.model_id));
  const hidden = seen.length - readable.length;
  return {
    used_by: readable.slice(0, USED_BY_LIMIT),
    hidden,
    at_least: seen.length,
    total: capped || hidden > 0 ? null : seen.length,
    more: readable.length > USED_BY_LIMIT || capped,
    unreadable: hidden > 0,
  };
}

/** Options of {@linkcode removeMedia}. */
export interface RemoveMediaOptions {
  /** Written in the removal's own transaction (an audit entry): if it fails, nothing is removed. */
  alsoRecord?: (tx: Db) => Promise<void>;
}

/** Deletes a file nothing references, then its stored objects (MED-025, MED-026). */
export async function removeMedia(
  ctx: MediaContext,
  id: string,
  canRead: (modelId: string) => boolean,
  options: RemoveMediaOptions = {},
): Promise<
  | { ok: true; id: string; storage_cleanup: "complete" | "pending" }
  | MediaRefusal
> {
  const row = await readMediaRow(ctx.db, ctx.siteId, id);
  if (!row) return { ok: false, code: "not_found" };
  let usage: MediaUsage;
  try {
    usage = await readUsage(ctx.db, ctx.siteId, id, canRead);
  } catch (error) {
    // A file whose usage cannot be read may be in use: refuse rather than delete (MED-026).
    if (!isDatabaseError(error)) throw error;
    return {
      ok: false,
      code: "media_usage_unreadable",
      detail: "the entries using it could not be read; nothing was removed",
    };
  }
  if (usage.at_least > 0) {
    return { ok: false, code: "media_in_use", usage };
  }
  const originals = await ctx.db.selectFrom("media_originals").select(
    "storage_key",
  ).where("site_id", "=", ctx.siteId).where("media_id", "=", id).execute();
  // A reference import keeps no bytes of its own: removing it removes the row only.
  const keys = row.external
    ? []
    : [row.storage_key, ...originals.map((o) => o.storage_key)];
  const now = ctx.clock.now();
  await ctx.db.transaction().execute(async (tx) => {
    await tx.deleteFrom("media_files").where("site_id", "=", ctx.siteId)
      .where("id", "=", id).execute();
    for (const key of keys) {
      await tx.insertInto("media_cleanup").values({
        storage_key: key,
        site_id: ctx.siteId,
        since: now,
        attempts: 0,
      }).onConflict((oc) => oc.doNothing()).execute();
    }
    await recordWrite(tx, ctx, { id, keys });
    await queueMediaNotifications(tx, ctx.siteId, [id], { deleted: true, now });
    await options.alsoRecord?.(tx);
  });
  const storage_cleanup = await releaseObjects(ctx, keys);
  return { ok: true, id, storage_cleanup };
}

/** An error PostgreSQL (or PGlite) raised, carrying a five-character SQLSTATE. */
function isDatabaseError(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" && /^[0-9A-Z]{5}$/.test(code);
}

/** The answer of a removal whose answer was lost: cleanup state is read again. */
export async function provedRemoval(
  db: Db,
  answer: unknown,
): Promise<{ id: string; storage_cleanup: "complete" | "pending" }> {
  const { id, keys } = answer as { id: string; keys: string[] };
  const left = keys.length === 0 ? [] : await db.selectFrom("media_cleanup")
    .select("storage_key").where("storage_key", "in", keys).execute();
  return { id, storage_cleanup: left.length > 0 ? "pending" : "complete" };
}
