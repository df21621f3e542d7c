// The release operations of part 4.4: `releases` lists and reads releases, `release-edit`
// creates, renames and fills them, `release-run` schedules, unschedules, runs and retries them,
// and `timeline-preview` (automation) answers what will have changed by a release's time. Each
// runs for the person of the run's delegation, over the same release store as the plugin's pages.
import { z } from "zod";
import {
  type Fold,
  knownTimeZone,
  localReading,
  resolveLocalTime,
} from "./core/local_time.ts";
import {
  addReleaseItem,
  cancelRelease,
  checkReadiness,
  createRelease,
  listReleases,
  readRelease,
  type Release,
  releaseItems,
  removeReleaseItem,
  renameRelease,
  runRelease,
  scheduleRelease,
  withReleaseLease,
} from "./core/releases.ts";
import type { DelegatedItem } from "./core/schedules.ts";
import {
  type BoundRun,
  dueInstant,
  type OperationAnswer,
  refused,
  timeOfInstant,
} from "./operations.ts";
import {
  id,
  ok,
  refusedBy,
  releaseJson,
  type ReleaseOperationDeps,
  transition,
} from "./release_operation_support.ts";
export { timelinePreviewOperation } from "./timeline_operation.ts";

export type { ReleaseOperationDeps } from "./release_operation_support.ts";

const releasesInput = z.strictObject({ release_id: id.optional() });

/**
 * `releases`: without `release_id`, the installation's releases (rows and `releases.json`);
 * with it, that release's items the person may read, each with its readiness before the
 * release starts or its outcome after, and the receipt.
 */
export async function releasesOperation(
  deps: ReleaseOperationDeps,
  run: BoundRun,
): Promise<OperationAnswer> {
  const input = releasesInput.safeParse(run.input);
  if (!input.success) {
    return refused("invalid_request", "Input is { release_id? }");
  }
  const releaseId = input.data.release_id ?? "";
  if (releaseId === "") {
    const list = await listReleases(deps.db, deps.installationId);
    return ok([
      {
        type: "rows",
        title: "Releases",
        columns: [
          { key: "name", label: "Name" },
          { key: "state", label: "State" },
          { key: "items", label: "Items" },
          { key: "due_at", label: "Runs at (UTC)" },
          { key: "release_id", label: "Id" },
        ],
        rows: list.map((r) => ({
          name: r.name,
          state: r.state,
          items: r.items,
          due_at: r.due_at?.toISOString() ?? "",
          release_id: r.id,
        })),
      },
      {
        type: "json",
        filename: "releases.json",
        data: list.map((r) => ({ ...releaseJson(r), items: r.items })),
      },
    ]);
  }
  const release = await readRelease(deps.db, deps.installationId, releaseId);
  if (!release) return refused("not_found", "No such release");
  const items = await releaseItems(deps.db, release.id);
  const editable = release.state === "draft" || release.state === "scheduled";
  const checks = editable && items.length > 0
    ? await checkReadiness(deps.client, run.delegation_id, items)
    : [];
  const readiness = new Map(checks.map((c) => [c.item.id, c]));
  // An item the person cannot read is counted, never described.
  const visible = items.filter((i) =>
    readiness.get(i.id)?.readiness !== "unreadable"
  );
  const hidden = items.length - visible.length;
  return ok([
    {
      type: "text",
      text: `${release.name}: ${release.state}, ${items.length} item(s)${
        release.due_at ? `, runs at ${release.due_at.toISOString()}` : ""
      }${hidden > 0 ? `; ${hidden} item(s) you cannot read` : ""}`,
      ...(checks.some((c) => c.readiness === "blocked")
        ? { tone: "warning" }
        : {}),
    },
    {
      type: "rows",
      title: "Items",
      columns: [
        { key: "title", label: "Entry" },
        { key: "change", label: "Change" },
        { key: "state", label: editable ? "Readiness" : "Outcome" },
        { key: "reason", label: "Why" },
      ],
      rows: visible.map((i) => {
        const check = readiness.get(i.id);
        return {
          title: i.title,
          change: `${i.kind}${i.locale ? ` (${i.locale})` : ""}${
            i.version_mode === "future" ? ", future version" : ""
          }`,
          state: editable ? check?.readiness ?? "unknown" : i.status,
          reason: editable ? check?.reason ?? "" : i.last_code ?? "",
        };
      }),
    },
    {
      type: "json",
      filename: "release.json",
      data: releaseJson(release, visible),
    },
  ]);
}

