// Releases (spec 1 parts 3.3 and 4.5 rule 7): named sets of up to 25 publish or unpublish items
// run together, at a set time or now, as one /releases/commit command that Stave checks whole
// and commits or refuses whole. Ordinary items are pinned only when the release runs; a
// `future` item freezes its version when the release first starts. A running release can be
// stopped: nothing more is sent, and a command already in flight is recorded as it lands.
import type { PluginClient, PluginResult } from "../../sdk/mod.ts";
import type {
  ReleaseItemsTable,
  ReleasesTable,
  ReleaseState,
  SchedulerDb,
} from "./db.ts";
import type { Fold } from "./local_time.ts";
import { type DelegatedItem, itemTitle, TARGET_STATE } from "./schedules.ts";

/** At most this many items in a release. */
export const RELEASE_MAX_ITEMS = 25;

export type Release =
  & Omit<ReleasesTable, "attempt" | "items_revision">
  & { attempt: number; items_revision: number };
export type ReleaseItem = Omit<ReleaseItemsTable, "attempt"> & {
  attempt: number;
};

/** A release refusal by name. */
export interface ReleaseRefusal {
  ok: false;
  code:
    | "invalid_request"
    | "not_found"
    | "already_in_release"
    | "release_full"
    | "release_changed"
    | "release_locked"
    | "release_blocked"
    | "release_empty"
    | "future_requires_publish"
    | "transition_unavailable"
    | "locale_unavailable"
    | "execution_in_progress"
    | "temporary_failure";
  message: string;
}

function refusal(
  code: ReleaseRefusal["code"],
  message: string,
): ReleaseRefusal {
  return { ok: false, code, message };
}

const EDITABLE: ReleaseState[] = ["draft", "scheduled"];

/** Checks a release name: 1 to 80 characters after trimming. */
export function releaseName(
  value: unknown,
): { ok: true; name: string } | ReleaseRefusal {
  const name = typeof value === "string" ? value.trim() : "";
  if (name.length < 1 || [...name].length > 80) {
    return refusal(
      "invalid_request",
      "A release name has 1 to 80 characters",
    );
  }
  return { ok: true, name };
}

/** Creates an empty draft release. */
export async function createRelease(
  db: SchedulerDb,
  input: { installationId: string; name: unknown; email: string; now: Date },
): Promise<{ ok: true; release: Release } | ReleaseRefusal> {
  const name = releaseName(input.name);
  if (!name.ok) return name;
  const release = await db.insertInto("releases").values({
    id: crypto.randomUUID(),
    installation_id: input.installationId,
    name: name.name,
    state: "draft",
    local_datetime: null,
    timezone: null,
    fold: null,
    due_at: null,
    blocked_at: null,
    delegation_id: null,
    requester_email: null,
    command: null,
    command_key: null,
    receipt: null,
    last_code: null,
    last_message: null,
    created_by_email: input.email,
    created_at: input.now,
    updated_at: input.now,
  }).returningAll().executeTakeFirstOrThrow();
  return { ok: true, release };
}

/** One release of an installation. */
export async function readRelease(
  db: SchedulerDb,
  installationId: string,
  releaseId: string,
): Promise<Release | undefined> {
  if (!/^[0-9a-f-]{36}$/i.test(releaseId)) return undefined;
  return await db.selectFrom("releases").selectAll()
    .where("installation_id", "=", installationId)
    .where("id", "=", releaseId).executeTakeFirst();
}

/** A release's items in the order they were added. */
export async function releaseItems(
  db: SchedulerDb,
  releaseId: string,
): Promise<ReleaseItem[]> {
  return await db.selectFrom("release_items").selectAll()
    .where("release_id", "=", releaseId).orderBy("position").execute();
}

/** The installation's releases, newest first. */
export async function listReleases(
  db: SchedulerDb,
  installationId: string,
): Promise<(Release & { items: number })[]> {
  const rows = await db.selectFrom("releases").selectAll("releases")
    .select((e) =>
      e.selectFrom("release_items").select((f) => f.fn.countAll().as("n"))
        .whereRef("release_items.release_id", "=", "releases.id").as("items")
    )
    .where("installation_id", "=", installationId)
    .orderBy("created_at", "desc").orderBy("id").limit(200).execute();
  return rows.map((r) => ({ ...r, items: Number(r.items ?? 0) }));
}

