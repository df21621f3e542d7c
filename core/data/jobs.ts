// Import and export jobs: rows, their answer shape, one step at a time under a busy lease, and
// the step records that settle a retried step (spec 2 part 4.3, MAPI-016).
import type { Selectable } from "kysely";
import type { Actor } from "../access/actor.ts";
import type { Clock } from "../clock.ts";
import type { Db } from "../db/database.ts";
import type { DataJobsTable } from "../db/schema.ts";
import { snapshotActor } from "../entries/actor_snapshot.ts";

export type JobRow = Selectable<DataJobsTable>;

/** What a job command needs. */
export interface JobContext {
  db: Db;
  clock: Clock;
  siteId: string;
  actor: Actor;
  /** Digest of the request's Idempotency-Key; null for reads. */
  keyDigest: string | null;
}

/** A problem found in an archive or while importing it. */
export interface JobProblem {
  code: string;
  message: string;
  /** Archive line, when the problem is one line's. */
  line?: number;
  /** Archive id of the record concerned. */
  id?: string;
}

/** Days a job and everything it holds (archive, export, receipt) are kept after it last moved. */
export const JOB_RETENTION_DAYS = 30;

/** Deletes jobs that have not moved for {@link JOB_RETENTION_DAYS}, with their files and records. */
export async function pruneDataJobs(db: Db, now: Date): Promise<number> {
  const before = new Date(now.getTime() - JOB_RETENTION_DAYS * 86_400_000);
  const gone = await db.deleteFrom("data_jobs").where("updated_at", "<", before)
    .returning("id").execute();
  return gone.length;
}

/** The longest a step may hold a job; a crashed step frees it after this. */
export const STEP_LEASE_MS = 5 * 60 * 1000;
/** Problems a job answer lists inline; the problem file holds every one. */
export const INLINE_PROBLEMS = 50;

/** Reads one job of the site and kind, or null. */
export async function readJob(
  db: Db,
  siteId: string,
  kind: "import" | "export",
  id: string,
): Promise<JobRow | null> {
  return await db.selectFrom("data_jobs").selectAll()
    .where("site_id", "=", siteId).where("kind", "=", kind)
    .where("id", "=", id).executeTakeFirst() ?? null;
}

/** The newest jobs of a kind first. */
export async function listJobs(
  db: Db,
  siteId: string,
  kind: "import" | "export",
  limit: number,
): Promise<JobRow[]> {
  return await db.selectFrom("data_jobs").selectAll()
    .where("site_id", "=", siteId).where("kind", "=", kind)
    .orderBy("created_at", "desc").orderBy("id", "desc").limit(limit)
    .execute();
}

/** The job a keyed create wrote, found by its key digest (a lost answer's proof). */
export async function jobByKey(
  db: Db,
  siteId: string,
  keyDigest: string,
): Promise<JobRow | null> {
  return await db.selectFrom("data_jobs").selectAll()
    .where("site_id", "=", siteId).where("key_digest", "=", keyDigest)
    .executeTakeFirst() ?? null;
}

/** Inserts a new job. */
export async function insertJob(
  ctx: JobContext,
  values: {
    kind: "import" | "export";
    state: string;
    sourceId?: string | null;
    options?: Record<string, unknown>;
  },
): Promise<JobRow> {
  const now = ctx.clock.now();
  const createdBy = await snapshotActor(ctx.db, ctx.siteId, ctx.actor);
  return await ctx.db.insertInto("data_jobs").values({
    id: crypto.randomUUID(),
    site_id: ctx.siteId,
    kind: values.kind,
    source_id: values.sourceId ?? null,
    state: values.state,
    position: 0,
    options: JSON.stringify(values.options ?? {}),
    counts: JSON.stringify({}),
    problems: JSON.stringify([]),
    cursor: JSON.stringify({}),
    key_digest: ctx.keyDigest,
    created_by: JSON.stringify(createdBy),
    created_at: now,
    updated_at: now,
  }).returningAll().executeTakeFirstOrThrow();
}

/** What a step changes on its job; `position` moves by one with every finished step. */
export interface JobChange {
  state?: string;
  cursor?: unknown;
  plan?: unknown;
  counts?: Record<string, number>;
  problems?: JobProblem[];
  file?: { bytes: number; sha256: string; parts: number } | null;
  error?: { code: string; message: string } | null;
  finished?: boolean;
}

/** Why a step could not start. */
export type StepRefusal = {
  ok: false;
  code: "job_busy";
  retryAfterSeconds: number;
};

