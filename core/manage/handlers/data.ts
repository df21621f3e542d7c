// Handlers of imports and exports: sources, jobs advanced one step per request, archive parts
// in, byte-range pages out, and the job-step settlement of a retried step (MAPI-016).
import { narrowsReading } from "../../access/limits.ts";
import { ARCHIVE_CONTENT_TYPE } from "../../data/archive.ts";
import { createExport as insertExport, exportStep } from "../../data/export.ts";
import {
  ARCHIVE_MAX_PARTS,
  digestFile,
  pageOfBytes,
  pagesOf,
  readPage,
} from "../../data/files.ts";
import {
  completeArchive,
  createImport as insertImport,
  type ImportContext,
  type ImportRefusal,
  importStep,
  problemFile,
  putArchivePart,
} from "../../data/import.ts";
import {
  INLINE_PROBLEMS,
  jobByKey,
  type JobChange,
  type JobContext,
  type JobProblem,
  type JobRow,
  listJobs,
  readJob,
  runStep,
  settleStep,
} from "../../data/jobs.ts";
import {
  createSource,
  listSources,
  sourceByKey,
  type SourceRow,
} from "../../data/sources.ts";
import { apiUploadLimit } from "../../media/upload.ts";
import { mediaStorageOf } from "../../media/storage_of.ts";
import { refuse } from "../../web/errors.ts";
import * as contract from "../contract/data.ts";
import { defineHandler, type ManageContext } from "../handler.ts";
import { lifecycleOf } from "./entries_support.ts";
import { requireAllowed } from "./require.ts";

function jobContext(ctx: ManageContext): JobContext {
  return {
    db: ctx.services.db,
    clock: ctx.services.clock,
    siteId: ctx.site.id,
    actor: ctx.actor,
    keyDigest: ctx.keyDigest,
  };
}

function importContext(ctx: ManageContext): ImportContext {
  return {
    ...jobContext(ctx),
    authority: ctx.authority,
    storage: mediaStorageOf(ctx.services),
    publicUrl: ctx.services.config.publicUrl,
    // An import may run its saves long after this request: each reads who acts then.
    lifecycle: { ...lifecycleOf(ctx), actorSnapshot: undefined },
    uploadLimitBytes: apiUploadLimit(
      ctx.services.config.mediaRequestBodyLimitBytes,
    ),
  };
}

const iso = (value: Date | null) => value === null ? null : value.toISOString();

function wireSource(row: SourceRow) {
  return {
    id: row.id,
    name: row.name,
    format: "stave-archive" as const,
    options: row.options as { publish: "as_archived" | "drafts" },
    created_at: row.created_at.toISOString(),
  };
}

function wireJob(row: JobRow) {
  const problems = row.problems as JobProblem[];
  const phase = (row.cursor as { phase?: string }).phase;
  return {
    id: row.id,
    kind: row.kind,
    state: row.state as "ready",
    position: row.position,
    phase: phase === undefined || phase === "done" ? null : phase,
    source_id: row.source_id,
    options: row.options as Record<string, unknown>,
    plan: row.plan as never,
    counts: row.counts as Record<string, number>,
    problems: problems.slice(0, INLINE_PROBLEMS),
    problem_count: problems.length,
    file: row.file_sha256 === null ? null : {
      bytes: Number(row.file_bytes),
      sha256: row.file_sha256,
      pages: pagesOf(Number(row.file_bytes)),
    },
    error: row.error as { code: string; message: string } | null,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
    finished_at: iso(row.finished_at),
  };
}

async function requireJob(
  ctx: ManageContext,
  kind: "import" | "export",
  id: string,
): Promise<JobRow> {
  const job = await readJob(
    ctx.services.db,
    ctx.site.id,
    kind,
    id.toLowerCase(),
  );
  if (!job) refuse(404, "not_found", `No ${kind} "${id}" on this site`);
  return job;
}