/** Renames a release (any state but running). */
export async function renameRelease(
  db: SchedulerDb,
  installationId: string,
  releaseId: string,
  value: unknown,
  now: Date,
): Promise<{ ok: true; release: Release } | ReleaseRefusal> {
  const name = releaseName(value);
  if (!name.ok) return name;
  const updated = await db.updateTable("releases")
    .set({ name: name.name, updated_at: now })
    .where("installation_id", "=", installationId)
    .where("id", "=", releaseId).where("state", "!=", "running")
    .returningAll().executeTakeFirst();
  if (updated) return { ok: true, release: updated };
  return await stateRefusal(db, installationId, releaseId);
}

async function stateRefusal(
  db: SchedulerDb,
  installationId: string,
  releaseId: string,
): Promise<ReleaseRefusal> {
  const release = await readRelease(db, installationId, releaseId);
  if (!release) return refusal("not_found", "No such release");
  if (release.state === "running") {
    return refusal(
      "execution_in_progress",
      "The release is running now; it cannot be changed",
    );
  }
  return refusal(
    "release_locked",
    `The release is ${release.state}; this is not possible now`,
  );
}

/** What adding an item needs. */
export interface NewReleaseItem {
  installationId: string;
  /** An existing release, or a name for a new one. */
  release: { id: string } | { newName: unknown };
  item: DelegatedItem;
  kind: "publish" | "unpublish";
  locale: string;
  versionMode: "ordinary" | "future";
  mayChooseLocale: boolean;
  email: string;
  now: Date;
}

/**
 * Adds an entry to a release: the change must be offered to the person now; one item per
 * language scope of a group (a whole-group item overlaps every language); at most 25.
 */
export async function addReleaseItem(
  db: SchedulerDb,
  input: NewReleaseItem,
): Promise<{ ok: true; release: Release; item: ReleaseItem } | ReleaseRefusal> {
  if (input.versionMode === "future" && input.kind !== "publish") {
    return refusal(
      "future_requires_publish",
      "Only a publish can take an independent future version",
    );
  }
  const workflow = input.item.workflow;
  const to = TARGET_STATE[input.kind];
  const offered = input.locale === ""
    ? workflow?.transitions
    : workflow?.locales[input.locale]?.transitions;
  if (input.locale !== "" && (!input.mayChooseLocale || !offered)) {
    return refusal(
      "locale_unavailable",
      `The language "${input.locale.slice(0, 35)}" is not offered`,
    );
  }
  if (!offered?.some((t) => t.kind === input.kind && t.to === to)) {
    return refusal(
      "transition_unavailable",
      `You may not ${input.kind} this content now`,
    );
  }
  let releaseId: string;
  if ("newName" in input.release) {
    const made = await createRelease(db, {
      installationId: input.installationId,
      name: input.release.newName,
      email: input.email,
      now: input.now,
    });
    if (!made.ok) return made;
    releaseId = made.release.id;
  } else {
    releaseId = input.release.id;
  }
  return await db.transaction().execute(async (tx) => {
    const release = await tx.selectFrom("releases").selectAll()
      .where("installation_id", "=", input.installationId)
      .where("id", "=", releaseId).forUpdate().executeTakeFirst();
    if (!release) return refusal("not_found", "No such release");
    if (!EDITABLE.includes(release.state)) {
      return refusal(
        "release_locked",
        `Items are added only to a draft or scheduled release (this one is ${release.state})`,
      );
    }
    const items = await tx.selectFrom("release_items")
      .select(["group_id", "locale", "position"])
      .where("release_id", "=", releaseId).execute();
    if (
      items.some((i) =>
        i.group_id === input.item.group_id &&
        (i.locale === "" || input.locale === "" || i.locale === input.locale)
      )
    ) {
      return refusal(
        "already_in_release",
        "This entry (or one of its languages) is already in the release",
      );
    }
    if (items.length >= RELEASE_MAX_ITEMS) {
      return refusal(
        "release_full",
        `A release holds at most ${RELEASE_MAX_ITEMS} items`,
      );
    }
    const item = await tx.insertInto("release_items").values({
      id: crypto.randomUUID(),
      release_id: releaseId,
      installation_id: input.installationId,
      instance_id: input.item.instance_id,
      group_id: input.item.group_id,
      model_id: input.item.model_id,
      title: itemTitle(input.item),
      locale: input.locale,
      kind: input.kind,
      target_state: to,
      version_mode: input.versionMode,
      frozen_version_id: null,
      status: "pending",
      published_version_id: null,
      last_code: null,
      position: Math.max(0, ...items.map((i) => i.position)) + 1,
      added_by_email: input.email,
      created_at: input.now,
    }).returningAll().executeTakeFirstOrThrow();
    const updated = await tx.updateTable("releases")
      .set((e) => ({
        items_revision: e("items_revision", "+", 1),
        updated_at: input.now,
      }))
      .where("id", "=", releaseId).returningAll().executeTakeFirstOrThrow();
    return { ok: true as const, release: updated, item };
  });
}

