// Imports of a Stave archive (docs/imports-exports.md), one bounded step per advance: the plan
// (read and stage every line, match languages and models), the head (languages, models), media,
// entries as drafts, then their relations and publication, then the receipt.
import { decide } from "../access/decide.ts";
import type { Authority } from "../access/authority.ts";
import { sql } from "kysely";
import type { Db } from "../db/database.ts";
import {
  type LifecycleContext,
  type LifecycleOutcome,
  publishEntry,
  saveEntry,
} from "../entries/mod.ts";
import { readGroup, readInstances } from "../entries/store.ts";
import type { MediaStorage } from "../media/storage.ts";
import { uploadMedia } from "../media/upload.ts";
import { listModels } from "../models/model_reads.ts";
import { createModel } from "../models/store.ts";
import type { StoredModel } from "../models/store_rows.ts";
import { sha256Hex } from "../kv/digest.ts";
import { addSiteLanguage, listSiteLanguages } from "../sites/languages.ts";
import {
  type ArchiveCounts,
  type BodyRecord,
  decodeLine,
  encodeRecord,
  type EntryRecord,
  forEachLine,
  type LineProblem,
  type MediaRecord,
  type ModelRecord,
} from "./archive.ts";
import {
  appendToFile,
  ARCHIVE_PART_BYTES,
  digestFile,
  dropFile,
  fromBase64,
  joinBytes,
  listParts,
  readParts,
} from "./files.ts";
import {
  INLINE_PROBLEMS,
  insertJob,
  type JobChange,
  type JobContext,
  type JobProblem,
  type JobRow,
} from "./jobs.ts";

/** What an import source decides for every import made from it. */
export interface SourceOptions {
  /** `as_archived`: languages published in the archive are published; `drafts`: nothing is. */
  publish: "as_archived" | "drafts";
}

/** Media items imported per step. */
export const IMPORT_MEDIA_BATCH = 10;
/** Entries (translation groups) imported per step. */
export const IMPORT_ENTRY_BATCH = 50;
/** Archive lines staged per insert while planning. */
const STAGE_BATCH = 200;

/** An import's phases after planning, in order. */
type Phase =
  | "head"
  | "media"
  | "drafts"
  | "values"
  | "publish_plain"
  | "publish_linked"
  | "receipt"
  | "done";

/** The phases that go through every entry, in order. */
const ENTRY_PHASES: Phase[] = [
  "drafts",
  "values",
  "publish_plain",
  "publish_linked",
];

/** Where the next import step starts: a phase and the last staged record it finished. */
export interface ImportCursor {
  phase: Phase;
  after: number;
}

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

/** A refusal of an import command, answered by the route. */
export interface ImportRefusal {
  ok: false;
  code:
    | "not_found"
    | "import_archive_closed"
    | "import_part_out_of_order"
    | "import_part_digest_mismatch"
    | "import_part_invalid"
    | "import_archive_parts_invalid"
    | "import_archive_digest_mismatch";
  message: string;
  details?: Record<string, unknown>;
}

/** Creates an import job from a source of the site; it waits for its archive. */
export async function createImport(
  ctx: JobContext,
  sourceId: string,
): Promise<JobRow | null> {
  const source = await ctx.db.selectFrom("import_sources").selectAll()
    .where("site_id", "=", ctx.siteId).where("id", "=", sourceId)
    .executeTakeFirst();
  if (!source) return null;
  return await insertJob(ctx, {
    kind: "import",
    state: "awaiting_archive",
    sourceId: source.id,
    options: source.options as Record<string, unknown>,
  });
}

/**
 * Stores one archive part (1-based). Parts arrive in order: part n needs parts 1 to n-1
 * (`import_part_out_of_order`); sending a part again replaces it. `sha256`, when given, must
 * be the part's digest.
 */
export async function putArchivePart(
  db: Db,
  job: JobRow,
  part: number,
  bytes: Uint8Array,
  sha256: string | undefined,
): Promise<
  | { ok: true; part: number; bytes: number; sha256: string; parts: number }
  | ImportRefusal