/** MOD-043: a whole-site export would show what the role may not read. */
function requireWholeReading(ctx: ManageContext): void {
  if (
    narrowsReading(ctx.authority.permissions) || ctx.authority.models !== null
  ) {
    refuse(
      403,
      "export_limited_role",
      "A whole-site export needs a role that reads every field and language of every model",
    );
  }
}

const IMPORT_REFUSAL_STATUS: Record<ImportRefusal["code"], 404 | 409 | 422> = {
  not_found: 404,
  import_archive_closed: 409,
  import_part_out_of_order: 409,
  import_part_digest_mismatch: 422,
  import_part_invalid: 422,
  import_archive_parts_invalid: 422,
  import_archive_digest_mismatch: 422,
};

function refuseImport(refusal: ImportRefusal): never {
  return refuse(
    IMPORT_REFUSAL_STATUS[refusal.code],
    refusal.code,
    refusal.message,
    refusal.details ?? {},
  );
}

/** Runs one step under the job's lease; a step already running is `409 job_busy` with Retry-After. */
async function step(
  ctx: ManageContext,
  job: JobRow,
  body: (job: JobRow) => Promise<JobChange>,
) {
  const result = await runStep(jobContext(ctx), job, body);
  if (!result.ok) {
    refuse(
      409,
      "job_busy",
      `Another step of this job is running: retry after ${result.retryAfterSeconds} s`,
      { retry_after_seconds: result.retryAfterSeconds },
      { "Retry-After": String(result.retryAfterSeconds) },
    );
  }
  return { body: wireJob(result.job) };
}

/**
 * The settlement of a job step whose answer was lost (MAPI-016): the job's state now when it
 * moved since the step began; a rerun when the step errored or never began; otherwise
 * `onUnsettled` decides (advancing an import never reruns a step that may still be running).
 */
async function proveStep(
  ctx: ManageContext,
  kind: "import" | "export",
  id: string,
  onUnsettled: "rerun" | "hold",
) {
  if (!ctx.keyDigest) return null;
  const job = await readJob(
    ctx.services.db,
    ctx.site.id,
    kind,
    id.toLowerCase(),
  );
  if (!job) return null;
  const settled = await settleStep(ctx.services.db, job, ctx.keyDigest);
  if (settled === "replay") return { body: wireJob(job) };
  if (settled === "rerun" || onUnsettled === "rerun") return null;
  return refuse(
    409,
    "idempotency_in_progress",
    "The step this key began has not finished; send a new key to advance",
    { pending: true },
  );
}

const FINISHED = new Set(["completed", "failed", "canceled"]);

/** `list-import-sources`. */
export const listImportSources = defineHandler(contract.listImportSources, {
  async run(ctx) {
    requireAllowed(ctx, { action: "data.import" });
    const rows = await listSources(ctx.services.db, ctx.site.id);
    return { body: { data: rows.map(wireSource) } };
  },
});

/** `create-import-source`: written with its key's digest, so a lost answer is proved from it. */
export const createImportSource = defineHandler(contract.createImportSource, {
  async run(ctx, { body }) {
    requireAllowed(ctx, { action: "data.import" });
    const result = await createSource(jobContext(ctx), body);
    if (!result.ok) {
      refuse(
        409,
        "import_source_name_taken",
        `A source named "${body.name}" exists`,
      );
    }
    return { body: wireSource(result.source) };
  },
  async prove(ctx) {
    if (!ctx.keyDigest) return null;
    const row = await sourceByKey(ctx.services.db, ctx.site.id, ctx.keyDigest);
    return row ? { body: wireSource(row) } : null;
  },
});

/** `list-imports`. */
export const listImports = defineHandler(contract.listImports, {
  async run(ctx, { query }) {
    requireAllowed(ctx, { action: "data.import" });
    const rows = await listJobs(
      ctx.services.db,
      ctx.site.id,
      "import",
      query.limit,
    );
    return { body: { data: rows.map(wireJob) } };
  },
});