/** Removes an item before the release starts; `groupId` limits a content session to its entry. */
export async function removeReleaseItem(
  db: SchedulerDb,
  input: {
    installationId: string;
    releaseId: string;
    itemId: string;
    groupId: string | null;
    now: Date;
  },
): Promise<{ ok: true } | ReleaseRefusal> {
  return await db.transaction().execute(async (tx) => {
    const release = await tx.selectFrom("releases").select(["id", "state"])
      .where("installation_id", "=", input.installationId)
      .where("id", "=", input.releaseId).forUpdate().executeTakeFirst();
    if (!release) return refusal("not_found", "No such release");
    if (!EDITABLE.includes(release.state)) {
      return refusal(
        "release_locked",
        "Items are removed only before the release starts",
      );
    }
    let query = tx.deleteFrom("release_items")
      .where("release_id", "=", input.releaseId)
      .where(
        "id",
        "=",
        /^[0-9a-f-]{36}$/i.test(input.itemId)
          ? input.itemId
          : "00000000-0000-0000-0000-000000000000",
      );
    if (input.groupId !== null) {
      query = query.where("group_id", "=", input.groupId);
    }
    const gone = await query.executeTakeFirst();
    if (Number(gone.numDeletedRows) !== 1) {
      return refusal("not_found", "No such item in this release");
    }
    await tx.updateTable("releases")
      .set((e) => ({
        items_revision: e("items_revision", "+", 1),
        updated_at: input.now,
      }))
      .where("id", "=", input.releaseId).execute();
    return { ok: true as const };
  });
}

/**
 * Sets or moves the release time (draft or scheduled → scheduled); clears a blocked mark. The
 * person who schedules it is the one whose authority runs it.
 */
export async function scheduleRelease(
  db: SchedulerDb,
  input: {
    installationId: string;
    releaseId: string;
    time: { local: string; timezone: string; fold: Fold; dueAt: Date };
    delegationId: string;
    email: string;
    now: Date;
  },
): Promise<{ ok: true; release: Release } | ReleaseRefusal> {
  const updated = await db.updateTable("releases").set({
    state: "scheduled",
    local_datetime: input.time.local,
    timezone: input.time.timezone,
    fold: input.time.fold,
    due_at: input.time.dueAt,
    blocked_at: null,
    delegation_id: input.delegationId,
    requester_email: input.email,
    updated_at: input.now,
  }).where("installation_id", "=", input.installationId)
    .where("id", "=", input.releaseId).where("state", "in", EDITABLE)
    .returningAll().executeTakeFirst();
  if (updated) return { ok: true, release: updated };
  return await stateRefusal(db, input.installationId, input.releaseId);
}

