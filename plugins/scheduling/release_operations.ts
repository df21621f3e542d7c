// The release operations of part 4.4: `releases` lists and reads releases, `release-edit`
// creates, renames and fills them, `release-run` schedules, unschedules, runs and retries them,
// and `timeline-preview` (automation) answers what will have changed by a release's time. Each
// runs for the person of the run's delegation, over the same release store as the plugin's pages.
import { z } from "zod";
import type { PluginClient } from "../sdk/mod.ts";
import type { SchedulerDb } from "./core/db.ts";
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
  type ReleaseItem,
  releaseItems,
  type ReleaseRefusal,
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

/** What the release operations reach. */
export interface ReleaseOperationDeps {
  db: SchedulerDb;
  kv: Deno.Kv;
  client: PluginClient;
  installationId: string;
  now: () => number;
  leaseMs: number;
}

const id = z.string().max(64);
const transition = z.enum(["publish:published", "unpublish:draft"]);

function refusedBy(r: ReleaseRefusal): OperationAnswer {
  return refused(r.code, r.message);
}

function ok(blocks: unknown[]): OperationAnswer {
  return { status: "ok", blocks };
}

/** A release as its JSON file shows it; items only those the person may read. */
function releaseJson(release: Release, items?: ReleaseItem[]) {
  const receipt = typeof release.receipt === "string"
    ? JSON.parse(release.receipt)
    : release.receipt;
  return {
    release_id: release.id,
    name: release.name,
    state: release.state,
    due_at: release.due_at?.toISOString() ?? null,
    timezone: release.timezone,
    local_datetime: release.local_datetime,
    attempt: release.attempt,
    last_code: release.last_code,
    receipt: receipt ?? null,
    ...(items
      ? {
        items: items.map((i) => ({
          item_id: i.id,
          instance_id: i.instance_id,
          title: i.title,
          transition: `${i.kind}:${i.target_state}`,
          locale: i.locale === "" ? null : i.locale,
          version_mode: i.version_mode,
          status: i.status,
          // Spec 1 part 2's release item: the attempt that sent it and what it published.
          attempt: i.attempt,
          published_version_id: i.published_version_id,
          last_code: i.last_code,
        })),
      }
      : {}),
  };
}

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

const timelineInput = z.strictObject({ release_id: id });

/**
 * `timeline-preview` (automation): every scheduled release and pending schedule due up to and
 * including the named release's time, in order, with the changes each makes: what the site
 * will have changed by then. Reads only.
 */
export async function timelinePreviewOperation(
  deps: ReleaseOperationDeps,
  run: BoundRun,
): Promise<OperationAnswer> {
  const input = timelineInput.safeParse(run.input);
  if (!input.success) {
    return refused("invalid_request", "Input is { release_id }");
  }
  const target = await readRelease(
    deps.db,
    deps.installationId,
    input.data.release_id,
  );
  if (!target) return refused("not_found", "No such release");
  if (target.state !== "scheduled" || !target.due_at) {
    return refused(
      "release_time_required",
      "The release has no time: schedule it first",
    );
  }
  const until = target.due_at;
  const releases = (await deps.db.selectFrom("releases").selectAll()
    .where("installation_id", "=", deps.installationId)
    .where("state", "=", "scheduled").where("due_at", "<=", until)
    .orderBy("due_at").orderBy("created_at").execute()) as Release[];
  const schedules = await deps.db.selectFrom("schedules").selectAll()
    .where("installation_id", "=", deps.installationId)
    .where("status", "in", ["pending", "retrying"])
    .where("due_at", "<=", until).orderBy("due_at").execute();
  const steps: {
    at: string;
    kind: "release" | "schedule";
    id: string;
    name: string;
    changes: {
      instance_id: string;
      transition: string;
      locale: string | null;
    }[];
  }[] = [];
  // Each step's language scopes, to find two changes of one entry at one instant.
  const scopes: { at: number; step: string; group: string; locale: string }[] =
    [];
  for (const r of releases) {
    const items = await releaseItems(deps.db, r.id);
    for (const i of items) {
      scopes.push({
        at: r.due_at!.getTime(),
        step: r.id,
        group: i.group_id,
        locale: i.locale,
      });
    }
    steps.push({
      at: r.due_at!.toISOString(),
      kind: "release",
      id: r.id,
      name: r.name,
      changes: items.map((i) => ({
        instance_id: i.instance_id,
        transition: `${i.kind}:${i.target_state}`,
        locale: i.locale === "" ? null : i.locale,
      })),
    });
  }
  for (const s of schedules) {
    scopes.push({
      at: s.due_at.getTime(),
      step: s.id,
      group: s.group_id,
      locale: s.locale,
    });
    steps.push({
      at: s.due_at.toISOString(),
      kind: "schedule",
      id: s.id,
      name: s.title,
      changes: [{
        instance_id: s.instance_id,
        transition: `${s.kind}:${s.target_state}`,
        locale: s.locale === "" ? null : s.locale,
      }],
    });
  }
  // Steps at one instant have no order, so two of them changing the same entry and language
  // leave what the site holds afterwards unknowable.
  const clash = scopes.find((a, n) =>
    scopes.slice(n + 1).some((b) =>
      a.at === b.at && a.step !== b.step && a.group === b.group &&
      (a.locale === "" || b.locale === "" || a.locale === b.locale)
    )
  );
  if (clash) {
    return refused(
      "release_time_ambiguous",
      `Two changes of one entry fall on ${
        new Date(clash.at).toISOString()
      }: move one of them`,
    );
  }
  steps.sort((a, b) =>
    a.at.localeCompare(b.at) || a.kind.localeCompare(b.kind)
  );
  return ok([{
    type: "json",
    filename: "timeline.json",
    data: { through: target.id, until: until.toISOString(), steps },
  }]);
}
