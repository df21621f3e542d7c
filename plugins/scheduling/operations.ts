// The plugin's operations (spec 1 part 4.4): Stave posts the closed invocation envelope, the
// plugin exchanges its code with its own token for a delegation bound to the run, and answers
// result blocks or a refusal by name. Nothing is trusted from the envelope beyond the code.
import { z } from "zod";
import type { PluginClient } from "../sdk/mod.ts";
import type { SchedulerDb } from "./core/db.ts";
import { type Fold, knownTimeZone, localReading } from "./core/local_time.ts";
import {
  createSchedule,
  type DelegatedItem,
  type Schedule,
  schedulesOfGroup,
} from "./core/schedules.ts";
import { describe } from "./pages.tsx";

/** What the exchange binds a run to. */
export interface BoundRun {
  delegation_id: string;
  operation_id: string;
  instance_id: string | null;
  group_id: string | null;
  input: Record<string, unknown>;
  user: { email: string };
  /** A column run: the entry languages the list shows. */
  entries?: { instance_id: string; group_id: string; locale: string }[];
}

/** An operation's answer as Stave reads it. */
export type OperationAnswer =
  | { status: "ok"; blocks: unknown[] }
  | { status: "refused"; code: string; message: string };

/** A refusal by name, as an operation answers it. */
export function refused(code: string, message: string): OperationAnswer {
  return { status: "refused", code, message };
}

/** `schedule-status`: the entry's pending, retrying and running schedules as rows. */
export async function scheduleStatus(
  db: SchedulerDb,
  installationId: string,
  run: BoundRun,
): Promise<OperationAnswer> {
  if (!run.group_id) {
    return refused("invalid_request", "The run names no entry");
  }
  const live = (await schedulesOfGroup(db, installationId, run.group_id))
    .filter((s) => ["pending", "retrying", "running"].includes(s.status));
  return {
    status: "ok",
    blocks: [{
      type: "rows",
      columns: [
        { key: "change", label: "Change" },
        { key: "due_at", label: "Due (UTC)" },
        { key: "local", label: "Local time" },
        { key: "status", label: "Status" },
      ],
      rows: live.map((s) => ({
        change: describe(s),
        due_at: s.due_at.toISOString(),
        local: `${localReading(s.due_at, s.timezone)} ${s.timezone}`,
        status: s.status,
      })),
    }],
  };
}

/**
 * An operation's `due_at` and `timezone`: an instant on a whole UTC minute (`invalid_instant`),
 * in the future (`past_time`), in a known zone (`unknown_timezone`).
 */
export function dueInstant(
  dueAt: string,
  timezone: string,
  now: Date,
): { ok: true; dueAt: Date } | { ok: false; refusal: OperationAnswer } {
  if (!knownTimeZone(timezone)) {
    return {
      ok: false,
      refusal: refused(
        "unknown_timezone",
        `"${timezone.slice(0, 64)}" is not a known time zone`,
      ),
    };
  }
  // Without a zone designator Date would read the host's local time; due_at is UTC.
  const instant = new Date(
    /(?:Z|[+-]\d{2}:\d{2})$/i.test(dueAt) ? dueAt : `${dueAt}Z`,
  );
  if (
    !/^\d{4}-\d{2}-\d{2}T/.test(dueAt) || Number.isNaN(instant.getTime()) ||
    instant.getUTCSeconds() !== 0 || instant.getUTCMilliseconds() !== 0
  ) {
    return {
      ok: false,
      refusal: refused(
        "invalid_instant",
        "due_at is an instant on a whole UTC minute",
      ),
    };
  }
  if (instant.getTime() <= now.getTime()) {
    return {
      ok: false,
      refusal: refused("past_time", "due_at must be in the future"),
    };
  }
  return { ok: true, dueAt: instant };
}

/** An instant as a schedule or release keeps its time: the local reading in the zone and its fold. */
export function timeOfInstant(dueAt: Date, timezone: string): {
  local: string;
  timezone: string;
  fold: Fold;
  dueAt: Date;
} {
  const local = localReading(dueAt, timezone).replace(" ", "T");
  const earlier = Temporal.PlainDateTime.from(local)
    .toZonedDateTime(timezone, { disambiguation: "earlier" });
  return {
    local,
    timezone,
    fold: earlier.epochMilliseconds === dueAt.getTime() ? "earlier" : "later",
    dueAt,
  };
}

