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
import { sql } from "kysely";
import { SCHEDULE_COLUMNS, type SchedulerDb } from "./db.ts";
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
  const size = chunkSize(ctx.limits.leaseMs);
  let claimed = 0;
  // Read (and decrypted) once per installation and tick; a send that meets
  // plugin_unauthorized still re-reads the stored token (client rule 3 after a rotation).
  let token: Promise<string | null> | undefined;
  // Schedules are claimed a chunk at a time: their leases in one KV write, their rows in one
  // statement that also records the last chunk's results, whose leases are held until then.
  let unrecorded: Sent[] = [];
  try {
    for (let at = 0; at < due.length && claimed < PER_TICK;) {
      const chunk = due.slice(at, at + Math.min(size, PER_TICK - claimed));
      at += chunk.length;
      const taken = await takeLeases(ctx, owner, chunk, unrecorded);
      const rows = await record(
        ctx,
        taken.recordable,
        taken.leased.map((lease) => lease.schedule),
      );
      const lost = taken.leased.filter((lease) => !rows.has(lease.schedule.id));
      await releaseLeases(ctx, [
        ...unrecorded.map((done) => done.lease.entry),
        ...lost.map((lease) => lease.entry),
      ]);
      unrecorded = [];
      for (const lease of taken.leased) {
        const row = rows.get(lease.schedule.id);
        if (!row) continue;
        claimed++;
        report.claimed++;
        token ??= readToken(ctx.db, ctx.box, installation.id);
        const done = await send(
          ctx,
          installation,
          { entry: lease.entry, row },
          await token,
        );
        unrecorded.push(done);
        report[done.status]++;
      }
    }
  } finally {
    if (unrecorded.length > 0) {
      const held = await ctx.kv.getMany<Lease[]>(
        unrecorded.map((done) => done.lease.entry.key),
      );
      await record(
        ctx,
        unrecorded.filter((done, i) =>
          held[i].versionstamp === done.lease.entry.versionstamp
        ),
        [],
      );
      await releaseLeases(ctx, unrecorded.map((done) => done.lease.entry));
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

// How long one send may wait for its answer: within its lease, less the margin.
function attemptTimeoutMs(leaseMs: number): number {
  return Math.max(1_000, Math.min(10_000, leaseMs - LEASE_MARGIN_MS));
}

/**
 * How many schedules a tick claims together: every send of a chunk has its whole attempt time
 * before the chunk's leases end, and a chunk's lease keys with the last chunk's fit one KV read
 * (10 keys).
 */
export function chunkSize(leaseMs: number): number {
  const fits = Math.floor(
    (leaseMs - LEASE_MARGIN_MS) / attemptTimeoutMs(leaseMs),
  );
  return Math.max(1, Math.min(5, fits));
}

/** A lease taken for a due schedule, as committed. */
interface Leased {
  schedule: Schedule;
  entry: Deno.KvEntryMaybe<Lease>;
}

// Takes the leases in KV of due schedules (and running ones whose leases lapsed) in one write;
// under a race, one at a time, so another process's lease costs only its own schedule. The
// same read tells which of the last chunk's leases are still this process's, so that their
// results may be recorded with this claim.
async function takeLeases(
  ctx: TickContext,
  owner: string,
  chunk: Schedule[],
  unrecorded: Sent[],
): Promise<{ leased: Leased[]; recordable: Sent[] }> {
  const now = ctx.now();
  const read = await ctx.kv.getMany<Lease[]>([
    ...chunk.map((schedule) => leaseKey(schedule.id)),
    ...unrecorded.map((done) => done.lease.entry.key),
  ]);
  const recordable = unrecorded.filter((done, i) =>
    read[chunk.length + i].versionstamp === done.lease.entry.versionstamp
  );
  const free = chunk.flatMap((schedule, i) => {
    const current = read[i];
    return current.value && current.value.expiresAt > now
      ? []
      : [{ schedule, current }];
  });
  const lease: Lease = { owner, expiresAt: now + ctx.limits.leaseMs };
  const stamps = await commitTogetherOrEach(
    ctx.kv,
    free,
    (op, one) =>
      op.check(one.current).set(leaseKey(one.schedule.id), lease, {
        expireIn: ctx.limits.leaseMs,
      }),
  );
  // Each committed lease as a read would answer it (the versionstamp a record checks).
  const leased = free.flatMap(({ schedule }, i) => {
    const versionstamp = stamps[i];
    return versionstamp === null ? [] : [{
      schedule,
      entry: { key: leaseKey(schedule.id), value: lease, versionstamp },
    }];
  });
  return { leased, recordable };
}

// Deletes leases still as this process wrote them, in one write; under a race, one at a time.
async function releaseLeases(
  ctx: TickContext,
  entries: Deno.KvEntryMaybe<Lease>[],
): Promise<void> {
  await commitTogetherOrEach(
    ctx.kv,
    entries,
    (op, entry) => op.check(entry).delete(entry.key),
  );
}

/**
 * Commits `write` of every item in one atomic write; when that fails (another process changed
 * what one of them checks), item by item, so a conflict costs only its own item. Answers each
 * item's versionstamp, null where its write failed.
 */
async function commitTogetherOrEach<T>(
  kv: Deno.Kv,
  items: readonly T[],
  write: (op: Deno.AtomicOperation, item: T) => Deno.AtomicOperation,
): Promise<(string | null)[]> {
  if (items.length === 0) return [];
  const all = await items.reduce(write, kv.atomic()).commit();
  if (all.ok) return items.map(() => all.versionstamp);
  const stamps: (string | null)[] = [];
  for (const item of items) {
    const one = await write(kv.atomic(), item).commit();
    stamps.push(one.ok ? one.versionstamp : null);
  }
  return stamps;
}

/**
 * One statement: records sent schedules' results (each only while its row is running) with
 * their attempts, and claims the next schedules' rows (each at the status and attempts read,
 * moved to running). Answers the claimed rows by id; a row that changed meanwhile is absent.
 */
async function record(
  ctx: TickContext,
  done: Sent[],
  next: Schedule[],
): Promise<Map<string, Schedule>> {
  if (done.length === 0 && next.length === 0) return new Map();
  const now = new Date(ctx.now());
  const results = JSON.stringify(
    done.map(({ lease: { row }, status, result }) => ({
      id: row.id,
      installation_id: row.installation_id,
      // A reclaimed send repeats its attempt: the record of that attempt is replaced.
      attempt: Math.max(1, row.attempts),
      status,
      code: result.code,
      message: result.message,
      http_status: result.status,
      next_at: result.nextAt?.toISOString() ?? null,
    })),
  );
  const claims = JSON.stringify(
    next.map(({ id, status, attempts }) => ({ id, status, attempts })),
  );
  // The rows by their ids as well: the planner cannot see how few rows a JSON set holds, and
  // joins it by reading the whole table unless the ids bound the read to the primary key.
  const idArray = (ids: string[]) => `{${ids.join(",")}}`;
  const sentIds = idArray(done.map(({ lease }) => lease.row.id));
  const nextIds = idArray(next.map(({ id }) => id));
  const columns = sql.join(
    SCHEDULE_COLUMNS.map((column) => sql.ref(`s.${column}`)),
  );
  // Data-modifying WITHs run whether or not the outer update matches, as the attempts'
  // records must; rows of one statement see one snapshot, and these rows are distinct.
  const claimed = await sql<Schedule>`
    with sent as (
      select id, installation_id, attempt, status, code, message, http_status, next_at
      from json_to_recordset(${results}::text::json) as v(
        id uuid, installation_id text, attempt integer, status text, code text,
        message text, http_status integer, next_at timestamptz
      )
    ), recorded as (
      update schedules as s set status = sent.status, last_code = sent.code,
        last_message = sent.message, next_attempt_at = sent.next_at, updated_at = ${now}
      from sent
      where s.id = any(${sentIds}::text::uuid[])
        and s.id = sent.id and s.status = 'running'
    ), attempt as (
      insert into schedule_attempts (schedule_id, installation_id, attempt, code, http_status, at)
      select id, installation_id, attempt, code, http_status, ${now} from sent
      on conflict (schedule_id, attempt) do update
        set code = excluded.code, http_status = excluded.http_status, at = excluded.at
    )
    update schedules as s set status = 'running',
      -- A reclaimed send repeats the same request; it is not a new attempt.
      attempts = case when s.status = 'running' then s.attempts else s.attempts + 1 end,
      updated_at = ${now}
    from json_to_recordset(${claims}::text::json) as v(id uuid, status text, attempts integer)
    where s.id = any(${nextIds}::text::uuid[])
      and s.id = v.id and s.status = v.status and s.attempts = v.attempts
    returning ${columns}
  `.execute(ctx.db);
  return new Map(claimed.rows.map((row) => [row.id, row]));
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
    attemptTimeoutMs: attemptTimeoutMs(ctx.limits.leaseMs),
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
