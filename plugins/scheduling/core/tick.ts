// The scheduler tick (spec 1 parts 3.2, 7 and 8): every minute, per installation, claim at most
// 20 due schedules with a lease in KV, send each one's pinned transition once under its
// idempotency key with a deadline before the lease ends, and record what the service answered.
// Only the lease owner sends and writes; an expired lease is reclaimed by the next tick.
import {
  backoffMs,
  PluginClient,
  type PluginClientOptions,
  type ServiceUrlPolicy,
} from "../../sdk/mod.ts";
import type { QueryCreator } from "kysely";
import {
  SCHEDULE_COLUMNS,
  type SchedulerDb,
  type SchedulerTables,
} from "./db.ts";
import { readToken } from "./installations.ts";
import {
  dueReleases,
  runRelease,
  settleAbandonedRuns,
  withReleaseLease,
} from "./releases.ts";
import { type Schedule, scheduleKey } from "./schedules.ts";
import type { TokenBox } from "./token_box.ts";

/** At most this many schedules per installation per tick. */
export const PER_TICK = 20;
// A request's deadline ends this long before its lease, so no answer arrives unowned.
const LEASE_MARGIN_MS = 5_000;

/** What the tick needs. */
export interface TickContext {
  db: SchedulerDb;
  kv: Deno.Kv;
  box: TokenBox;
  now: () => number;
  limits: {
    maxAttempts: number;
    maxLatenessMs: number;
    leaseMs: number;
    maxRetryAfterMs: number;
  };
  servicePolicy?: ServiceUrlPolicy;
  /** Injected in tests; default globalThis.fetch. */
  fetch?: typeof fetch;
  random?: () => number;
  /** Waits between retries within one send; tests inject one that moves their clock. */
  sleep?: (ms: number) => Promise<void>;
  /** This process's name in leases. */
  owner?: string;
}

/** What one tick did. */
export interface TickReport {
  claimed: number;
  completed: number;
  refused: number;
  retrying: number;
  /** Releases the tick started, and how they ended. */
  releases: {
    done: number;
    failed: number;
    unknown: number;
    blocked: number;
    cancelled: number;
  };
}

interface Lease {
  owner: string;
  expiresAt: number;
}

const leaseKey = (id: string) => ["scheduling", "lease", id];

/** Runs one tick over every installation. */
export async function runTick(ctx: TickContext): Promise<TickReport> {
  const owner = ctx.owner ?? crypto.randomUUID();
  const report: TickReport = {
    claimed: 0,
    completed: 0,
    refused: 0,
    retrying: 0,
    releases: { done: 0, failed: 0, unknown: 0, blocked: 0, cancelled: 0 },
  };
  const installations = await ctx.db.selectFrom("installations")
    .select(["id", "service_url"]).execute();
  // A few installations at a time: each one's sends stay sequential (its own rate window).
  const queue = [...installations];
  const workers = Array.from(
    { length: Math.min(8, queue.length) },
    async () => {
      for (let next = queue.shift(); next; next = queue.shift()) {
        await tickInstallation(ctx, owner, next, report);
      }
    },
  );
  await Promise.all(workers);
  return report;
}

async function tickInstallation(
  ctx: TickContext,
  owner: string,
  installation: { id: string; service_url: string },
  report: TickReport,
): Promise<void> {
  const now = new Date(ctx.now());
  const due = await ctx.db.selectFrom("schedules").select(SCHEDULE_COLUMNS)
    .where("installation_id", "=", installation.id)
    .where((e) =>
      e.or([
        e.and([
          e("status", "in", ["pending", "retrying"]),
          e("next_attempt_at", "<=", now),
        ]),
        e("status", "=", "running"),
      ])
    )
    .orderBy("next_attempt_at").orderBy("id").limit(PER_TICK * 3).execute();
  let claimed = 0;
  // Read (and decrypted) once per installation and tick; a send that meets
  // plugin_unauthorized still re-reads the stored token (client rule 3 after a rotation).
  let token: Promise<string | null> | undefined;
  // A send's result is recorded in the same statement that claims the next schedule's row,
  // one round trip to the plugin's store per send; its lease is held until it is recorded.
  let unrecorded: Sent | undefined;
  try {
    for (const schedule of due) {
      if (claimed >= PER_TICK) break;
      const taken = await takeLease(ctx, owner, schedule, unrecorded);
      if (!taken) continue;
      const row = await record(
        ctx,
        taken.recordable ? unrecorded : undefined,
        schedule,
      );
      if (unrecorded) await releaseLease(ctx, unrecorded.lease.entry);
      unrecorded = undefined;
      if (!row) {
        await releaseLease(ctx, taken.entry);
        continue;
      }
      claimed++;
      report.claimed++;
      token ??= readToken(ctx.db, ctx.box, installation.id);
      unrecorded = await send(
        ctx,
        installation,
        { entry: taken.entry, row },
        await token,
      );
      report[unrecorded.status]++;
    }
  } finally {
    if (unrecorded) {
      const held = await ctx.kv.get<Lease>(unrecorded.lease.entry.key);
      if (held.versionstamp === unrecorded.lease.entry.versionstamp) {
        await record(ctx, unrecorded);
      }
      await releaseLease(ctx, unrecorded.lease.entry);
    }
  }
  await tickReleases(ctx, installation, report);
}

