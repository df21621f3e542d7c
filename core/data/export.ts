// Whole-site exports built one bounded step at a time into a Stave archive
// (docs/imports-exports.md): head (languages, models), media, entries, then the seal.
import type { Db } from "../db/database.ts";
import type { MediaStorage } from "../media/storage.ts";
import { listModels } from "../models/model_reads.ts";
import { toWireModel } from "../models/wire.ts";
import { listSiteLanguages } from "../sites/languages.ts";
import { sha256Hex } from "../kv/digest.ts";
import {
  ARCHIVE_FORMAT,
  ARCHIVE_VERSION,
  type ArchiveCounts,
  encodeRecord,
  type EntryLanguage,
} from "./archive.ts";
import { appendToFile, digestFile, joinBytes, toBase64 } from "./files.ts";
import {
  insertJob,
  type JobChange,
  type JobContext,
  type JobRow,
} from "./jobs.ts";

/** Media items written per export step (each carries its bytes). */
export const EXPORT_MEDIA_BATCH = 10;
/** Entries (translation groups) written per export step. */
export const EXPORT_ENTRY_BATCH = 200;

/** Where an export's next step starts. */
export interface ExportCursor {
  phase: "head" | "media" | "entries" | "seal" | "done";
  /** The last id written in this phase. */
  after: string | null;
}

/** Options an export is created with. */
export interface ExportOptions {
  include_media: boolean;
}

/** What the export steps need beyond the job context. */
export interface ExportContext extends JobContext {
  storage: MediaStorage;
  defaultLanguage: string;
}

/** Creates an export job; its first step runs on the first advance. */
export async function createExport(
  ctx: JobContext,
  options: ExportOptions,
): Promise<JobRow> {
  const job = await insertJob(ctx, {
    kind: "export",
    state: "building",
    options: { ...options },
  });
  const cursor: ExportCursor = { phase: "head", after: null };
  return await ctx.db.updateTable("data_jobs")
    .set({ cursor: JSON.stringify(cursor) }).where("id", "=", job.id)
    .returningAll().executeTakeFirstOrThrow();
}

function countsOf(job: JobRow): ArchiveCounts {
  const counts = job.counts as Partial<ArchiveCounts>;
  return {
    languages: counts.languages ?? 0,
    models: counts.models ?? 0,
    media: counts.media ?? 0,
    entries: counts.entries ?? 0,
  };
}