const editInput = z.discriminatedUnion("action", [
  z.strictObject({ action: z.literal("create"), name: z.string().max(200) }),
  z.strictObject({
    action: z.literal("rename"),
    release_id: id,
    name: z.string().max(200),
  }),
  z.strictObject({
    action: z.enum(["add", "add_future"]),
    release_id: id,
    instance_id: id,
    kind: z.enum(["publish", "unpublish"]),
    locale: z.string().max(35).optional(),
    transition: transition.optional(),
  }),
  z.strictObject({
    action: z.literal("remove"),
    release_id: id,
    instance_id: id,
    kind: z.enum(["publish", "unpublish"]),
    locale: z.string().max(35).optional(),
  }),
]);

/**
 * `release-edit`: `create` (name), `rename` (release_id, name), `add` / `add_future`
 * (release_id, instance_id, kind, locale?, transition?) and `remove` (release_id,
 * instance_id, kind, locale?). An added entry is read through the delegation, so only a
 * change the person may make now is accepted.
 */
export async function releaseEditOperation(
  deps: ReleaseOperationDeps,
  run: BoundRun,
): Promise<OperationAnswer> {
  const input = editInput.safeParse(run.input);
  if (!input.success) {
    return refused(
      "invalid_request",
      "Input is { action: create | rename | add | add_future | remove, ... } with the fields that action names",
    );
  }
  const now = new Date(deps.now());
  const answer = async (release: Release) =>
    ok([
      { type: "text", text: `${release.name}: ${release.state}` },
      {
        type: "json",
        filename: "release.json",
        data: releaseJson(release, await releaseItems(deps.db, release.id)),
      },
    ]);
  const edit = input.data;
  switch (edit.action) {
    case "create": {
      const made = await createRelease(deps.db, {
        installationId: deps.installationId,
        name: edit.name,
        email: run.user.email,
        now,
      });
      return made.ok ? await answer(made.release) : refusedBy(made);
    }
    case "rename": {
      const done = await renameRelease(
        deps.db,
        deps.installationId,
        edit.release_id,
        edit.name,
        now,
      );
      return done.ok ? await answer(done.release) : refusedBy(done);
    }
    case "add":
    case "add_future": {
      if (edit.transition && !edit.transition.startsWith(`${edit.kind}:`)) {
        return refused(
          "invalid_request",
          "transition and kind name different changes",
        );
      }
      if (!await readRelease(deps.db, deps.installationId, edit.release_id)) {
        return refused("not_found", "No such release");
      }
      const read = await deps.client.content(
        edit.instance_id,
        run.delegation_id,
      );
      if (read.kind !== "success") {
        return refused(
          read.code ?? "temporary_failure",
          "The entry could not be read for this person",
        );
      }
      const added = await addReleaseItem(deps.db, {
        installationId: deps.installationId,
        release: { id: edit.release_id },
        item: (read.body as { data: DelegatedItem }).data,
        kind: edit.kind,
        locale: edit.locale ?? "",
        versionMode: edit.action === "add_future" ? "future" : "ordinary",
        // Stave checks workflow:locale again when the release commits a language.
        mayChooseLocale: true,
        email: run.user.email,
        now,
      });
      return added.ok ? await answer(added.release) : refusedBy(added);
    }
    case "remove": {
      const release = await readRelease(
        deps.db,
        deps.installationId,
        edit.release_id,
      );
      if (!release) return refused("not_found", "No such release");
      const item = (await releaseItems(deps.db, release.id)).find((i) =>
        i.instance_id === edit.instance_id && i.kind === edit.kind &&
        i.locale === (edit.locale ?? "")
      );
      if (!item) return refused("not_found", "No such item in this release");
      const done = await removeReleaseItem(deps.db, {
        installationId: deps.installationId,
        releaseId: release.id,
        itemId: item.id,
        groupId: null,
        now,
      });
      if (!done.ok) return refusedBy(done);
      return await answer(
        (await readRelease(deps.db, deps.installationId, release.id))!,
      );
    }
  }
}

const runInput = z.discriminatedUnion("action", [
  z.strictObject({
    action: z.literal("schedule"),
    release_id: id,
    due_at: z.string().max(40).optional(),
    local_datetime: z.string().max(40).optional(),
    fold: z.enum(["earlier", "later"]).optional(),
    timezone: z.string().min(1).max(64),
  }),
  z.strictObject({
    action: z.enum(["cancel", "run_now", "retry"]),
    release_id: id,
  }),
]);

/**
 * `release-run` (destructive): `schedule` (release_id, due_at on a whole UTC minute, timezone)
 * sets or moves its time and makes the person its runner; `cancel` unschedules it, or stops it
 * while it runs; `run_now` and `retry` run it at once under the release lease, as the plugin's
 * own pages do.
 */