/** Unschedules a scheduled release (back to draft). */
export async function unscheduleRelease(
  db: SchedulerDb,
  installationId: string,
  releaseId: string,
  now: Date,
): Promise<{ ok: true; release: Release } | ReleaseRefusal> {
  const updated = await db.updateTable("releases").set({
    state: "draft",
    due_at: null,
    blocked_at: null,
    updated_at: now,
  }).where("installation_id", "=", installationId)
    .where("id", "=", releaseId).where("state", "=", "scheduled")
    .returningAll().executeTakeFirst();
  if (updated) return { ok: true, release: updated };
  return await stateRefusal(db, installationId, releaseId);
}

/** The code a stopped release and its unsent items carry (ours; the spec names none). */
export const RELEASE_STOPPED = "release_stopped";

/**
 * What a stop knows of the command of the attempt it interrupted: `not_sent` (the runner saw
 * the stop before its first send), `refused` (the send in flight was refused: nothing changed)
 * or `unknown` (a send went out and no answer established whether it committed; also what the
 * stop itself writes, since only the runner knows whether it had sent). A commit that lands
 * after the stop replaces the stop receipt with an `applied` one.
 */
export type StoppedOutcome = "not_sent" | "refused" | "unknown";

/** The receipt of a stopped release. */
export interface StoppedReceipt {
  kind: "stopped";
  at: string;
  by: string;
  key: string | null;
  outcome: StoppedOutcome;
  /** The last answer's code, when a send was answered. */
  code?: string | null;
}

/** A release's receipt as stored (jsonb comes back parsed, PGlite text as a string). */
export function receiptOf(
  release: Pick<Release, "receipt">,
): Record<string, unknown> | null {
  return (typeof release.receipt === "string"
    ? JSON.parse(release.receipt)
    : release.receipt) as Record<string, unknown> | null;
}

/**
 * Whether Retry first repeats the interrupted command under its own key (spec 1 part 3.3:
 * "unknown is recovered first under the same key"): an unknown outcome, or a stop whose
 * command may have committed. Such a retry sends no fresh versions, so readiness does not gate it.
 */
export function retryRecovers(release: Release): boolean {
  if (!release.command_key) return false;
  if (release.state === "unknown") return true;
  const receipt = receiptOf(release);
  return release.state === "cancelled" && receipt?.kind === "stopped" &&
    receipt.outcome === "unknown";
}

/**
 * Stops a running release (spec 1 part 3.3, REL-013): it becomes `cancelled` and its unsent
 * items `cancelled`; the runner checks the state before every send, so nothing more goes out.
 * A command already in flight cannot be called back: its answer is recorded when it arrives.
 * Any other state is refused by name (`release_locked`, `not_found`).
 */
export async function stopRelease(
  db: SchedulerDb,
  input: {
    installationId: string;
    releaseId: string;
    email: string;
    now: Date;
  },
): Promise<{ ok: true; release: Release } | ReleaseRefusal> {
  const stopped = await db.transaction().execute(async (tx) => {
    const current = await tx.selectFrom("releases").selectAll()
      .where("installation_id", "=", input.installationId)
      .where(
        "id",
        "=",
        /^[0-9a-f-]{36}$/i.test(input.releaseId)
          ? input.releaseId
          : "00000000-0000-0000-0000-000000000000",
      )
      .forUpdate().executeTakeFirst();
    if (current?.state !== "running") return undefined;
    const receipt: StoppedReceipt = {
      kind: "stopped",
      at: input.now.toISOString(),
      by: input.email,
      key: current.command_key,
      outcome: "unknown",
    };
    await tx.updateTable("release_items")
      .set({ status: "cancelled", last_code: RELEASE_STOPPED })
      .where("release_id", "=", current.id).where("status", "!=", "done")
      .execute();
    return await tx.updateTable("releases").set({
      state: "cancelled",
      receipt: JSON.stringify(receipt),
      last_code: RELEASE_STOPPED,
      last_message:
        "Stopped: nothing more is sent; a command already sent cannot be called back",
      updated_at: input.now,
    }).where("id", "=", current.id).returningAll().executeTakeFirstOrThrow();
  });
  if (stopped) return { ok: true, release: stopped };
  return await stateRefusal(db, input.installationId, input.releaseId);
}

