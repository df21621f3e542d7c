// Releases (spec 1 parts 3.3 and 4.5 rule 7): named sets of up to 25 publish or unpublish items
// run together, at a set time or now, as one /releases/commit command that Stave checks whole
// and commits or refuses whole. Ordinary items are pinned only when the release runs; a
// `future` item freezes its version when the release first starts. A running release can be
// stopped: nothing more is sent, and a command already in flight is recorded as it lands.
import type { ReleaseState, SchedulerDb } from "./db.ts";
import type { Fold } from "./local_time.ts";
import { type DelegatedItem, itemTitle, TARGET_STATE } from "./schedules.ts";
import {
  readRelease,
  refusal,
  type Release,
  type ReleaseItem,
  type ReleaseRefusal,
} from "./release_records.ts";
export { readRelease, releaseItems } from "./release_records.ts";
import type { StoppedReceipt } from "./release_runs.ts";
export {
  checkReadiness,
  receiptOf,
  retryRecovers,
  runRelease,
} from "./release_runs.ts";
export type {
  ItemReadiness,
  ReleaseChange,
  RunContext,
  RunMode,
  RunOutcome,
  StoppedOutcome,
  StoppedReceipt,
} from "./release_runs.ts";

export type {
  Release,
  ReleaseItem,
  ReleaseRefusal,
} from "./release_records.ts";

/** At most this many items in a release. */
export const RELEASE_MAX_ITEMS = 25;

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