export async function releaseRunOperation(
  deps: ReleaseOperationDeps,
  run: BoundRun,
): Promise<OperationAnswer> {
  const input = runInput.safeParse(run.input);
  if (!input.success) {
    return refused(
      "invalid_request",
      "Input is { action: schedule | cancel | run_now | retry, release_id, due_at?, timezone? }",
    );
  }
  const now = new Date(deps.now());
  const done = (release: Release, text: string) =>
    ok([
      { type: "text", text },
      { type: "json", filename: "release.json", data: releaseJson(release) },
    ]);
  const act = input.data;
  if (act.action === "schedule") {
    const time = releaseTime(act, now);
    if (!time.ok) return time.refusal;
    const scheduled = await scheduleRelease(deps.db, {
      installationId: deps.installationId,
      releaseId: act.release_id,
      time: time.time,
      delegationId: run.delegation_id,
      email: run.user.email,
      now,
    });
    if (!scheduled.ok) return refusedBy(scheduled);
    return done(
      scheduled.release,
      `Scheduled for ${
        localReading(time.time.dueAt, act.timezone)
      } ${act.timezone}: it runs then if every item is ready`,
    );
  }
  if (act.action === "cancel") {
    // As the release page's /cancel: unschedule, or stop a release that is running.
    const cancelled = await cancelRelease(deps.db, {
      installationId: deps.installationId,
      releaseId: act.release_id,
      email: run.user.email,
      now,
    });
    if (!cancelled.ok) return refusedBy(cancelled);
    return done(
      cancelled.release,
      cancelled.stopped
        ? "Stopped: nothing more is sent; a command already sent cannot be called back"
        : "Unscheduled: the release is a draft again",
    );
  }
  const outcome = await withReleaseLease(
    deps.kv,
    act.release_id,
    deps.leaseMs,
    deps.now(),
    (deadline) =>
      runRelease(
        {
          db: deps.db,
          client: deps.client,
          installationId: deps.installationId,
          now: deps.now,
          deadline,
        },
        act.release_id,
        {
          mode: act.action === "run_now" ? "run_now" : "retry",
          delegationId: run.delegation_id,
          email: run.user.email,
        },
      ),
  );
  if (outcome === undefined) {
    return refused("execution_in_progress", "The release is running now");
  }
  if (!outcome.ok) return refusedBy(outcome);
  const words = {
    done: "Committed: every item changed together",
    failed: "Stave refused the release; nothing changed",
    unknown: "The outcome is unknown; retry repeats the same command",
    blocked: "Some items cannot run now; nothing was sent",
    cancelled:
      "The release was stopped while it ran; its receipt says what the command came to",
  } as const;
  return done(outcome.release, words[outcome.state]);
}

/**
 * A release's time from `due_at` (an instant on a whole UTC minute) or `local_datetime` in
 * `timezone`. Neither is `release_time_required`; a local time the zone's clocks show twice
 * (an autumn fold) without `fold` saying which is `release_time_ambiguous`; a local time that
 * does not exist (a spring gap) moves forward, as the release pages resolve it.
 */
function releaseTime(
  act: {
    due_at?: string;
    local_datetime?: string;
    fold?: Fold;
    timezone: string;
  },
  now: Date,
):
  | { ok: true; time: ReturnType<typeof timeOfInstant> }
  | { ok: false; refusal: OperationAnswer } {
  const fail = (code: string, message: string) => ({
    ok: false as const,
    refusal: refused(code, message),
  });
  if (act.due_at !== undefined && act.local_datetime !== undefined) {
    return fail("invalid_request", "Give due_at or local_datetime, not both");
  }
  if (act.due_at !== undefined) {
    const due = dueInstant(act.due_at, act.timezone, now);
    if (!due.ok) return due;
    return { ok: true, time: timeOfInstant(due.dueAt, act.timezone) };
  }
  if (act.local_datetime === undefined) {
    return fail(
      "release_time_required",
      "A release is scheduled at a time: give due_at or local_datetime",
    );
  }
  const local = act.local_datetime.slice(0, 16);
  if (act.fold === undefined && knownTimeZone(act.timezone)) {
    try {
      const plain = Temporal.PlainDateTime.from(local);
      const earlier = plain.toZonedDateTime(act.timezone, {
        disambiguation: "earlier",
      });
      const later = plain.toZonedDateTime(act.timezone, {
        disambiguation: "later",
      });
      if (
        earlier.epochMilliseconds !== later.epochMilliseconds &&
        earlier.toPlainDateTime().equals(plain) &&
        later.toPlainDateTime().equals(plain)
      ) {
        return fail(
          "release_time_ambiguous",
          `${local} happens twice in ${act.timezone}: say fold earlier or later`,
        );
      }
    } catch {
      // Malformed: resolveLocalTime below refuses it by name.
    }
  }
  const resolved = resolveLocalTime(
    local,
    act.timezone,
    act.fold ?? "later",
    now,
  );
  if (!resolved.ok) return fail(resolved.code, resolved.message);
  return {
    ok: true,
    time: {
      local: resolved.local,
      timezone: resolved.timezone,
      fold: resolved.fold,
      dueAt: resolved.dueAt,
    },
  };
}