/** `create-import`. */
export const createImport = defineHandler(contract.createImport, {
  async run(ctx, { body }) {
    requireAllowed(ctx, { action: "data.import" });
    const job = await insertImport(
      jobContext(ctx),
      body.source_id.toLowerCase(),
    );
    if (!job) refuse(404, "not_found", `No import source "${body.source_id}"`);
    return { body: wireJob(job) };
  },
  async prove(ctx) {
    if (!ctx.keyDigest) return null;
    const job = await jobByKey(ctx.services.db, ctx.site.id, ctx.keyDigest);
    return job ? { body: wireJob(job) } : null;
  },
});

/** `get-import`. */
export const getImport = defineHandler(contract.getImport, {
  async run(ctx, { params }) {
    requireAllowed(ctx, { action: "data.import" });
    return { body: wireJob(await requireJob(ctx, "import", params.id)) };
  },
});

/** `upload-import-part`: parts in order, each at most 5 MiB; sending one again replaces it. */
export const uploadImportPart = defineHandler(contract.uploadImportPart, {
  async run(ctx, { params, query, bytes }) {
    requireAllowed(ctx, { action: "data.import" });
    const job = await requireJob(ctx, "import", params.id);
    const part = Number(params.part);
    if (part > ARCHIVE_MAX_PARTS) {
      refuse(
        422,
        "import_part_invalid",
        `An archive has at most ${ARCHIVE_MAX_PARTS} parts`,
        { max_parts: ARCHIVE_MAX_PARTS },
      );
    }
    const result = await putArchivePart(
      ctx.services.db,
      job,
      part,
      bytes ?? new Uint8Array(),
      query.sha256,
    );
    if (!result.ok) refuseImport(result);
    return {
      body: {
        id: job.id,
        part: result.part,
        bytes: result.bytes,
        sha256: result.sha256,
        parts_received: result.parts,
      },
    };
  },
});

/** `complete-import-archive`: a job step; a retry after a lost answer reruns unless the job moved. */
export const completeImportArchive = defineHandler(
  contract.completeImportArchive,
  {
    async run(ctx, { params, body }) {
      requireAllowed(ctx, { action: "data.import" });
      const job = await requireJob(ctx, "import", params.id);
      return await step(ctx, job, async (current) => {
        const change = await completeArchive(ctx.services.db, current, body);
        if ("ok" in change) refuseImport(change);
        return change;
      });
    },
    prove: (ctx, { params }) => proveStep(ctx, "import", params.id, "rerun"),
  },
);

/** `advance-import`: the next step; a retry after a lost answer reruns only if that step errored. */
export const advanceImport = defineHandler(contract.advanceImport, {
  async run(ctx, { params, query }) {
    requireAllowed(ctx, { action: "data.import" });
    const job = await requireJob(ctx, "import", params.id);
    const recheck = query.recheck === "true";
    return await step(ctx, job, (current) => {
      if (current.state === "awaiting_archive") {
        refuse(
          409,
          "import_archive_incomplete",
          "Send the archive and complete it before advancing",
        );
      }
      if (FINISHED.has(current.state)) {
        refuse(409, "import_finished", `This import is ${current.state}`);
      }
      if (current.state === "blocked" && !recheck) {
        refuse(
          409,
          "import_blocked",
          "The plan found problems: fix them, then advance with recheck=true",
          {
            problems: (current.problems as JobProblem[]).slice(
              0,
              INLINE_PROBLEMS,
            ),
          },
        );
      }
      return importStep(
        importContext(ctx),
        current,
        recheck && current.state !== "importing",
      );
    });
  },
  prove: (ctx, { params }) => proveStep(ctx, "import", params.id, "hold"),
});

/** `cancel-import`. */
export const cancelImport = defineHandler(contract.cancelImport, {
  async run(ctx, { params }) {
    requireAllowed(ctx, { action: "data.import" });
    const job = await requireJob(ctx, "import", params.id);
    return await step(ctx, job, (current) => {
      if (FINISHED.has(current.state)) {
        refuse(409, "import_finished", `This import is ${current.state}`);
      }
      return Promise.resolve({
        state: "canceled",
        cursor: { phase: "done", after: 0 },
        finished: true,
      });
    });
  },
});