/** Runs the export's next step; the caller holds the job's lease (`runStep`). */
export async function exportStep(
  ctx: ExportContext,
  job: JobRow,
): Promise<JobChange> {
  const cursor = job.cursor as ExportCursor;
  const options = job.options as ExportOptions;
  const counts = countsOf(job);
  const write = (lines: Uint8Array[]) =>
    appendToFile(ctx.db, job.id, "export", joinBytes(lines));
  switch (cursor.phase) {
    case "head": {
      const lines = [encodeRecord({
        type: ARCHIVE_FORMAT,
        version: ARCHIVE_VERSION,
        exported_at: ctx.clock.now().toISOString(),
        default_language: ctx.defaultLanguage,
      })];
      for (const language of await listSiteLanguages(ctx.db, ctx.siteId)) {
        lines.push(encodeRecord({ type: "language", code: language.code }));
        counts.languages++;
      }
      const models = await listModels(ctx);
      for (const model of models) {
        const wire = toWireModel(model);
        lines.push(encodeRecord({
          type: "model",
          id: wire.model_id,
          definition: wire.definition,
        }));
        counts.models++;
      }
      await write(lines);
      return {
        cursor: {
          phase: options.include_media ? "media" : "entries",
          after: null,
        },
        counts,
      };
    }
    case "media": {
      const rows = await ctx.db.selectFrom("media_files")
        .select(["id", "file_name", "alt_texts", "storage_key", "external"])
        .where("site_id", "=", ctx.siteId).where("external", "=", false)
        .$if(cursor.after !== null, (q) => q.where("id", ">", cursor.after!))
        .orderBy("id").limit(EXPORT_MEDIA_BATCH).execute();
      const lines: Uint8Array[] = [];
      for (const row of rows) {
        const bytes = await readAll(ctx.storage, row.storage_key);
        lines.push(encodeRecord({
          type: "media",
          id: row.id,
          file_name: row.file_name,
          alt_texts: row.alt_texts,
          sha256: await sha256Hex(bytes),
          content_base64: toBase64(bytes),
        }));
        counts.media++;
      }
      await write(lines);
      const done = rows.length < EXPORT_MEDIA_BATCH;
      return {
        cursor: done
          ? { phase: "entries", after: null }
          : { phase: "media", after: rows.at(-1)!.id },
        counts,
      };
    }
    case "entries": {
      const groups = await ctx.db.selectFrom("entry_groups")
        .select(["id", "model_id"])
        .where("site_id", "=", ctx.siteId).where("trashed_at", "is", null)
        .$if(cursor.after !== null, (q) => q.where("id", ">", cursor.after!))
        .orderBy("id").limit(EXPORT_ENTRY_BATCH).execute();
      const languages = await entryLanguages(
        ctx.db,
        ctx.siteId,
        groups.map((g) => g.id),
      );
      const lines: Uint8Array[] = [];
      for (const group of groups) {
        const found = languages.get(group.id) ?? [];
        if (found.length === 0) continue;
        lines.push(encodeRecord({
          type: "entry",
          id: group.id,
          model_id: group.model_id,
          languages: found,
        }));
        counts.entries++;
      }
      await write(lines);
      const done = groups.length < EXPORT_ENTRY_BATCH;
      return {
        cursor: done
          ? { phase: "seal", after: null }
          : { phase: "entries", after: groups.at(-1)!.id },
        counts,
      };
    }
    case "seal": {
      await write([encodeRecord({ type: "end", counts })]);
      const file = await digestFile(ctx.db, job.id, "export");
      return {
        cursor: { phase: "done", after: null },
        state: "ready",
        file,
        counts,
        finished: true,
      };
    }
    case "done":
      throw new Error(`Export ${job.id} has no step left`);
  }
}

async function readAll(
  storage: MediaStorage,
  key: string,
): Promise<Uint8Array> {
  const stream = await storage.read(key);
  if (!stream) {
    throw new Error(`Cannot export media: no stored object "${key}"`);
  }
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

/** Each group's languages: published values and, when newer, the current draft's. */
async function entryLanguages(
  db: Db,
  siteId: string,
  groupIds: string[],
): Promise<Map<string, EntryLanguage[]>> {
  const out = new Map<string, EntryLanguage[]>();
  if (groupIds.length === 0) return out;
  const instances = await db.selectFrom("entries")
    .select([
      "id",
      "group_id",
      "locale",
      "slug",
      "current_version_id",
      "published_version_id",
    ])
    .where("site_id", "=", siteId).where("group_id", "in", groupIds)
    .orderBy("group_id").orderBy("locale").execute();
  const versionIds = instances.flatMap((i) =>
    [i.current_version_id, i.published_version_id].filter((v): v is string =>
      v !== null
    )
  );
  const versions = new Map<string, Record<string, unknown>>();
  if (versionIds.length > 0) {
    const rows = await db.selectFrom("entry_versions").select(["id", "fields"])
      .where("site_id", "=", siteId).where("id", "in", versionIds).execute();
    for (const row of rows) {
      versions.set(row.id, row.fields as Record<string, unknown>);
    }
  }
  for (const instance of instances) {
    const published = instance.published_version_id
      ? versions.get(instance.published_version_id) ?? null
      : null;
    const current = instance.current_version_id &&
        instance.current_version_id !== instance.published_version_id
      ? versions.get(instance.current_version_id) ?? null
      : null;
    if (published === null && current === null) continue;
    const list = out.get(instance.group_id) ?? [];
    list.push({
      locale: instance.locale,
      id: instance.id,
      slug: instance.slug,
      published,
      current,
    });
    out.set(instance.group_id, list);
  }
  return out;
}
