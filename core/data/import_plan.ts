// The plan of an import (docs/imports-exports.md): read the archive, check and stage every
// line, then match its languages and models against the site; problems block the import.
import { decide } from "../access/decide.ts";
import type { Authority } from "../access/authority.ts";
import { sql } from "kysely";
import type { Db } from "../db/database.ts";
import type { LifecycleContext } from "../entries/mod.ts";
import type { MediaStorage } from "../media/storage.ts";
import { listModels } from "../models/model_reads.ts";
import type { StoredModel } from "../models/store_rows.ts";
import { listSiteLanguages } from "../sites/languages.ts";
import {
  type ArchiveCounts,
  type BodyRecord,
  decodeLine,
  type EntryRecord,
  forEachLine,
  type LineProblem,
  type ModelRecord,
} from "./archive.ts";
import { readParts } from "./files.ts";
import {
  INLINE_PROBLEMS,
  type JobContext,
  type JobProblem,
  type JobRow,
} from "./jobs.ts";

/** What an import source decides for every import made from it. */
export interface SourceOptions {
  /** `as_archived`: languages published in the archive are published; `drafts`: nothing is. */
  publish: "as_archived" | "drafts";
}

/** Archive lines staged per insert while planning. */
const STAGE_BATCH = 200;

/** What the plan found: what will be created and what matched. */
export interface ImportPlan {
  languages: { code: string; action: "present" | "create" }[];
  models: {
    id: string;
    slug: string;
    action: "match" | "create";
    target_id: string | null;
  }[];
  counts: ArchiveCounts;
}

/** What the import steps need beyond the job context. */
export interface ImportContext extends JobContext {
  authority: Authority;
  storage: MediaStorage;
  publicUrl: string;
  /** The lifecycle context entries are saved and published through (the caller as actor). */
  lifecycle: LifecycleContext;
  /** Largest media file: `apiUploadLimit()` of the plan limit. */
  uploadLimitBytes: number;
}

/** Reads the archive, checks every line and stages the records; a bad line fails the import. */
export async function stageArchive(
  ctx: ImportContext,
  job: JobRow,
): Promise<{ ok: true } | { ok: false; problems: LineProblem[] }> {
  await ctx.db.deleteFrom("data_import_records").where("job_id", "=", job.id)
    .execute();
  const problems: LineProblem[] = [];
  const counts: ArchiveCounts = {
    languages: 0,
    models: 0,
    media: 0,
    entries: 0,
  };
  let staged: { seq: number; type: string; record: string }[] = [];
  let end: { line: number; counts: ArchiveCounts } | null = null;
  let lastLine = 0;
  const flush = async () => {
    if (staged.length === 0) return;
    await ctx.db.insertInto("data_import_records").values(
      staged.map((s) => ({ job_id: job.id, ...s })),
    ).execute();
    staged = [];
  };
  await forEachLine(
    readParts(ctx.db, job.id, "archive"),
    async (read) => {
      const line = read.line;
      lastLine = line;
      const decoded = read.ok
        ? decodeLine(read.text, line)
        : { ok: false as const, problem: read.problem };
      if (!decoded.ok) {
        problems.push(decoded.problem);
        return problems.length < INLINE_PROBLEMS;
      }
      if (line === 1) return;
      const record = decoded.record as BodyRecord;
      if (end) {
        problems.push({
          code: "import_archive_invalid",
          line,
          message: "a record after the end record",
        });
        return;
      }
      if (record.type === "end") {
        end = { line, counts: record.counts };
        return;
      }
      counts[
        record.type === "language"
          ? "languages"
          : record.type === "model"
          ? "models"
          : record.type === "media"
          ? "media"
          : "entries"
      ]++;
      staged.push({
        seq: line,
        type: record.type,
        record: JSON.stringify(record),
      });
      if (staged.length >= STAGE_BATCH) await flush();
    },
  );
  if (problems.length === 0 && lastLine === 0) {
    problems.push({
      code: "import_archive_invalid",
      line: 1,
      message: "the archive is empty",
    });
  }
  const closing = end as { line: number; counts: ArchiveCounts } | null;
  if (problems.length === 0 && !closing) {
    problems.push({
      code: "import_archive_invalid",
      line: lastLine + 1,
      message: "no end record: the archive is cut short",
    });
  }
  if (
    problems.length === 0 && closing &&
    JSON.stringify(closing.counts) !== JSON.stringify(counts)
  ) {
    problems.push({
      code: "import_archive_invalid",
      line: closing.line,
      message: `the end record counts ${
        JSON.stringify(closing.counts)
      }, the archive holds ${JSON.stringify(counts)}`,
    });
  }
  if (problems.length > 0) return { ok: false, problems };
  await flush();
  // Every archived entry and language gets its id in this site now, so references between
  // entries can be rewritten whatever order they are imported in.
  let after = 0;
  while (true) {
    const rows = await stagedRecords(ctx.db, job.id, "entry", after, 500);
    if (rows.length === 0) break;
    const ids = rows.flatMap(({ record }) => {
      const entry = record as EntryRecord;
      return [entry.id, ...entry.languages.map((l) => l.id)];
    });
    await ctx.db.insertInto("data_import_ids").values(
      ids.map((old) => ({
        job_id: job.id,
        old_id: old,
        new_id: crypto.randomUUID(),
        kind: "entry" as const,
      })),
    ).onConflict((oc) => oc.columns(["job_id", "old_id"]).doNothing())
      .execute();
    after = rows.at(-1)!.seq;
  }
  return { ok: true };
}

