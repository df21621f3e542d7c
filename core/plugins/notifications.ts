// Outbound lifecycle notifications: queued in the effect's transaction, delivered after commit with part 7 retry rules.
import { sql } from "kysely";
import type { Db } from "../db/database.ts";
import { jsonColumn } from "../db/json_column.ts";
import {
  type PublicationChange,
  type TrailingText,
  type TrailingWrite,
  trailingWrite,
} from "../entries/publication_change.ts";
import type { PluginCall } from "./calls.ts";
import { installationOf } from "./installation_store.ts";
import { LIMITS, type NotificationEvent } from "./protocol.ts";

/** The path, under the manifest's `base_url`, that receives lifecycle notifications (our choice: the spec shows none). */
export const NOTIFICATION_PATH = "svc/events";

/**
 * Queues `content.changed` for every active installation whose grant covers the group's
 * model and whose manifest asks for it, in the command's own transaction: the notification
 * exists exactly when the effect committed. Registered as a publication refresher, so every
 * door enqueues. One statement, however many installations: the grant and the manifest's
 * `events` are matched in SQL.
 */
export async function queueContentNotifications(
  tx: Db,
  change: PublicationChange,
): Promise<void> {
  const { siteId, groupId, group } = change;
  // The command's own clock wrote updated_at; a purged group is due at once.
  const now = group ? new Date(group.updated_at) : new Date(0);
  const payload = JSON.stringify({
    event: "content.changed",
    group_id: groupId,
    model_id: group?.model_id ?? null,
    revision: group?.revision ?? null,
    deleted: group === undefined,
    trashed: group?.trashed_at != null,
  });
  const queue: TrailingWrite<NotificationValues> = {
    build: group ? queueGranted : queueAll,
    values: { siteId, payload, now, modelId: group?.model_id ?? "" },
  };
  // Nothing after it reads the notifications: it may run with the refresh's other last writes.
  await trailingWrite(tx, change, queue);
}

type NotificationValues = {
  siteId: string;
  payload: string;
  now: Date;
  modelId: string;
};