/**
 * `/cancel` (spec 1 part 4.4, "unschedule or stop"): a scheduled release goes back to draft,
 * a running one is stopped; anything else is refused `release_locked`.
 */
export async function cancelRelease(
  db: SchedulerDb,
  input: {
    installationId: string;
    releaseId: string;
    email: string;
    now: Date;
  },
): Promise<
  { ok: true; release: Release; stopped: boolean } | ReleaseRefusal
> {
  const unscheduled = await unscheduleRelease(
    db,
    input.installationId,
    input.releaseId,
    input.now,
  );
  if (unscheduled.ok) return { ...unscheduled, stopped: false };
  if (unscheduled.code !== "execution_in_progress") return unscheduled;
  const stopped = await stopRelease(db, input);
  return stopped.ok ? { ...stopped, stopped: true } : stopped;
}

/** One item's readiness as a run would see it now. */
export interface ItemReadiness {
  item: ReleaseItem;
  /** `unreadable` items are counted, never described. */
  readiness: "ready" | "blocked" | "unknown" | "unreadable";
  reason: string | null;
  change?: ReleaseChange;
}

/** One change of the commit command (Stave's `/releases/commit` shape). */
export interface ReleaseChange {
  instance_id: string;
  kind: "publish" | "unpublish";
  locale?: string;
  expected_current_version_id?: string | null;
  expected_published_version_id?: string | null;
  expected_workflow_revision: number;
}

/** Reads each item through the delegation and says whether the release could run now. */
export async function checkReadiness(
  client: PluginClient,
  delegationId: string,
  items: ReleaseItem[],
): Promise<ItemReadiness[]> {
  const out: ItemReadiness[] = [];
  for (const item of items) {
    const read = await client.content(item.instance_id, delegationId);
    out.push(readinessOf(item, read));
  }
  return out;
}

function readinessOf(item: ReleaseItem, read: PluginResult): ItemReadiness {
  if (read.kind === "exhausted") {
    return { item, readiness: "unknown", reason: "Stave could not be reached" };
  }
  if (read.kind === "terminal") {
    return read.code === "content_not_found" ||
        read.code === "requester_unauthorized"
      ? { item, readiness: "unreadable", reason: null }
      : { item, readiness: "unknown", reason: read.message };
  }
  const data = (read.body as { data: DelegatedItem }).data;
  const workflow = data.workflow;
  const language = item.locale === ""
    ? undefined
    : workflow?.locales[item.locale];
  const offered = item.locale === ""
    ? workflow?.transitions
    : language?.transitions;
  if (!workflow || !offered?.some((t) => t.kind === item.kind)) {
    return {
      item,
      readiness: "blocked",
      reason: `${
        item.kind === "publish" ? "Publishing" : "Unpublishing"
      } is not offered now`,
    };
  }
  const change: ReleaseChange = {
    instance_id: item.instance_id,
    kind: item.kind,
    expected_workflow_revision: workflow.revision,
  };
  if (item.locale !== "") change.locale = item.locale;
  if (item.kind === "publish") {
    const current = language
      ? language.current_version_id
      : workflow.current_version_id;
    change.expected_current_version_id = item.version_mode === "future"
      ? item.frozen_version_id ?? current
      : current;
  } else {
    change.expected_published_version_id = language
      ? language.published_version_id
      : workflow.published_version_id;
  }
  return { item, readiness: "ready", reason: null, change };
}

/** How a run was started. */
export type RunMode = "run_now" | "tick" | "retry";

/** What a run came to; `cancelled` when it was stopped while running. */
export type RunOutcome =
  | {
    ok: true;
    state: "done" | "failed" | "unknown" | "cancelled";
    release: Release;
  }
  | { ok: true; state: "blocked"; release: Release; blocked: number }
  | ReleaseRefusal;

/** What a run needs. */
export interface RunContext {
  db: SchedulerDb;
  /** Reads items for the readiness checks and sends the commit. */
  client: PluginClient;
  installationId: string;
  now: () => number;
  /** Epoch ms by which the command must have been answered (a lease end, minus a margin). */
  deadline?: number;
}

