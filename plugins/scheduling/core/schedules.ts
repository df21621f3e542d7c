// Schedules (spec 1 parts 2.10, 3.2, 4.5): made only from a content launch, pinned to what the
// person saw, one live schedule per installation, item, kind and language, superseded in the
// same transaction as the new one is written, cancelled or moved only while pending or retrying.
import { sql } from "kysely";
import type { SchedulerDb, SchedulesTable } from "./db.ts";
import type { Fold } from "./local_time.ts";

/** A stored schedule. */
export type Schedule = Omit<SchedulesTable, "attempts"> & { attempts: number };

/** A transition as the service offers it in a workflow block. */
export interface OfferedTransition {
  kind: string;
  to: string;
}

/** The item as the delegated read answered it (spec 1 part 2.8), in the shape we use. */
export interface DelegatedItem {
  instance_id: string;
  group_id: string;
  /** Absent from services older than this field; the launched instance stands in. */
  primary_instance_id?: string;
  model_id: string;
  slug: string;
  fields: Record<string, unknown>;
  languages: { instance_id: string; locale: string }[];
  workflow?: {
    revision: number;
    current_version_id: string | null;
    published_version_id: string | null;
    transitions: OfferedTransition[];
    locales: Record<
      string,
      {
        current_version_id: string | null;
        published_version_id: string | null;
        transitions: OfferedTransition[];
      }
    >;
  };
}

/** A refusal by name. */
export interface ScheduleRefusal {
  ok: false;
  code:
    | "transition_unavailable"
    | "locale_unavailable"
    | "execution_in_progress"
    | "schedule_exists"
    | "schedule_finished"
    | "not_found"
    | "capability_refused";
  message: string;
}

/** The target state a kind moves to. */
export const TARGET_STATE = {
  publish: "published",
  unpublish: "draft",
} as const;

/** The schedule's idempotency key: the same on every retry of one revision (rule 4). */
export function scheduleKey(
  s: Pick<Schedule, "installation_id" | "id" | "revision">,
): string {
  return `sched:${s.installation_id}:${s.id}:r${s.revision}`;
}

/** The title an item shows: its `title` field when it has one, else its slug. */
export function itemTitle(
  item: Pick<DelegatedItem, "fields" | "slug">,
): string {
  const title = item.fields.title;
  return typeof title === "string" && title.trim() !== ""
    ? title.slice(0, 200)
    : item.slug;
}

const LIVE = ["pending", "retrying", "running"] as const;

function conflicts(a: string, b: string): boolean {
  return a === "" || b === "" || a === b;
}

/** What a new schedule needs. */
export interface NewSchedule {
  installationId: string;
  delegationId: string;
  requesterEmail: string;
  item: DelegatedItem;
  kind: "publish" | "unpublish";
  /** '' for every language. */
  locale: string;
  /** Whether the installation holds `workflow:locale`. */
  mayChooseLocale: boolean;
  time: { local: string; timezone: string; fold: Fold; dueAt: Date };
  now: Date;
  newId?: () => string;
  /** False for `schedule-draft`: a conflicting live schedule refuses instead of being replaced. */
  supersede?: boolean;
}

/**
 * Creates a schedule pinned as rule 3 says. A conflicting pending or retrying schedule is
 * superseded in the same transaction; a conflicting running one refuses `execution_in_progress`.
 */
export async function createSchedule(
  db: SchedulerDb,
  input: NewSchedule,
): Promise<
  { ok: true; schedule: Schedule; superseded: string[] } | ScheduleRefusal