/** A client of the plugin API for one installation, its token re-read on every call after a `known` first one. */
export function installationClient(
  ctx: Pick<
    TickContext,
    "db" | "box" | "servicePolicy" | "fetch" | "now" | "random" | "sleep"
  >,
  installation: { id: string; service_url: string },
  options: Partial<
    Pick<
      PluginClientOptions,
      | "maxAttempts"
      | "maxAgeMs"
      | "maxRetryAfterMs"
      | "attemptTimeoutMs"
      | "backoffBaseMs"
      | "backoffMaxMs"
    >
  >,
  /** A token just read: the client's first read answers it, later ones read the store. */
  known?: string,
): PluginClient {
  let first = known;
  return new PluginClient({
    serviceUrl: installation.service_url,
    servicePolicy: ctx.servicePolicy,
    readToken: async () => {
      if (first !== undefined) {
        const token = first;
        first = undefined;
        return token;
      }
      return await readToken(ctx.db, ctx.box, installation.id) ?? "";
    },
    fetch: ctx.fetch,
    now: ctx.now,
    random: ctx.random,
    sleep: ctx.sleep,
    backoffBaseMs: 500,
    backoffMaxMs: 5_000,
    ...options,
  });
}

// Due releases of one installation: each under its KV lease, readiness first, one commit.
async function tickReleases(
  ctx: TickContext,
  installation: { id: string; service_url: string },
  report: TickReport,
): Promise<void> {
  const now = ctx.now();
  await settleAbandonedRuns(
    ctx.db,
    ctx.kv,
    installation.id,
    now,
    ctx.limits.leaseMs,
  );
  const due = await dueReleases(
    ctx.db,
    installation.id,
    new Date(now),
    PER_TICK,
  );
  if (due.length === 0) return;
  if (await readToken(ctx.db, ctx.box, installation.id) === null) return;
  const client = installationClient(ctx, installation, {
    maxAttempts: ctx.limits.maxAttempts,
    maxAgeMs: ctx.limits.leaseMs - LEASE_MARGIN_MS,
    maxRetryAfterMs: Math.min(ctx.limits.maxRetryAfterMs, 10_000),
  });
  for (const release of due) {
    const outcome = await withReleaseLease(
      ctx.kv,
      release.id,
      ctx.limits.leaseMs,
      ctx.now(),
      (deadline) =>
        runRelease(
          {
            db: ctx.db,
            client,
            installationId: installation.id,
            now: ctx.now,
            deadline,
          },
          release.id,
          { mode: "tick" },
        ),
    );
    if (outcome?.ok) report.releases[outcome.state]++;
  }
}

/** A claimed schedule: its lease as committed and its row as running. */
interface Claimed {
  entry: Deno.KvEntryMaybe<Lease>;
  row: Schedule;
}

/** A send's result, waiting to be recorded while its lease is still held. */
interface Sent {
  lease: Claimed;
  status: "completed" | "refused" | "retrying";
  result: {
    code: string;
    message: string | null;
    status: number | null;
    nextAt?: Date;
  };
}

// Takes a due schedule's lease in KV (or a running one's whose lease lapsed). The same read
// tells whether the previous send's lease is still this process's, so that its result may be
// recorded with this claim.
async function takeLease(
  ctx: TickContext,
  owner: string,
  schedule: Schedule,
  unrecorded: Sent | undefined,
): Promise<{ entry: Deno.KvEntryMaybe<Lease>; recordable: boolean } | null> {
  const now = ctx.now();
  const [current, held] = await ctx.kv.getMany<Lease[]>(
    unrecorded
      ? [leaseKey(schedule.id), unrecorded.lease.entry.key]
      : [leaseKey(schedule.id)],
  );
  if (current.value && current.value.expiresAt > now) return null;
  const lease: Lease = { owner, expiresAt: now + ctx.limits.leaseMs };
  const set = await ctx.kv.atomic().check(current)
    .set(leaseKey(schedule.id), lease, { expireIn: ctx.limits.leaseMs })
    .commit();
  if (!set.ok) return null;
  return {
    // The committed lease, as a read would answer it (the versionstamp a record checks).
    entry: {
      key: leaseKey(schedule.id),
      value: lease,
      versionstamp: set.versionstamp,
    },
    recordable: held !== undefined &&
      held.versionstamp === unrecorded?.lease.entry.versionstamp,
  };
}

async function releaseLease(
  ctx: TickContext,
  entry: Deno.KvEntryMaybe<Lease>,
): Promise<void> {
  await ctx.kv.atomic().check(entry).delete(entry.key).commit();
}

/**
 * One statement: records a sent schedule's result (only while the row is running) with its
 * attempt, and claims the next schedule's row (status and attempts as read, moved to
 * running). Answers the claimed row, undefined when it changed meanwhile.
 */