const RUNNABLE: Record<RunMode, ReleaseState[]> = {
  run_now: ["draft", "scheduled"],
  tick: ["scheduled"],
  retry: ["failed", "unknown", "cancelled"],
};

/**
 * Runs a release: readiness first (a blocked item stops a manual run, and marks a due
 * release blocked), then one commit under `rel:<release_id>:a<attempt>`. A release whose last
 * outcome was unknown is recovered by repeating the very same command under the same key.
 */
export async function runRelease(
  ctx: RunContext,
  releaseId: string,
  by: { mode: RunMode; delegationId?: string; email?: string },
): Promise<RunOutcome> {
  const release = await readRelease(ctx.db, ctx.installationId, releaseId);
  if (!release) return refusal("not_found", "No such release");
  if (!RUNNABLE[by.mode].includes(release.state)) {
    return release.state === "running"
      ? refusal("execution_in_progress", "The release is running now")
      : refusal(
        "release_locked",
        `A ${release.state} release cannot be ${
          by.mode === "retry" ? "retried" : "started"
        }`,
      );
  }
  if (by.mode === "retry" && retryRecovers(release)) {
    const moved = await ctx.db.updateTable("releases")
      .set({ state: "running", updated_at: new Date(ctx.now()) })
      .where("id", "=", release.id).where("state", "=", release.state)
      .executeTakeFirst();
    if (Number(moved.numUpdatedRows) !== 1) {
      return refusal("execution_in_progress", "The release is running now");
    }
    return await send(ctx, { ...release, state: "running" });
  }
  const delegationId = by.delegationId ?? release.delegation_id;
  if (!delegationId) {
    return refusal(
      "release_locked",
      "Schedule or run the release from the calendar first",
    );
  }
  const items = (await releaseItems(ctx.db, release.id)).filter((i) =>
    i.status !== "done"
  );
  if (items.length === 0) {
    return refusal("release_empty", "The release has no items to run");
  }
  const seen = release.items_revision;
  const checks = await checkReadiness(ctx.client, delegationId, items);
  const blocked = checks.filter((c) =>
    c.readiness === "blocked" || c.readiness === "unreadable"
  );
  const now = new Date(ctx.now());
  if (blocked.length > 0) {
    if (by.mode !== "tick") {
      return refusal(
        "release_blocked",
        `${blocked.length} item(s) cannot run now; remove or fix them first`,
      );
    }
    const marked = await ctx.db.updateTable("releases").set({
      blocked_at: now,
      receipt: JSON.stringify({
        kind: "blocked",
        at: now.toISOString(),
        items: checks.map((c) =>
          c.readiness === "unreadable"
            ? { readiness: "unreadable" }
            : { item_id: c.item.id, readiness: c.readiness, reason: c.reason }
        ),
      }),
      updated_at: now,
    }).where("id", "=", release.id).where("items_revision", "=", seen)
      .returningAll().executeTakeFirst();
    if (!marked) {
      return refusal("release_changed", "The items changed during the checks");
    }
    return {
      ok: true,
      state: "blocked",
      release: marked,
      blocked: blocked.length,
    };
  }
  if (checks.some((c) => c.readiness === "unknown")) {
    return refusal(
      "temporary_failure",
      "Stave could not confirm every item; try again in a moment",
    );
  }
  const attempt = release.attempt + 1;
  const command = {
    delegation_id: delegationId,
    changes: checks.map((c) => c.change!),
  };
  const started = await ctx.db.transaction().execute(async (tx) => {
    const row = await tx.updateTable("releases").set({
      state: "running",
      attempt,
      command: JSON.stringify(command),
      command_key: `rel:${release.id}:a${attempt}`,
      delegation_id: delegationId,
      requester_email: by.email ?? release.requester_email,
      blocked_at: null,
      last_code: null,
      last_message: null,
      updated_at: now,
    }).where("id", "=", release.id)
      .where("state", "=", release.state)
      .where("items_revision", "=", seen)
      .returningAll().executeTakeFirst();
    if (!row) return undefined;
    // A future item's version is frozen when the release first starts.
    for (const c of checks) {
      await tx.updateTable("release_items").set({
        attempt,
        frozen_version_id: c.item.version_mode === "future"
          ? c.change!.expected_current_version_id ?? null
          : null,
      }).where("id", "=", c.item.id).execute();
    }
    return row;
  });
  if (!started) {
    return refusal(
      "release_changed",
      "The release's items changed while it was being checked; nothing was sent",
    );
  }
  return await send(ctx, started);
}