export async function stagedRecords(
  db: Db,
  jobId: string,
  type: string,
  after: number,
  limit: number,
): Promise<{ seq: number; record: unknown }[]> {
  return await db.selectFrom("data_import_records").select(["seq", "record"])
    .where("job_id", "=", jobId).where("type", "=", type)
    .where("seq", ">", after).orderBy("seq").limit(limit).execute();
}

export async function allStaged<T>(
  db: Db,
  jobId: string,
  type: string,
): Promise<T[]> {
  const rows = await db.selectFrom("data_import_records").select("record")
    .where("job_id", "=", jobId).where("type", "=", type).orderBy("seq")
    .execute();
  return rows.map((r) => r.record as T);
}

async function countStaged(db: Db, jobId: string): Promise<ArchiveCounts> {
  const rows = await db.selectFrom("data_import_records")
    .select(["type", (eb) => eb.fn.countAll<number>().as("n")])
    .where("job_id", "=", jobId).groupBy("type").execute();
  const of = (type: string) =>
    Number(rows.find((r) => r.type === type)?.n ?? 0);
  return {
    languages: of("language"),
    models: of("model"),
    media: of("media"),
    entries: of("entry"),
  };
}

function relationTargets(model: ModelRecord): string[] {
  const targets: string[] = [];
  for (const field of model.definition.fields) {
    if (field.type !== "relation") continue;
    try {
      const config = JSON.parse(field.config) as { targets?: string[] };
      targets.push(...(config.targets ?? []));
    } catch {
      // A config that is not JSON is refused when the model is created.
    }
  }
  return targets;
}