> {
  const workflow = input.item.workflow;
  if (!workflow) {
    return {
      ok: false,
      code: "capability_refused",
      message: "The installation cannot read workflows (workflow:read)",
    };
  }
  const to = TARGET_STATE[input.kind];
  let pinned: string | null;
  if (input.locale !== "") {
    const language = workflow.locales[input.locale];
    if (!input.mayChooseLocale || !language) {
      return {
        ok: false,
        code: "locale_unavailable",
        message: `The language "${input.locale.slice(0, 35)}" is not offered`,
      };
    }
    if (
      !language.transitions.some((t) => t.kind === input.kind && t.to === to)
    ) {
      return unavailable(input.kind);
    }
    pinned = input.kind === "publish"
      ? workflow.current_version_id
      : language.published_version_id;
  } else {
    if (
      !workflow.transitions.some((t) => t.kind === input.kind && t.to === to)
    ) {
      return unavailable(input.kind);
    }
    pinned = input.kind === "publish"
      ? workflow.current_version_id
      : workflow.published_version_id;
  }
  return await writeSchedule(db, {
    id: input.newId ? input.newId() : crypto.randomUUID(),
    installation_id: input.installationId,
    // A schedule belongs to the translation group, so it names the group's primary instance
    // whichever language it was launched from (spec 1 part 2.10); `locale` picks the language.
    instance_id: input.item.primary_instance_id ?? input.item.instance_id,
    group_id: input.item.group_id,
    model_id: input.item.model_id,
    title: itemTitle(input.item),
    kind: input.kind,
    target_state: to,
    pinned_version_id: pinned,
    expected_workflow_revision: workflow.revision,
    locale: input.locale,
    local_datetime: input.time.local,
    timezone: input.time.timezone,
    fold: input.time.fold,
    due_at: input.time.dueAt,
    status: "pending",
    attempts: 0,
    last_code: null,
    last_message: null,
    next_attempt_at: input.time.dueAt,
    revision: 0,
    delegation_id: input.delegationId,
    requester_email: input.requesterEmail,
    created_at: input.now,
    updated_at: input.now,
  }, input.supersede ?? true);
}

function unavailable(kind: string): ScheduleRefusal {
  return {
    ok: false,
    code: "transition_unavailable",
    message: `You may not ${kind} this content now`,
  };
}

// Writes a new live schedule: revision counted per installation, item and kind across
// languages; conflicting live rows superseded, or a running one refuses.
async function writeSchedule(
  db: SchedulerDb,
  row: Schedule,
  supersede = true,
): Promise<
  { ok: true; schedule: Schedule; superseded: string[] } | ScheduleRefusal
> {
  return await db.transaction().execute(async (tx) => {
    await sql`select pg_advisory_xact_lock(hashtext(${`${row.installation_id}/${row.group_id}/${row.kind}`}))`
      .execute(tx);
    const live =
      (await tx.selectFrom("schedules").select(["id", "status", "locale"])
        .where("installation_id", "=", row.installation_id)
        .where("group_id", "=", row.group_id)
        .where("kind", "=", row.kind)
        .where("status", "in", [...LIVE]).execute())
        .filter((s) => conflicts(s.locale, row.locale));
    if (live.some((s) => s.status === "running")) {
      return {
        ok: false as const,
        code: "execution_in_progress" as const,
        message:
          "A schedule for this content is running now; try again in a minute",
      };
    }
    if (!supersede && live.length > 0) {
      return {
        ok: false as const,
        code: "schedule_exists" as const,
        message:
          "A live schedule already covers this change; it is not replaced",
      };
    }
    const superseded = live.map((s) => s.id);
    if (superseded.length > 0) {
      await tx.updateTable("schedules")
        .set({ status: "superseded", updated_at: row.created_at })
        .where("id", "in", superseded).execute();
    }
    const last = await tx.selectFrom("schedules")
      .select((e) => e.fn.max("revision").as("revision"))
      .where("installation_id", "=", row.installation_id)
      .where("group_id", "=", row.group_id)
      .where("kind", "=", row.kind).executeTakeFirst();
    const schedule = { ...row, revision: Number(last?.revision ?? 0) + 1 };
    await tx.insertInto("schedules").values(schedule).execute();
    return { ok: true as const, schedule, superseded };
  });
}