// Sends the stored command under its key; the client resends a transient answer (same command,
// same key) within its caps, and reads the release's state before every send: after a stop,
// nothing more goes out. Then records what came back.
async function send(ctx: RunContext, release: Release): Promise<RunOutcome> {
  const command =
    (typeof release.command === "string"
      ? JSON.parse(release.command)
      : release.command) as { changes: ReleaseChange[] };
  const result = await ctx.client.request({
    method: "POST",
    path: "/releases/commit",
    json: command,
    idempotencyKey: release.command_key!,
    deadline: ctx.deadline,
    proceed: async () => {
      const { state } = await ctx.db.selectFrom("releases").select("state")
        .where("id", "=", release.id).executeTakeFirstOrThrow();
      return state === "running";
    },
  });
  // Stopped before anything was sent: there is no answer to record.
  const sent =
    result.kind === "exhausted" && result.stopped && result.attempts === 0
      ? undefined
      : result;
  return await record(ctx, release, sent);
}

// Records a send's result (`undefined`: nothing was sent). A release that is no longer running
// was stopped (only a stop moves it while its runner holds the lease): it stays `cancelled`,
// and what the command in flight came to is written into its receipt.
async function record(
  ctx: RunContext,
  release: Release,
  result: PluginResult | undefined,
): Promise<RunOutcome> {
  const now = new Date(ctx.now());
  const items = await releaseItems(ctx.db, release.id);
  const sent = items.filter((i) => i.attempt === release.attempt);
  return await ctx.db.transaction().execute(async (tx) => {
    const current = await tx.selectFrom("releases").selectAll()
      .where("id", "=", release.id).forUpdate().executeTakeFirstOrThrow();
    const stopped = current.state !== "running" || result === undefined;
    if (result?.kind === "success") {
      const changes = ((result.body as {
        result?: { changes?: { published_version_id: string | null }[] };
      }).result?.changes) ?? [];
      for (const [index, item] of sent.entries()) {
        await tx.updateTable("release_items").set({
          status: "done",
          last_code: result.outcomeCode,
          published_version_id: changes[index]?.published_version_id ?? null,
        }).where("id", "=", item.id).execute();
      }
      // A command in flight when the release was stopped cannot be reversed: it committed,
      // so the receipt says so, and the release stays cancelled as the person left it.
      const stop = stopped ? receiptOf(current) : null;
      const row = await tx.updateTable("releases").set({
        state: stopped ? current.state : "done",
        last_code: result.outcomeCode,
        ...(stopped
          ? {
            last_message:
              "Stopped while its command was in flight; that command committed and cannot be reversed",
          }
          : {}),
        receipt: JSON.stringify({
          kind: "applied",
          at: now.toISOString(),
          key: release.command_key,
          items: sent.map((item, index) => ({
            item_id: item.id,
            published_version_id: changes[index]?.published_version_id ?? null,
          })),
          ...(stopped
            ? { stopped_at: stop?.at ?? null, stopped_by: stop?.by ?? null }
            : {}),
        }),
        updated_at: now,
      }).where("id", "=", release.id).returningAll().executeTakeFirstOrThrow();
      return {
        ok: true as const,
        state: stopped ? "cancelled" as const : "done" as const,
        release: row,
      };
    }
    if (stopped) {
      // A refusal changed nothing; a transient or lost answer leaves the commit open, and
      // Retry then repeats the command under the same key first.
      const stop = receiptOf(current);
      const receipt: StoppedReceipt = {
        kind: "stopped",
        at: typeof stop?.at === "string" ? stop.at : now.toISOString(),
        by: typeof stop?.by === "string" ? stop.by : "",
        key: release.command_key,
        outcome: result === undefined
          ? "not_sent"
          : result.kind === "terminal"
          ? "refused"
          : "unknown",
        ...(result ? { code: result.code } : {}),
      };
      const row = await tx.updateTable("releases").set({
        receipt: JSON.stringify(receipt),
        updated_at: now,
      }).where("id", "=", release.id).returningAll().executeTakeFirstOrThrow();
      return { ok: true as const, state: "cancelled" as const, release: row };
    }
    const state = result.kind === "terminal" ? "failed" : "unknown";
    const code = result.code ??
      (result.kind === "terminal" ? "invalid_response" : "temporary_failure");
    if (state === "failed") {
      await tx.updateTable("release_items").set({
        status: "failed",
        last_code: code,
      })
        .where("release_id", "=", release.id).where("status", "!=", "done")
        .execute();
    }
    const row = await tx.updateTable("releases").set({
      state,
      last_code: code,
      last_message: result.kind === "terminal"
        ? result.message.slice(0, 500)
        : "No answer established whether the release was committed; Retry repeats the same command",
      updated_at: now,
    }).where("id", "=", release.id).returningAll().executeTakeFirstOrThrow();
    return { ok: true as const, state, release: row };
  });
}

