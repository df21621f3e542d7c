// Imports of a Stave archive (docs/imports-exports.md), one bounded step per advance: the plan
// (read and stage every line, match languages and models: import_plan.ts), the head (languages,
// models), media, entries as drafts, then their relations and publication, then the receipt
// (import_steps.ts). This module takes the archive in and decides which step runs next.
import type { Db } from "../db/database.ts";
import { listModels } from "../models/model_reads.ts";
import type { StoredModel } from "../models/store_rows.ts";
import { sha256Hex } from "../kv/digest.ts";
import { listSiteLanguages } from "../sites/languages.ts";
import { encodeRecord, type EntryRecord, type MediaRecord } from "./archive.ts";
import {
  ARCHIVE_PART_BYTES,
  digestFile,
  joinBytes,
  listParts,
} from "./files.ts";
import {
  insertJob,
  type JobChange,
  type JobContext,
  type JobProblem,
  type JobRow,
} from "./jobs.ts";
import {
  type ImportContext,
  type ImportPlan,
  planStaged,
  stageArchive,
  stagedRecords,
} from "./import_plan.ts";
import {
  idsOf,
  importDraft,
  importHead,
  importMedia,
  importPublication,
  importValues,
  writeReceipt,
} from "./import_steps.ts";

export type {
  ImportContext,
  ImportPlan,
  SourceOptions,
} from "./import_plan.ts";

/** Media items imported per step. */
export const IMPORT_MEDIA_BATCH = 10;
/** Entries (translation groups) imported per step. */
export const IMPORT_ENTRY_BATCH = 50;
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
// The steps: the plan (import_plan.ts), then one batch of the phase (import_steps.ts)

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

/** The problem file: one JSON problem per line, made from the job on request. */
export function problemFile(job: JobRow): Uint8Array {
  return joinBytes((job.problems as JobProblem[]).map((p) => encodeRecord(p)));
}