/** `read-import-artifact`: the receipt once completed, the problem file once planned. */
export const readImportArtifact = defineHandler(contract.readImportArtifact, {
  async run(ctx, { params, query }) {
    requireAllowed(ctx, { action: "data.import" });
    const job = await requireJob(ctx, "import", params.id);
    let page;
    if (params.artifact === "receipt") {
      if (job.state !== "completed") {
        refuse(
          409,
          "artifact_not_ready",
          "The receipt is written when the import completes",
        );
      }
      const whole = await digestFile(ctx.services.db, job.id, "receipt");
      page = await readPage(ctx.services.db, job.id, "receipt", query.page, {
        total: whole.bytes,
        sha256: whole.sha256,
        contentType: "application/json",
      });
    } else {
      if (["awaiting_archive", "archive_received"].includes(job.state)) {
        refuse(
          409,
          "artifact_not_ready",
          "Problems are known once the archive is planned",
        );
      }
      page = await pageOfBytes(
        problemFile(job),
        query.page,
        "application/x-ndjson",
      );
    }
    if (!page) refuse(404, "not_found", `No page ${query.page} of this file`);
    return { body: page };
  },
});

/** `list-exports`. */
export const listExports = defineHandler(contract.listExports, {
  async run(ctx, { query }) {
    requireAllowed(ctx, { action: "data.export" });
    const rows = await listJobs(
      ctx.services.db,
      ctx.site.id,
      "export",
      query.limit,
    );
    return { body: { data: rows.map(wireJob) } };
  },
});

/** `create-export` (MOD-043: refused to a role that narrows reading). */
export const createExport = defineHandler(contract.createExport, {
  async run(ctx, { body }) {
    requireAllowed(ctx, { action: "data.export" });
    requireWholeReading(ctx);
    const job = await insertExport(jobContext(ctx), body);
    return { body: wireJob(job) };
  },
  async prove(ctx) {
    if (!ctx.keyDigest) return null;
    const job = await jobByKey(ctx.services.db, ctx.site.id, ctx.keyDigest);
    return job ? { body: wireJob(job) } : null;
  },
});

/** `get-export`. */
export const getExport = defineHandler(contract.getExport, {
  async run(ctx, { params }) {
    requireAllowed(ctx, { action: "data.export" });
    return { body: wireJob(await requireJob(ctx, "export", params.id)) };
  },
});

/** `advance-export`: the next batch; a retry after a lost answer reruns unless the job moved. */
export const advanceExport = defineHandler(contract.advanceExport, {
  async run(ctx, { params }) {
    requireAllowed(ctx, { action: "data.export" });
    requireWholeReading(ctx);
    const job = await requireJob(ctx, "export", params.id);
    return await step(ctx, job, (current) => {
      if (current.state !== "building") {
        refuse(
          409,
          "export_finished",
          "This export is built: read it with read-export-chunk",
        );
      }
      return exportStep(
        {
          ...jobContext(ctx),
          storage: mediaStorageOf(ctx.services),
          defaultLanguage: ctx.site.defaultLanguage,
        },
        current,
      );
    });
  },
  prove: (ctx, { params }) => proveStep(ctx, "export", params.id, "rerun"),
});

/** `read-export-chunk`: one 1 MiB page with the whole file's SHA-256. */
export const readExportChunk = defineHandler(contract.readExportChunk, {
  async run(ctx, { params, query }) {
    requireAllowed(ctx, { action: "data.export" });
    requireWholeReading(ctx);
    const job = await requireJob(ctx, "export", params.id);
    if (job.state !== "ready" || job.file_sha256 === null) {
      refuse(
        409,
        "export_not_ready",
        "The export is still building: advance it first",
      );
    }
    const page = await readPage(ctx.services.db, job.id, "export", query.page, {
      total: Number(job.file_bytes),
      sha256: job.file_sha256,
      contentType: ARCHIVE_CONTENT_TYPE,
    });
    if (!page) refuse(404, "not_found", `No page ${query.page} of this export`);
    return { body: page };
  },
});