/**
 * A release left `running` by a process that died (no lease, not touched for a lease's length)
 * becomes `unknown`: nothing proves whether its command committed, and Retry repeats it under
 * the same key.
 */
export async function settleAbandonedRuns(
  db: SchedulerDb,
  kv: Deno.Kv,
  installationId: string,
  now: number,
  leaseMs: number,
): Promise<void> {
  const running = await db.selectFrom("releases").select(["id", "updated_at"])
    .where("installation_id", "=", installationId)
    .where("state", "=", "running")
    .where("updated_at", "<", new Date(now - leaseMs)).execute();
  for (const r of running) {
    const lease = await kv.get<{ expiresAt: number }>(lockReleaseKey(r.id));
    if (lease.value && lease.value.expiresAt > now) continue;
    await db.updateTable("releases").set({
      state: "unknown",
      last_code: "temporary_failure",
      last_message:
        "The run stopped before an answer arrived; Retry repeats the same command",
      updated_at: new Date(now),
    }).where("id", "=", r.id).where("state", "=", "running").execute();
  }
}

/** Scheduled releases that are due and not marked blocked, soonest first. */
export async function dueReleases(
  db: SchedulerDb,
  installationId: string,
  now: Date,
  limit: number,
): Promise<Release[]> {
  return await db.selectFrom("releases").selectAll()
    .where("installation_id", "=", installationId)
    .where("state", "=", "scheduled")
    .where("blocked_at", "is", null)
    .where("due_at", "<=", now)
    .orderBy("due_at").orderBy("id").limit(limit).execute();
}

/** The KV key of a release's lease: one runner at a time, page or tick. */
export function lockReleaseKey(releaseId: string): Deno.KvKey {
  return ["scheduling", "release-lease", releaseId];
}

/** Takes the release lease in KV, runs `fn`, and gives the lease back. */
export async function withReleaseLease<T>(
  kv: Deno.Kv,
  releaseId: string,
  leaseMs: number,
  now: number,
  fn: (deadline: number) => Promise<T>,
): Promise<T | undefined> {
  const key = lockReleaseKey(releaseId);
  const current = await kv.get<{ expiresAt: number }>(key);
  if (current.value && current.value.expiresAt > now) return undefined;
  const owner = crypto.randomUUID();
  const expiresAt = now + leaseMs;
  const set = await kv.atomic().check(current)
    .set(key, { owner, expiresAt }, { expireIn: leaseMs }).commit();
  if (!set.ok) return undefined;
  try {
    return await fn(expiresAt - 5_000);
  } finally {
    const mine = await kv.get<{ owner: string }>(key);
    if (mine.value?.owner === owner) {
      await kv.atomic().check(mine).delete(key).commit();
    }
  }
}