> {
  if (job.state !== "awaiting_archive") {
    return {
      ok: false,
      code: "import_archive_closed",
      message: `The archive of this import is complete (state ${job.state})`,
    };
  }
  if (bytes.byteLength === 0) {
    return {
      ok: false,
      code: "import_part_invalid",
      message: "An archive part cannot be empty",
    };
  }
  const digest = await sha256Hex(bytes);
  if (sha256 !== undefined && sha256 !== digest) {
    return {
      ok: false,
      code: "import_part_digest_mismatch",
      message: "The part's SHA-256 is not the one sent with it",
      details: { sha256: digest },
    };
  }
  const stored = await listParts(db, job.id, "archive");
  if (part > stored.length + 1) {
    return {
      ok: false,
      code: "import_part_out_of_order",
      message: `Send part ${stored.length + 1} before part ${part}`,
      details: { expected_part: stored.length + 1 },
    };
  }
  await db.insertInto("data_job_parts").values({
    job_id: job.id,
    file: "archive",
    part,
    bytes,
    sha256: digest,
  }).onConflict((oc) =>
    oc.columns(["job_id", "file", "part"]).doUpdateSet({
      bytes,
      sha256: digest,
    })
  ).execute();
  return {
    ok: true,
    part,
    bytes: bytes.byteLength,
    sha256: digest,
    parts: Math.max(stored.length, part),
  };
}

/**
 * Closes the upload: every part but the last is exactly 5 MiB, `parts` (when given) is how
 * many were sent, and `sha256` is the whole archive's digest. A mismatch changes nothing.
 */
export async function completeArchive(
  db: Db,
  job: JobRow,
  body: { sha256: string; parts?: number },
): Promise<JobChange | ImportRefusal> {
  if (job.state !== "awaiting_archive") {
    return {
      ok: false,
      code: "import_archive_closed",
      message: `The archive of this import is complete (state ${job.state})`,
    };
  }
  const parts = await listParts(db, job.id, "archive");
  const wrongSize = parts.slice(0, -1).find((p) =>
    p.bytes !== ARCHIVE_PART_BYTES
  );
  if (
    parts.length === 0 || wrongSize ||
    (body.parts !== undefined && body.parts !== parts.length)
  ) {
    return {
      ok: false,
      code: "import_archive_parts_invalid",
      message: parts.length === 0
        ? "No part of the archive was sent"
        : wrongSize
        ? `Part ${wrongSize.part} is ${wrongSize.bytes} bytes; every part but the last is ${ARCHIVE_PART_BYTES}`
        : `${parts.length} parts were received, not ${body.parts}`,
      details: { parts_received: parts.length },
    };
  }
  const file = await digestFile(db, job.id, "archive");
  if (file.sha256 !== body.sha256) {
    return {
      ok: false,
      code: "import_archive_digest_mismatch",
      message:
        "The archive's SHA-256 is not the one sent: send the parts again, or the right digest",
      details: { sha256: file.sha256, bytes: file.bytes },
    };
  }
  return { state: "archive_received", file, cursor: {} };
}

// ---------------------------------------------------------------------------------------------
// The plan