/**
 * Runs one step of a job: takes the job's busy lease (another step running is `job_busy`),
 * records the step under the request's key (MAPI-016), runs `step` with the job as read
 * under the lease, and writes its change with the position one further. A thrown step frees
 * the lease, marks its record errored and is rethrown.
 */
export async function runStep(
  ctx: JobContext,
  job: JobRow,
  step: (job: JobRow) => Promise<JobChange>,
): Promise<{ ok: true; job: JobRow } | StepRefusal> {
  const now = ctx.clock.now();
  const leased = await ctx.db.updateTable("data_jobs")
    .set({ busy_until: new Date(now.getTime() + STEP_LEASE_MS) })
    .where("id", "=", job.id)
    .where((eb) =>
      eb.or([eb("busy_until", "is", null), eb("busy_until", "<", now)])
    )
    .returningAll().executeTakeFirst();
  if (!leased) {
    const row = await readJob(ctx.db, ctx.siteId, job.kind, job.id);
    const until = row?.busy_until?.getTime() ?? now.getTime();
    return {
      ok: false,
      code: "job_busy",
      retryAfterSeconds: Math.max(1, Math.ceil((until - now.getTime()) / 1000)),
    };
  }
  if (ctx.keyDigest) {
    await ctx.db.insertInto("data_job_steps").values({
      job_id: job.id,
      key_digest: ctx.keyDigest,
      from_position: leased.position,
      status: "running",
      created_at: now,
    }).onConflict((oc) =>
      oc.columns(["job_id", "key_digest"]).doUpdateSet({
        from_position: leased.position,
        status: "running",
      })
    ).execute();
  }
  let change: JobChange;
  try {
    change = await step(leased);
  } catch (error) {
    await ctx.db.updateTable("data_jobs").set({ busy_until: null })
      .where("id", "=", job.id).execute();
    if (ctx.keyDigest) await markStep(ctx, job.id, "errored");
    throw error;
  }
  const written = await ctx.db.transaction().execute(async (tx) => {
    const row = await tx.updateTable("data_jobs").set({
      position: leased.position + 1,
      busy_until: null,
      updated_at: ctx.clock.now(),
      ...(change.state === undefined ? {} : { state: change.state }),
      ...(change.cursor === undefined
        ? {}
        : { cursor: JSON.stringify(change.cursor) }),
      ...(change.plan === undefined
        ? {}
        : { plan: JSON.stringify(change.plan) }),
      ...(change.counts === undefined
        ? {}
        : { counts: JSON.stringify(change.counts) }),
      ...(change.problems === undefined
        ? {}
        : { problems: JSON.stringify(change.problems) }),
      ...(change.file === undefined ? {} : {
        file_bytes: change.file?.bytes ?? null,
        file_sha256: change.file?.sha256 ?? null,
        file_parts: change.file?.parts ?? null,
      }),
      ...(change.error === undefined
        ? {}
        : { error: change.error ? JSON.stringify(change.error) : null }),
      ...(change.finished ? { finished_at: ctx.clock.now() } : {}),
    }).where("id", "=", job.id).returningAll().executeTakeFirstOrThrow();
    if (ctx.keyDigest) {
      await tx.updateTable("data_job_steps").set({ status: "done" })
        .where("job_id", "=", job.id)
        .where("key_digest", "=", ctx.keyDigest).execute();
    }
    return row;
  });
  return { ok: true, job: written };
}

async function markStep(
  ctx: JobContext,
  jobId: string,
  status: "errored",
): Promise<void> {
  await ctx.db.updateTable("data_job_steps").set({ status })
    .where("job_id", "=", jobId).where("key_digest", "=", ctx.keyDigest!)
    .execute();
}

/**
 * How a retried step whose first answer was lost is settled (spec 2 part 4.3, MAPI-016): when
 * the job moved since the key's step started, its state now is the answer (`replay`); when
 * that step errored, or never started, it runs again (`rerun`); otherwise it is still running
 * or died mid-step (`unsettled`) and the caller decides by its rule.
 */
export async function settleStep(
  db: Db,
  job: JobRow,
  keyDigest: string,
): Promise<"replay" | "rerun" | "unsettled"> {
  const step = await db.selectFrom("data_job_steps").selectAll()
    .where("job_id", "=", job.id).where("key_digest", "=", keyDigest)
    .executeTakeFirst();
  if (!step) return "rerun";
  if (job.position !== step.from_position) return "replay";
  if (step.status === "errored") return "rerun";
  return "unsettled";
}