/** Matches the staged languages and models against the site; problems block the import. */
export async function planStaged(
  ctx: ImportContext,
  job: JobRow,
): Promise<{ plan: ImportPlan; problems: JobProblem[] }> {
  const problems: JobProblem[] = [];
  const present = new Set(
    (await listSiteLanguages(ctx.db, ctx.siteId)).map((l) => l.code),
  );
  const languages = (await allStaged<{ code: string }>(
    ctx.db,
    job.id,
    "language",
  )).map((l) => ({
    code: l.code,
    action: present.has(l.code) ? "present" as const : "create" as const,
  }));
  if (
    languages.some((l) => l.action === "create") &&
    !decide(ctx.authority, { action: "settings.write" }).ok
  ) {
    problems.push({
      code: "missing_permission",
      message: `The archive needs languages ${
        languages.filter((l) => l.action === "create").map((l) => l.code)
          .join(", ")
      } this credential may not add (settings:write): add them, then advance with recheck`,
    });
  }
  const siteModels = await listModels(ctx);
  const bySlug = new Map(siteModels.map((m) => [m.slug, m]));
  const archived = await allStaged<ModelRecord>(ctx.db, job.id, "model");
  const archivedIds = new Set(archived.map((m) => m.id));
  const models: ImportPlan["models"] = [];
  for (const model of archived) {
    const slug = model.definition.model.slug;
    const existing = bySlug.get(slug);
    if (existing) {
      const mismatch = fieldMismatch(model, existing);
      if (mismatch) {
        problems.push({
          code: "import_model_mismatch",
          id: model.id,
          message: `Model "${slug}" exists here with ${mismatch}`,
        });
      }
      models.push({
        id: model.id,
        slug,
        action: "match",
        target_id: existing.id,
      });
      continue;
    }
    for (const target of relationTargets(model)) {
      if (!archivedIds.has(target)) {
        problems.push({
          code: "import_model_target_missing",
          id: model.id,
          message:
            `Model "${slug}" relates to model ${target}, which the archive does not hold`,
        });
      }
    }
    models.push({ id: model.id, slug, action: "create", target_id: null });
  }
  const creating = models.filter((m) => m.action === "create");
  if (creating.length > 0) {
    if (!decide(ctx.authority, { action: "models.write" }).ok) {
      problems.push({
        code: "missing_permission",
        message: `The archive needs models ${
          creating.map((m) => m.slug).join(", ")
        } this credential may not create (schema:write): create them, then advance with recheck`,
      });
    }
    const cycle = creationOrder(archived, models).cycle;
    if (cycle.length > 0) {
      problems.push({
        code: "import_model_cycle",
        message: `Models ${
          cycle.join(", ")
        } relate to each other in a circle: create them here first, then advance with recheck`,
      });
    }
  }
  const counts = await countStaged(ctx.db, job.id);
  // MCR-023: the credential's creator needs what the effects need; checked per model now so
  // an import is not half done when the role cannot create or publish some model's entries.
  const publish = (job.options as Partial<SourceOptions>).publish !== "drafts";
  const codes = languages.map((l) => l.code);
  const withEntries = await ctx.db.selectFrom("data_import_records")
    .select(sql<string>`record->>'model_id'`.as("model_id")).distinct()
    .where("job_id", "=", job.id).where("type", "=", "entry").execute();
  const modelsWithEntries = new Set(withEntries.map((r) => r.model_id));
  for (const planned of models) {
    if (!modelsWithEntries.has(planned.id)) continue;
    // A model still to be created has no rules of its own yet: only the role's "*" rule applies.
    const model = planned.target_id ?? crypto.randomUUID();
    const actions = publish
      ? ["entries.create", "entries.publish"] as const
      : ["entries.create"] as const;
    for (const action of actions) {
      const decision = decide(ctx.authority, {
        action,
        model,
        languages: codes,
      });
      if (!decision.ok) {
        problems.push({
          code: decision.code,
          id: planned.id,
          message: `This credential may not ${
            action === "entries.create" ? "create" : "publish"
          } entries of model "${planned.slug}" in ${
            codes.join(", ")
          } (${decision.code})${
            action === "entries.publish"
              ? ": use a source with publish: drafts, or another credential"
              : ""
          }`,
        });
      }
    }
  }
  if (
    counts.media > 0 &&
    !decide(ctx.authority, { action: "media.upload" }).ok
  ) {
    problems.push({
      code: "missing_permission",
      message:
        "The archive holds media this credential may not upload (media:write)",
    });
  }
  return { plan: { languages, models, counts }, problems };
}

function fieldMismatch(
  model: ModelRecord,
  existing: StoredModel,
): string | null {
  const here = new Map(existing.fields.map((f) => [f.key, f.type]));
  for (const field of model.definition.fields) {
    const type = here.get(field.key);
    if (type === undefined) return `no field "${field.key}"`;
    if (type !== field.type) {
      return `field "${field.key}" of type ${type}, not ${field.type}`;
    }
  }
  return null;
}

/**
 * Models to create ordered so each one's relation targets exist first. Models that relate to
 * each other in a circle, or to themselves (a new model cannot name its own id), are named
 * instead: the person creates those here first and the import matches them by slug.
 */
export function creationOrder(
  archived: ModelRecord[],
  plan: ImportPlan["models"],
): { order: ModelRecord[]; cycle: string[] } {
  const creating = new Set(
    plan.filter((m) => m.action === "create").map((m) => m.id),
  );
  const pending = archived.filter((m) => creating.has(m.id));
  const order: ModelRecord[] = [];
  const done = new Set<string>();
  while (pending.length > 0) {
    const index = pending.findIndex((m) =>
      relationTargets(m).every((t) =>
        t !== m.id && (!creating.has(t) || done.has(t))
      )
    );
    if (index < 0) {
      return {
        order,
        cycle: pending.map((m) => m.definition.model.slug),
      };
    }
    const [next] = pending.splice(index, 1);
    order.push(next);
    done.add(next.id);
  }
  return { order, cycle: [] };
}
