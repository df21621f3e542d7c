// Running a release (spec 1 part 3.3): readiness of each item, then one /releases/commit command
// the service checks and commits or refuses whole, recorded as it lands; a stopped release
// sends nothing more, and a retry recovers only what the stop left unknown.
import type { PluginClient, PluginResult } from "../../sdk/mod.ts";
import type { ReleaseState, SchedulerDb } from "./db.ts";
import type { DelegatedItem } from "./schedules.ts";
import {
  readRelease,
  refusal,
  type Release,
  type ReleaseItem,
  releaseItems,
  type ReleaseRefusal,
} from "./release_records.ts";

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