/** Reads the archive, checks every line and stages the records; a bad line fails the import. */
async function stageArchive(
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

async function stagedRecords(
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

async function allStaged<T>(db: Db, jobId: string, type: string): Promise<T[]> {
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
async function planStaged(
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
function creationOrder(
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

// ---------------------------------------------------------------------------------------------
// The steps

/** The next step of an import: plan (or re-plan on `recheck`), then one batch of its phase. */
export async function importStep(
  ctx: ImportContext,
  job: JobRow,
  recheck: boolean,
): Promise<JobChange> {
  if (job.state === "archive_received" || recheck) {
    if (job.state === "archive_received") {
      const staged = await stageArchive(ctx, job);
      if (!staged.ok) {
        return {
          state: "failed",
          problems: staged.problems,
          error: {
            code: staged.problems[0].code,
            message: `Line ${staged.problems[0].line}: ${
              staged.problems[0].message
            }`,
          },
          finished: true,
        };
      }
    }
    const { plan, problems } = await planStaged(ctx, job);
    return {
      state: problems.length > 0 ? "blocked" : "ready",
      plan,
      problems,
      counts: {},
      cursor: { phase: "head", after: 0 } satisfies ImportCursor,
    };
  }
  const cursor = job.cursor as ImportCursor;
  const problems = [...(job.problems as JobProblem[])];
  const counts = { ...(job.counts as Record<string, number>) };
  const bump = (name: string, by = 1) =>
    counts[name] = (counts[name] ?? 0) + by;
  switch (cursor.phase) {
    case "head": {
      await importHead(ctx, job, problems, bump);
      return {
        state: "importing",
        cursor: { phase: "media", after: 0 },
        problems,
        counts,
      };
    }
    case "media": {
      const rows = await stagedRecords(
        ctx.db,
        job.id,
        "media",
        cursor.after,
        IMPORT_MEDIA_BATCH,
      );
      const languages = new Set(
        (await listSiteLanguages(ctx.db, ctx.siteId)).map((l) => l.code),
      );
      for (const row of rows) {
        await importMedia(ctx, job, row.record as MediaRecord, {
          languages,
          problems,
          bump,
        });
      }
      return {
        cursor: rows.length < IMPORT_MEDIA_BATCH
          ? { phase: "drafts", after: 0 }
          : { phase: "media", after: rows.at(-1)!.seq },
        problems,
        counts,
      };
    }
    case "drafts":
    case "values":
    case "publish_plain":
    case "publish_linked": {
      const rows = await stagedRecords(
        ctx.db,
        job.id,
        "entry",
        cursor.after,
        IMPORT_ENTRY_BATCH,
      );
      const models = await modelsOf(ctx, job);
      for (const row of rows) {
        const entry = row.record as EntryRecord;
        if (cursor.phase === "drafts") {
          await importDraft(ctx, job, entry, models, problems, bump);
        } else if (cursor.phase === "values") {
          await importValues(ctx, job, entry, models, problems);
        } else {
          const pass = cursor.phase === "publish_plain" ? "plain" : "linked";
          await importPublication(
            ctx,
            job,
            entry,
            models,
            pass,
            problems,
            bump,
          );
        }
      }
      const last = rows.length < IMPORT_ENTRY_BATCH;
      const next = ENTRY_PHASES[ENTRY_PHASES.indexOf(cursor.phase) + 1] ??
        "receipt";
      return {
        cursor: last
          ? { phase: next, after: 0 }
          : { phase: cursor.phase, after: rows.at(-1)!.seq },
        problems,
        counts,
      };
    }
    case "receipt": {
      await writeReceipt(ctx, job, problems, counts);
      return {
        state: "completed",
        cursor: { phase: "done", after: 0 },
        problems,
        counts,
        finished: true,
      };
    }
    case "done":
      throw new Error(`Import ${job.id} has no step left`);
  }
}

type Bump = (name: string, by?: number) => void;

async function mapIds(
  db: Db,
  jobId: string,
  kind: "model" | "media",
  pairs: [string, string][],
): Promise<void> {
  if (pairs.length === 0) return;
  await db.insertInto("data_import_ids").values(
    pairs.map(([old, now]) => ({
      job_id: jobId,
      old_id: old,
      new_id: now,
      kind,
    })),
  ).onConflict((oc) =>
    oc.columns(["job_id", "old_id"]).doUpdateSet((eb) => ({
      new_id: eb.ref("excluded.new_id"),
    }))
  ).execute();
}

async function idsOf(
  db: Db,
  jobId: string,
  old: string[],
  kind?: "entry",
): Promise<Map<string, string>> {
  if (old.length === 0) return new Map();
  const rows = await db.selectFrom("data_import_ids")
    .select(["old_id", "new_id"]).where("job_id", "=", jobId)
    .where("old_id", "in", [...new Set(old)])
    .$if(kind !== undefined, (q) => q.where("kind", "=", kind!)).execute();
  return new Map(rows.map((r) => [r.old_id, r.new_id]));
}

const UUID_IN_TEXT =
  /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;

/**
 * Rewrites every archive id inside `value` (relation items, media fields, figures in rich
 * text, components) to the id it has in this site; ids the import did not make stay as they are.
 */
async function rewriteIds<T>(db: Db, jobId: string, value: T): Promise<T> {
  const text = JSON.stringify(value);
  const ids = await idsOf(db, jobId, text.match(UUID_IN_TEXT) ?? []);
  if (ids.size === 0) return value;
  return JSON.parse(text.replace(UUID_IN_TEXT, (id) => ids.get(id) ?? id));
}

async function importHead(
  ctx: ImportContext,
  job: JobRow,
  problems: JobProblem[],
  bump: Bump,
): Promise<void> {
  const plan = job.plan as ImportPlan;
  for (const language of plan.languages) {
    if (language.action !== "create") continue;
    const added = await addSiteLanguage(
      { db: ctx.db, clock: ctx.clock, siteId: ctx.siteId, actor: ctx.actor },
      { code: language.code, keyDigest: null },
    );
    if (added.ok) bump("languages_created");
  }
  await mapIds(
    ctx.db,
    job.id,
    "model",
    plan.models.filter((m) => m.target_id !== null).map((m) => [
      m.id,
      m.target_id!,
    ]),
  );
  const archived = await allStaged<ModelRecord>(ctx.db, job.id, "model");
  for (const model of creationOrder(archived, plan.models).order) {
    const known = await idsOf(ctx.db, job.id, [model.id]);
    if (known.has(model.id)) continue;
    const definition = await rewriteIds(ctx.db, job.id, {
      model: model.definition.model,
      fields: model.definition.fields.map(({ id: _, ...field }) => field),
    });
    const created = await createModel(ctx, definition);
    if (!created.ok) {
      const first = "problems" in created ? created.problems[0] : undefined;
      problems.push({
        code: created.code,
        id: model.id,
        message:
          `Model "${model.definition.model.slug}" could not be created (${created.code})${
            first ? `: ${first.path} ${first.message}` : ""
          }`,
      });
      continue;
    }
    await mapIds(ctx.db, job.id, "model", [[model.id, created.model_id]]);
    bump("models_created");
  }
}

async function importMedia(
  ctx: ImportContext,
  job: JobRow,
  record: MediaRecord,
  step: {
    /** The site's language codes, read once per step. */
    languages: ReadonlySet<string>;
    problems: JobProblem[];
    bump: Bump;
  },
): Promise<void> {
  const { languages, problems, bump } = step;
  if ((await idsOf(ctx.db, job.id, [record.id])).has(record.id)) return;
  const bytes = fromBase64(record.content_base64);
  if (!bytes || await sha256Hex(bytes) !== record.sha256) {
    problems.push({
      code: "import_media_digest_mismatch",
      id: record.id,
      message:
        `Media "${record.file_name}": its bytes do not match its SHA-256`,
    });
    return;
  }
  const altTexts = Object.fromEntries(
    Object.entries(record.alt_texts).filter(([code]) => languages.has(code)),
  );
  const uploaded = await uploadMedia(
    {
      db: ctx.db,
      storage: ctx.storage,
      clock: ctx.clock,
      siteId: ctx.siteId,
      publicUrl: ctx.publicUrl,
      keyDigest: null,
    },
    { bytes, fileName: record.file_name },
    {
      altTexts,
      onDuplicate: "use_existing",
      limitBytes: ctx.uploadLimitBytes,
    },
  );
  if (!uploaded.ok) {
    problems.push({
      code: uploaded.code,
      id: record.id,
      message: `Media "${record.file_name}" was refused (${uploaded.code})`,
    });
    return;
  }
  await mapIds(ctx.db, job.id, "media", [[record.id, uploaded.item.id]]);
  bump(uploaded.created ? "media_created" : "media_reused");
}

async function modelsOf(
  ctx: ImportContext,
  job: JobRow,
): Promise<Map<string, StoredModel>> {
  const plan = job.plan as ImportPlan;
  const ids = await idsOf(ctx.db, job.id, plan.models.map((m) => m.id));
  const here = new Map((await listModels(ctx)).map((m) => [m.id, m]));
  const out = new Map<string, StoredModel>();
  for (const [old, now] of ids) {
    const model = here.get(now);
    if (model) out.set(old, model);
  }
  return out;
}

/**
 * Values without the fields that name other archived entries (relation fields, page sections
 * using a shared section, components): those entries may not exist yet while drafts are made.
 */
async function withoutReferences(
  db: Db,
  jobId: string,
  values: Record<string, unknown>,
  model: StoredModel,
): Promise<Record<string, unknown>> {
  const relations = new Set(
    model.fields.filter((f) => f.type === "relation").map((f) => f.key),
  );
  const named = JSON.stringify(values).match(UUID_IN_TEXT) ?? [];
  const entries = await idsOf(db, jobId, named, "entry");
  return Object.fromEntries(
    Object.entries(values).filter(([key, value]) =>
      !relations.has(key) &&
      !(JSON.stringify(value).match(UUID_IN_TEXT) ?? []).some((id) =>
        entries.has(id)
      )
    ),
  );
}

function refusalProblem(
  entry: EntryRecord,
  locale: string,
  what: string,
  outcome: LifecycleOutcome,
): JobProblem {
  const code = outcome.ok ? "internal_error" : outcome.code;
  const first = !outcome.ok && outcome.errors?.[0];
  return {
    code,
    id: entry.id,
    message: `Entry ${entry.id} (${locale}): ${what} refused (${code})${
      first ? `: ${first.path} ${first.message}` : ""
    }`,
  };
}

/** Ids the next save hands out, in the order `saveEntry` asks for them (group, then language). */
function idsInOrder(ids: string[]): () => string {
  const queue = [...ids];
  return () => queue.shift() ?? crypto.randomUUID();
}

/** Creates the entry's group and languages as drafts, relations left out. */
async function importDraft(
  ctx: ImportContext,
  job: JobRow,
  entry: EntryRecord,
  models: Map<string, StoredModel>,
  problems: JobProblem[],
  bump: Bump,
): Promise<void> {
  const model = models.get(entry.model_id);
  if (!model) {
    problems.push({
      code: "import_model_missing",
      id: entry.id,
      message: `Entry ${entry.id}: its model was not imported`,
    });
    return;
  }
  const ids = await idsOf(ctx.db, job.id, [
    entry.id,
    ...entry.languages.map((l) => l.id),
  ]);
  const groupId = ids.get(entry.id)!;
  const existing = await readGroup(ctx.db, ctx.siteId, groupId);
  const have = new Set(
    existing
      ? (await readInstances(ctx.db, ctx.siteId, groupId)).map((i) => i.locale)
      : [],
  );
  let created = existing !== undefined;
  for (const language of entry.languages) {
    if (have.has(language.locale)) continue;
    const values = await rewriteIds(
      ctx.db,
      job.id,
      await withoutReferences(
        ctx.db,
        job.id,
        language.published ?? language.current ?? {},
        model,
      ),
    );
    const saved = await saveEntry(
      {
        ...ctx.lifecycle,
        newId: idsInOrder(
          created ? [ids.get(language.id)!] : [groupId, ids.get(language.id)!],
        ),
      },
      {
        ...(created ? { group_id: groupId } : { model_id: model.id }),
        locale: language.locale,
        slug: language.slug,
        fields: values,
        expected_current_version_id: null,
      },
    );
    if (!saved.ok) {
      problems.push(refusalProblem(entry, language.locale, "saving", saved));
      if (!created) return;
      continue;
    }
    created = true;
  }
  bump("entries_created");
}

/** The entry's group here and its model, or null when its draft was not made. */
async function importedGroup(
  ctx: ImportContext,
  job: JobRow,
  entry: EntryRecord,
  models: Map<string, StoredModel>,
) {
  const model = models.get(entry.model_id);
  const groupId = (await idsOf(ctx.db, job.id, [entry.id])).get(entry.id);
  const group = groupId ? await readGroup(ctx.db, ctx.siteId, groupId) : null;
  return model && group ? { model, group } : null;
}

/** Saves one language's values as its next version; a refusal is recorded and answers null. */
async function saveValues(
  ctx: ImportContext,
  job: JobRow,
  entry: EntryRecord,
  groupId: string,
  locale: string,
  values: Record<string, unknown>,
  what: string,
  problems: JobProblem[],
): Promise<boolean> {
  const instances = await readInstances(ctx.db, ctx.siteId, groupId);
  const instance = instances.find((i) => i.locale === locale);
  if (!instance) return false;
  const saved = await saveEntry(ctx.lifecycle, {
    group_id: groupId,
    locale,
    fields: await rewriteIds(ctx.db, job.id, values),
    expected_current_version_id: instance.current_version_id,
  });
  if (!saved.ok) problems.push(refusalProblem(entry, locale, what, saved));
  return saved.ok;
}

/** Saves the full values of languages whose draft left out references to other entries. */
async function importValues(
  ctx: ImportContext,
  job: JobRow,
  entry: EntryRecord,
  models: Map<string, StoredModel>,
  problems: JobProblem[],
): Promise<void> {
  const found = await importedGroup(ctx, job, entry, models);
  if (!found) return;
  for (const language of entry.languages) {
    const first = language.published ?? language.current ?? {};
    const drafted = await withoutReferences(ctx.db, job.id, first, found.model);
    if (Object.keys(drafted).length === Object.keys(first).length) continue;
    await saveValues(
      ctx,
      job,
      entry,
      found.group.id,
      language.locale,
      first,
      "saving references",
      problems,
    );
  }
}

/**
 * Publishes what the archive had published, then saves any newer draft over it. Entries that
 * name no other entry go first (`plain`), so a page is published after the shared sections
 * and other entries it shows (`linked`).
 */
async function importPublication(
  ctx: ImportContext,
  job: JobRow,
  entry: EntryRecord,
  models: Map<string, StoredModel>,
  pass: "plain" | "linked",
  problems: JobProblem[],
  bump: Bump,
): Promise<void> {
  const found = await importedGroup(ctx, job, entry, models);
  if (!found) return;
  const { model, group } = found;
  const linked = await Promise.all(entry.languages.map(async (language) => {
    const first = language.published ?? language.current ?? {};
    const drafted = await withoutReferences(ctx.db, job.id, first, model);
    return Object.keys(drafted).length !== Object.keys(first).length;
  }));
  if (linked.some(Boolean) !== (pass === "linked")) return;
  const publish = (job.options as Partial<SourceOptions>).publish !== "drafts";
  for (const language of entry.languages) {
    if (language.published === null) continue;
    const instance = (await readInstances(ctx.db, ctx.siteId, group.id))
      .find((i) => i.locale === language.locale);
    if (!instance) continue;
    if (publish && !instance.published_version_id) {
      const fresh = await readGroup(ctx.db, ctx.siteId, group.id);
      const published = await publishEntry(ctx.lifecycle, {
        group_id: group.id,
        locale: language.locale,
        expected_current_version_id: instance.current_version_id,
        expected_workflow_revision: fresh!.revision,
      });
      if (!published.ok) {
        problems.push(
          refusalProblem(entry, language.locale, "publishing", published),
        );
      } else bump("languages_published");
    }
    if (language.current !== null) {
      await saveValues(
        ctx,
        job,
        entry,
        group.id,
        language.locale,
        language.current,
        "saving the newer draft",
        problems,
      );
    }
  }
}

/** Writes the receipt (archive id -> id here), read in pages once the import is completed. */
async function writeReceipt(
  ctx: ImportContext,
  job: JobRow,
  problems: JobProblem[],
  counts: Record<string, number>,
): Promise<void> {
  await dropFile(ctx.db, job.id, "receipt");
  const rows = await ctx.db.selectFrom("data_import_ids")
    .select(["old_id", "new_id"]).where("job_id", "=", job.id)
    .orderBy("old_id").execute();
  const receipt = {
    import_id: job.id,
    completed_at: ctx.clock.now().toISOString(),
    counts,
    problem_count: problems.length,
    ids: Object.fromEntries(rows.map((r) => [r.old_id, r.new_id])),
  };
  await appendToFile(
    ctx.db,
    job.id,
    "receipt",
    new TextEncoder().encode(JSON.stringify(receipt)),
  );
}

/** The problem file: one JSON problem per line, made from the job on request. */
export function problemFile(job: JobRow): Uint8Array {
  return joinBytes((job.problems as JobProblem[]).map((p) => encodeRecord(p)));
}