/** The notifications' insert, for every active installation or those granted the model. */
function queueOf(granted: boolean) {
  return (v: NotificationValues): TrailingText => ({
    with: [],
    last: sql`
    insert into plugin_notifications (id, site_id, installation_id, event, payload, status,
      attempts, next_attempt_at, last_code, created_at, updated_at)
    select gen_random_uuid(), site_id, id, 'content.changed', ${v.payload}::jsonb, 'pending',
      0, ${v.now}::timestamptz, null, ${v.now}::timestamptz, ${v.now}::timestamptz
    from plugin_installations
    where site_id = ${v.siteId} and state = 'active'
      and (manifest -> 'events' is null or manifest -> 'events' ? 'content.changed') ${
      // A grant stored as a JSON string holding the list reads as that list.
      granted
        ? sql`and (case jsonb_typeof(grant_model_ids)
        when 'string' then (grant_model_ids #>> '{}')::jsonb
        else grant_model_ids end) ? ${v.modelId}`
        : sql``}
  `,
  });
}

const queueGranted = queueOf(true);
const queueAll = queueOf(false);

function jsonList(value: unknown): string[] {
  const list = jsonColumn(value);
  return Array.isArray(list) ? list : [];
}

/** Whether a stored manifest asks for `event`: one without `events` asks for all of them. */
function wants(manifest: unknown, event: NotificationEvent): boolean {
  const events = jsonColumn<{ events?: string[] }>(manifest).events;
  return events === undefined || events.includes(event);
}

/** Queues each payload for each installation, in one statement. */
async function enqueue(
  tx: Db,
  siteId: string,
  installationIds: readonly string[],
  payloads: readonly ({ event: NotificationEvent } & Record<string, unknown>)[],
  now: Date,
): Promise<void> {
  const rows = payloads.flatMap((payload) => {
    const text = JSON.stringify(payload);
    return installationIds.map((installationId) => ({
      id: crypto.randomUUID(),
      site_id: siteId,
      installation_id: installationId,
      event: payload.event,
      payload: text,
      status: "pending" as const,
      attempts: 0,
      next_attempt_at: now,
      last_code: null,
      created_at: now,
      updated_at: now,
    }));
  });
  // Eleven parameters a row: a thousand rows stay far below the protocol's 65,535.
  for (let from = 0; from < rows.length; from += 1000) {
    await tx.insertInto("plugin_notifications")
      .values(rows.slice(from, from + 1000)).execute();
  }
}

/**
 * Queues one `media.changed` per media item for every active installation granted
 * `media:read`, in the media command's own transaction (upload, edit, replace, originals,
 * move, removal, media-source import): it exists exactly when the change committed.
 */
export async function queueMediaNotifications(
  tx: Db,
  siteId: string,
  mediaIds: readonly string[],
  options: { deleted: boolean; now: Date },
): Promise<void> {
  const installations = (await tx.selectFrom("plugin_installations")
    .select(["id", "grant_capabilities", "manifest"])
    .where("site_id", "=", siteId).where("state", "=", "active").execute())
    .filter((i) =>
      jsonList(i.grant_capabilities).includes("media:read") &&
      wants(i.manifest, "media.changed")
    )
    .map((i) => i.id);
  await enqueue(
    tx,
    siteId,
    installations,
    mediaIds.map((mediaId) => ({
      event: "media.changed",
      media_id: mediaId,
      deleted: options.deleted,
    })),
    options.now,
  );
}

/**
 * Queues `model.changed` for every active installation whose grant covers the model, in the
 * model command's own transaction (definition or model-part change, folder, removal). A new
 * model is granted to no installation yet, so its creation notifies none.
 */
export async function queueModelNotifications(
  tx: Db,
  siteId: string,
  model: { id: string; revision: number | null },
  options: { deleted: boolean; now: Date },
): Promise<void> {
  const installations = (await tx.selectFrom("plugin_installations")
    .select(["id", "grant_model_ids", "manifest"])
    .where("site_id", "=", siteId).where("state", "=", "active").execute())
    .filter((i) =>
      jsonList(i.grant_model_ids).includes(model.id) &&
      wants(i.manifest, "model.changed")
    )
    .map((i) => i.id);
  await enqueue(tx, siteId, installations, [{
    event: "model.changed",
    model_id: model.id,
    revision: model.revision,
    deleted: options.deleted,
  }], options.now);
}

/** What {@linkcode drainNotifications} needs. */
export interface DrainContext {
  db: Db;
  now: () => Date;
  call: PluginCall;
}

/** What one drain did. */
export interface DrainReport {
  delivered: number;
  retrying: number;
  failed: number;
}

/** Options of {@linkcode drainNotifications}. */
export interface DrainOptions {
  /** Rows claimed at most (default: every row due). */
  limit?: number;
  /** No lane claims more once this much of the clock has passed since the drain began. */
  budgetMs?: number;
}

/**
 * Installations served side by side. Each has a lane of its own, so a plugin that answers slowly
 * or not at all holds back only its own notifications.
 */
export const DRAIN_LANES = 8;
/** Notifications one lane claims at once. */
export const DRAIN_CLAIM = 20;
/**
 * Notifications one lane sends at once. A claim's sends end within the lease even when every one
 * of them times out (20 / 4 × the 5 s call limit = 25 s, under the 60 s lease), so no other drain
 * claims a row while it is still being sent.
 */
export const DRAIN_SENDS = 4;

const RETRY_STATUSES = new Set([429, 500, 502, 503, 504]);

function retryAfterMs(header: string | null): number | null {
  if (header === null || !/^\d{1,6}$/.test(header)) return null;
  return Math.min(Number(header) * 1000, LIMITS.scheduler.max_retry_after_ms);
}

/** A claimed row, as the lane sends it. */
interface Claimed {
  id: string;
  site_id: string;
  installation_id: string;
  payload: unknown;
  attempts: number;
  created_at: Date | string;
}

/** How a send ended: the row's next state. */
interface Finished {
  id: string;
  status: "delivered" | "failed" | "pending";
  attempts: number;
  code: string | null;
  next: Date;
}

/**
 * Delivers due notifications. A 2xx is delivered; 429, 5xx, network errors and timeouts are
 * retried with a bounded `Retry-After` or exponential backoff until 5 attempts or 15 minutes;
 * anything else, or a no longer active installation, fails for good. Each installation with rows
 * due gets a lane ({@linkcode DRAIN_LANES} at once) that claims its rows
 * {@linkcode DRAIN_CLAIM} at a time by moving `next_attempt_at` past the lease (rows another
 * drain holds are skipped, so two drains never send the same attempt), sends them
 * {@linkcode DRAIN_SENDS} at a time and records the outcomes in one statement, until none of its
 * rows is due, the limit is reached or the budget spent.
 */
export async function drainNotifications(
  ctx: DrainContext,
  options: DrainOptions = {},
): Promise<DrainReport> {
  const report: DrainReport = { delivered: 0, retrying: 0, failed: 0 };
  const began = ctx.now().getTime();
  let left = options.limit ?? Infinity;
  const budgetSpent = () =>
    options.budgetMs !== undefined &&
    ctx.now().getTime() - began >= options.budgetMs;
  const waiting = (await ctx.db.selectFrom("plugin_notifications")
    .select("installation_id").distinct()
    .where("status", "=", "pending")
    .where("next_attempt_at", "<=", ctx.now()).execute())
    .map((row) => row.installation_id);

  const lane = async (installationId: string) => {
    while (left > 0 && !budgetSpent()) {
      const take = Math.min(DRAIN_CLAIM, left);
      left -= take;
      const rows = await claim(ctx, installationId, take);
      left += take - rows.length;
      if (rows.length === 0) return;
      const installationRow = await ctx.db.selectFrom("plugin_installations")
        .selectAll().where("id", "=", installationId).executeTakeFirst();
      const active = installationRow?.state === "active"
        ? installationOf(installationRow)
        : null;
      const outcomes = await eachAtMost(
        DRAIN_SENDS,
        rows,
        (row) => send(ctx, row, active?.manifest.base_url ?? null),
      );
      await finish(ctx, outcomes);
      for (const outcome of outcomes) {
        if (outcome.status === "delivered") report.delivered++;
        else if (outcome.status === "failed") report.failed++;
        else report.retrying++;
      }
      if (rows.length < take) return;
    }
  };
  await eachAtMost(DRAIN_LANES, waiting, lane);
  return report;
}

/**
 * Claims up to `take` of an installation's due rows, oldest first: their `next_attempt_at` moves
 * to the end of the lease, which takes them out of every other drain's sight.
 */
async function claim(
  ctx: DrainContext,
  installationId: string,
  take: number,
): Promise<Claimed[]> {
  const now = ctx.now();
  const leaseUntil = new Date(now.getTime() + LIMITS.scheduler.lease_ms);
  // Picked once, as its own step: a limit in the update's `where` may be applied per rescan of
  // the subquery and claim more rows than asked for.
  const { rows } = await sql<Claimed>`
    with picked as materialized (
      select id from plugin_notifications
      where installation_id = ${installationId} and status = 'pending'
        and next_attempt_at <= ${now}
      order by next_attempt_at limit ${take}
      for update skip locked)
    update plugin_notifications as n
    set next_attempt_at = ${leaseUntil}, updated_at = ${now}
    from picked
    where n.id = picked.id
    returning n.id, n.site_id, n.installation_id, n.payload, n.attempts, n.created_at
  `.execute(ctx.db);
  // The update returns its rows in no set order; they are sent oldest first.
  return rows.sort((a, b) =>
    new Date(a.created_at).getTime() - new Date(b.created_at).getTime() ||
    (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)
  );
}

/** Sends one claimed row (none when its installation is no longer active) and judges the answer. */
async function send(
  ctx: DrainContext,
  row: Claimed,
  baseUrl: string | null,
): Promise<Finished> {
  const now = ctx.now();
  const attempts = row.attempts + 1;
  const ended = (
    status: Finished["status"],
    code: string | null,
    next: Date = now,
  ): Finished => ({ id: row.id, status, attempts, code, next });
  if (baseUrl === null) return ended("failed", "plugin_unauthorized");
  const payload = jsonColumn<Record<string, unknown>>(row.payload);
  const answer = await ctx.call({
    url: new URL(NOTIFICATION_PATH, baseUrl).toString(),
    method: "POST",
    purpose: "activation",
    json: {
      notification_id: row.id,
      installation_id: row.installation_id,
      ...payload,
    },
  });
  if (answer.ok && answer.status >= 200 && answer.status < 300) {
    return ended("delivered", null);
  }
  const retryable = answer.ok
    ? RETRY_STATUSES.has(answer.status)
    : answer.code === "plugin_unreachable" ||
      answer.code === "plugin_timeout";
  const code = answer.ok ? `http_${answer.status}` : answer.code;
  const age = now.getTime() - new Date(row.created_at).getTime();
  if (
    !retryable || attempts >= LIMITS.scheduler.max_attempts ||
    age > LIMITS.scheduler.max_lateness_ms
  ) {
    return ended("failed", retryable ? "retry_exhausted" : code);
  }
  const hinted = answer.ok
    ? retryAfterMs(answer.headers.get("retry-after"))
    : null;
  const backoff = hinted ??
    Math.min(
      1000 * 2 ** attempts + Math.floor(Math.random() * 1000),
      300_000,
    );
  return ended("pending", code, new Date(now.getTime() + backoff));
}

/** Records a claim's outcomes in one statement. */
async function finish(
  ctx: DrainContext,
  outcomes: readonly Finished[],
): Promise<void> {
  // A code is never empty, so the empty string carries null through the text array.
  await sql`
    update plugin_notifications as n set status = f.status, attempts = f.attempts,
      last_code = nullif(f.code, ''), next_attempt_at = f.next::timestamptz,
      updated_at = ${ctx.now()}
    from unnest(${outcomes.map((o) => o.id)}::uuid[],
      ${outcomes.map((o) => o.status)}::text[],
      ${outcomes.map((o) => o.attempts)}::int[],
      ${outcomes.map((o) => o.code ?? "")}::text[],
      ${outcomes.map((o) => o.next.toISOString())}::text[])
      as f(id, status, attempts, code, next)
    where n.id = f.id
  `.execute(ctx.db);
}

/** Runs `work` on every item, at most `width` at once; answers in the items' order. */
async function eachAtMost<T, R>(
  width: number,
  items: readonly T[],
  work: (item: T) => Promise<R>,
): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await work(items[i]);
    }
  };
  await Promise.all(
    Array.from({ length: Math.min(width, items.length) }, worker),
  );
  return results;
}

/** Finished notifications are kept this long, for whoever looks into a delivery, then pruned. */
export const FINISHED_KEPT_MS = 7 * 24 * 60 * 60 * 1000;

/**
 * Deletes every notification delivered or failed more than {@linkcode FINISHED_KEPT_MS} before
 * `now`, `batch` at a time, each batch its own statement so no transaction grows with the
 * backlog; answers how many.
 */
export async function pruneNotifications(
  db: Db,
  now: Date,
  batch = 10_000,
): Promise<number> {
  const cut = new Date(now.getTime() - FINISHED_KEPT_MS);
  let pruned = 0;
  for (;;) {
    const result = await sql`
      delete from plugin_notifications where id in (
        select id from plugin_notifications
        where status <> 'pending' and updated_at < ${cut}
        order by updated_at limit ${batch})
    `.execute(db);
    const gone = Number(result.numAffectedRows ?? 0n);
    pruned += gone;
    if (gone < batch) return pruned;
  }
}