async function record(
  ctx: TickContext,
  sent: Sent | undefined,
  next?: Schedule,
): Promise<Schedule | undefined> {
  const now = new Date(ctx.now());
  const claim = (db: QueryCreator<SchedulerTables>, schedule: Schedule) => {
    const reclaim = schedule.status === "running";
    return db.updateTable("schedules")
      .set((e) => ({
        status: "running",
        // A reclaimed send repeats the same request; it is not a new attempt.
        attempts: reclaim ? e.ref("attempts") : e("attempts", "+", 1),
        updated_at: now,
      }))
      .where("id", "=", schedule.id)
      .where("status", "=", schedule.status)
      .where("attempts", "=", schedule.attempts)
      .returning(SCHEDULE_COLUMNS);
  };
  if (!sent) {
    return next && await claim(ctx.db, next).executeTakeFirst();
  }
  const { row } = sent.lease;
  const { code, message, status, nextAt } = sent.result;
  // The update rides in a data-modifying WITH, which runs whether or not it matches, as the
  // attempt's record must; rows of one statement see one snapshot, and these are distinct.
  const recorded = ctx.db.with(
    "recorded",
    (db) =>
      db.updateTable("schedules").set({
        status: sent.status,
        last_code: code,
        last_message: message,
        next_attempt_at: nextAt ?? null,
        updated_at: now,
      }).where("id", "=", row.id).where("status", "=", "running"),
  ).with(
    "attempt",
    (db) =>
      db.insertInto("schedule_attempts").values({
        schedule_id: row.id,
        installation_id: row.installation_id,
        attempt: Math.max(1, row.attempts),
        code,
        http_status: status,
        at: now,
      }).onConflict((oc) =>
        oc.columns(["schedule_id", "attempt"]).doUpdateSet({
          code,
          http_status: status,
          at: now,
        })
      ),
  );
  if (next) return await claim(recorded, next).executeTakeFirst();
  await recorded.selectNoFrom((e) => e.lit(1).as("one")).execute();
  return undefined;
}

const sent = (
  lease: Claimed,
  status: Sent["status"],
  result: Sent["result"],
): Sent => ({ lease, status, result });

// Sends a claimed schedule's transition once; answers what to record.
async function send(
  ctx: TickContext,
  installation: { id: string; service_url: string },
  lease: Claimed,
  token: string | null,
): Promise<Sent> {
  const row = lease.row;
  const now = ctx.now();
  const latest = row.due_at.getTime() + ctx.limits.maxLatenessMs;
  if (now > latest) {
    return sent(lease, "refused", {
      code: "retry_exhausted",
      message: "The schedule could not run in time; nothing was sent",
      status: null,
    });
  }
  if (token === null) {
    return sent(lease, "refused", {
      code: "token_unreadable",
      message:
        "The stored token cannot be read with TOKEN_KEY; rotate the installation",
      status: null,
    });
  }
  // One attempt per tick: the schedule's own caps decide about the next one.
  const client = installationClient(ctx, installation, {
    maxAttempts: 1,
    maxAgeMs: ctx.limits.maxLatenessMs,
    maxRetryAfterMs: ctx.limits.maxRetryAfterMs,
    attemptTimeoutMs: Math.max(
      1_000,
      Math.min(10_000, ctx.limits.leaseMs - LEASE_MARGIN_MS),
    ),
  }, token);
  const pin = row.kind === "publish"
    ? { expected_current_version_id: row.pinned_version_id }
    : { expected_published_version_id: row.pinned_version_id };
  const result = await client.transition(row.instance_id, row.target_state, {
    kind: row.kind,
    ...pin,
    expected_workflow_revision: row.expected_workflow_revision,
    delegation_id: row.delegation_id,
    ...(row.locale === "" ? {} : { locale: row.locale }),
  }, {
    idempotencyKey: scheduleKey(row),
    deadline: (lease.entry.value?.expiresAt ?? now) - LEASE_MARGIN_MS,
    startedAt: row.due_at.getTime(),
  });
  if (result.kind === "success") {
    return sent(lease, "completed", {
      code: result.outcomeCode ?? "transition_applied",
      message: null,
      status: result.status,
    });
  }
  if (result.kind === "terminal") {
    return sent(lease, "refused", {
      code: result.code ?? "invalid_response",
      message: result.message.slice(0, 500),
      status: result.status,
    });
  }
  const delay = Math.min(
    ctx.limits.maxRetryAfterMs,
    result.retryAfterMs ??
      backoffMs(row.attempts, {
        baseMs: 30_000,
        maxMs: 300_000,
        random: ctx.random,
      }),
  );
  const nextAt = ctx.now() + delay;
  if (row.attempts >= ctx.limits.maxAttempts || nextAt > latest) {
    return sent(lease, "refused", {
      code: "retry_exhausted",
      message: `Gave up after ${row.attempts} attempts (last: ${
        result.code ?? result.status ?? "no answer"
      })`,
      status: result.status,
    });
  }
  return sent(lease, "retrying", {
    code: result.code ?? "temporary_failure",
    message:
      "The service could not take the change now; it will be tried again",
    status: result.status,
    nextAt: new Date(nextAt),
  });
}