/**
 * `schedule-column` (a list column): one `cells` block with a badge for each listed entry
 * language that a live schedule will change (the soonest; tone `warning` once it is retrying
 * or running); nothing for the others. Reads only.
 */
export async function scheduleColumn(
  db: SchedulerDb,
  installationId: string,
  run: BoundRun,
): Promise<OperationAnswer> {
  const entries = run.entries ?? [];
  const groups = [...new Set(entries.map((e) => e.group_id))];
  const live = groups.length === 0 ? [] : await db.selectFrom("schedules")
    .selectAll().where("installation_id", "=", installationId)
    .where("group_id", "in", groups)
    .where("status", "in", ["pending", "retrying", "running"])
    .orderBy("due_at").execute();
  const cells = entries.flatMap((entry) => {
    const next = live.find((s) =>
      s.group_id === entry.group_id &&
      (s.locale === "" || s.locale === entry.locale)
    );
    if (!next) return [];
    const verb = next.kind === "publish" ? "Publish" : "Unpublish";
    return [{
      instance_id: entry.instance_id,
      badge: {
        label: `${verb} ${localReading(next.due_at, next.timezone)}`.slice(
          0,
          40,
        ),
        tone: next.status === "pending" ? "info" : "warning",
      },
    }];
  });
  return { status: "ok", blocks: [{ type: "cells", cells }] };
}

const draftInput = z.strictObject({
  locale: z.string().max(35).optional(),
  transition: z.literal("publish:published"),
  due_at: z.string().max(40),
  timezone: z.string().min(1).max(64),
  version_id: z.string().min(1).max(64),
});

function scheduleJson(s: Schedule) {
  return {
    type: "json",
    filename: "schedule.json",
    data: {
      schedule_id: s.id,
      status: s.status,
      locale: s.locale === "" ? null : s.locale,
      transition: `${s.kind}:${s.target_state}`,
      due_at: s.due_at.toISOString(),
      timezone: s.timezone,
      local_datetime: s.local_datetime,
      pinned_version_id: s.pinned_version_id,
    },
  };
}

/**
 * `schedule-draft` (automation only): a publish pinned to exactly `version_id`, which must still
 * be the current draft (`draft_changed` otherwise). A repeat answers the schedule it made; a
 * conflicting live schedule is never replaced (`schedule_exists`).
 */
export async function scheduleDraft(
  db: SchedulerDb,
  client: PluginClient,
  installationId: string,
  run: BoundRun,
  now: Date,
): Promise<OperationAnswer> {
  const input = draftInput.safeParse(run.input);
  if (!input.success || !run.instance_id || !run.group_id) {
    return refused(
      "invalid_request",
      'Input is { locale?, transition: "publish:published", due_at, timezone, version_id }',
    );
  }
  const { locale = "", due_at, timezone, version_id } = input.data;
  const due = dueInstant(due_at, timezone, now);
  if (!due.ok) return due.refusal;
  const read = await client.content(run.instance_id, run.delegation_id);
  if (read.kind !== "success") {
    return refused(
      read.code ?? "temporary_failure",
      "The entry could not be read for this person",
    );
  }
  const item = (read.body as { data: DelegatedItem }).data;
  if (item.workflow?.current_version_id !== version_id) {
    return refused(
      "draft_changed",
      "The current draft is no longer version_id; read it again",
    );
  }
  const repeat = (await schedulesOfGroup(db, installationId, run.group_id))
    .find((s) =>
      s.kind === "publish" && s.locale === locale &&
      s.due_at.getTime() === due.dueAt.getTime() &&
      s.pinned_version_id === version_id &&
      ["pending", "retrying", "running", "completed"].includes(s.status)
    );
  if (repeat) return { status: "ok", blocks: [scheduleJson(repeat)] };
  const created = await createSchedule(db, {
    installationId,
    delegationId: run.delegation_id,
    requesterEmail: run.user.email,
    item,
    kind: "publish",
    locale,
    mayChooseLocale: true,
    time: timeOfInstant(due.dueAt, timezone),
    now,
    supersede: false,
  });
  if (!created.ok) return refused(created.code, created.message);
  return { status: "ok", blocks: [scheduleJson(created.schedule)] };
}