/** One schedule of an installation, or undefined. */
export async function readSchedule(
  db: SchedulerDb,
  installationId: string,
  scheduleId: string,
): Promise<Schedule | undefined> {
  if (!/^[0-9a-f-]{36}$/i.test(scheduleId)) return undefined;
  return await db.selectFrom("schedules").selectAll()
    .where("installation_id", "=", installationId)
    .where("id", "=", scheduleId).executeTakeFirst();
}

/** Cancels a pending or retrying schedule; the service is never called. */
export async function cancelSchedule(
  db: SchedulerDb,
  installationId: string,
  scheduleId: string,
  now: Date,
): Promise<{ ok: true; schedule: Schedule } | ScheduleRefusal> {
  const updated = await db.updateTable("schedules")
    .set({ status: "cancelled", updated_at: now, next_attempt_at: null })
    .where("installation_id", "=", installationId)
    .where("id", "=", scheduleId)
    .where("status", "in", ["pending", "retrying"])
    .returningAll().executeTakeFirst();
  if (updated) return { ok: true, schedule: updated };
  return await whyNot(db, installationId, scheduleId);
}

async function whyNot(
  db: SchedulerDb,
  installationId: string,
  scheduleId: string,
): Promise<ScheduleRefusal> {
  const row = await readSchedule(db, installationId, scheduleId);
  if (!row) {
    return { ok: false, code: "not_found", message: "No such schedule" };
  }
  if (row.status === "running") {
    return {
      ok: false,
      code: "execution_in_progress",
      message: "This schedule is running now and cannot be changed",
    };
  }
  return {
    ok: false,
    code: "schedule_finished",
    message: `This schedule is ${row.status} and cannot be changed`,
  };
}

/**
 * Moves a pending or retrying schedule: a new pending row with a new revision (so a new
 * idempotency key) and the same pins; the old row and any conflicting live row are superseded.
 */
export async function rescheduleSchedule(
  db: SchedulerDb,
  installationId: string,
  scheduleId: string,
  time: { local: string; timezone: string; fold: Fold; dueAt: Date },
  now: Date,
  newId: () => string = () => crypto.randomUUID(),
): Promise<
  { ok: true; schedule: Schedule; superseded: string[] } | ScheduleRefusal
> {
  const old = await readSchedule(db, installationId, scheduleId);
  if (!old || (old.status !== "pending" && old.status !== "retrying")) {
    return await whyNot(db, installationId, scheduleId);
  }
  return await writeSchedule(db, {
    ...old,
    id: newId(),
    local_datetime: time.local,
    timezone: time.timezone,
    fold: time.fold,
    due_at: time.dueAt,
    next_attempt_at: time.dueAt,
    status: "pending",
    attempts: 0,
    last_code: null,
    last_message: null,
    created_at: now,
    updated_at: now,
  });
}

/** The schedules of one item, newest first. */
export async function schedulesOfGroup(
  db: SchedulerDb,
  installationId: string,
  groupId: string,
): Promise<Schedule[]> {
  return await db.selectFrom("schedules").selectAll()
    .where("installation_id", "=", installationId)
    .where("group_id", "=", groupId)
    .orderBy("created_at", "desc").orderBy("id").limit(100).execute();
}

/** Schedules due between two instants, by due time then id, for models in `modelIds`. */
export async function schedulesBetween(
  db: SchedulerDb,
  installationId: string,
  range: {
    from: Date;
    to: Date;
    modelIds: string[];
    statuses?: string[];
    /** One language's schedules (whole-group ones included). */
    locale?: string;
  },
): Promise<Schedule[]> {
  if (range.modelIds.length === 0) return [];
  let query = db.selectFrom("schedules").selectAll()
    .where("installation_id", "=", installationId)
    .where("model_id", "in", range.modelIds)
    .where("due_at", ">=", range.from)
    .where("due_at", "<", range.to);
  if (range.locale) {
    query = query.where("locale", "in", ["", range.locale]);
  }
  if (range.statuses && range.statuses.length > 0) {
    query = query.where("status", "in", range.statuses as Schedule["status"][]);
  }
  return await query.orderBy("due_at").orderBy("id").limit(2000).execute();
}
