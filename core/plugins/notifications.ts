// Outbound lifecycle notifications: queued in the effect's transaction, delivered after commit with part 7 retry rules.
import { sql } from "kysely";
import type { Db } from "../db/database.ts";
import {
  type PublicationChange,
  type TrailingText,
  type TrailingWrite,
  trailingWrite,
} from "../entries/publication_change.ts";
import type { PluginCall } from "./calls.ts";
import { installationOf } from "./installation_store.ts";
import { LIMITS } from "./protocol.ts";

/** The path, under the manifest's `base_url`, that receives lifecycle notifications (our choice: the spec shows none). */
export const NOTIFICATION_PATH = "svc/events";

/**
 * Queues `content.changed` for every active installation whose grant covers the group's
 * model, in the command's own transaction: the notification exists exactly when the
 * effect committed. Registered as a publication refresher, so every door enqueues. One
 * statement, however many installations: the grant is matched in SQL.
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
    where site_id = ${v.siteId} and state = 'active' ${
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

/** The event kinds Stave sends (the spec shows none; docs/plugins.md lists their payloads). */
export type NotificationEvent =
  | "content.changed"
  | "media.changed"
  | "model.changed";

function jsonList(value: unknown): string[] {
  const list = typeof value === "string" ? JSON.parse(value) : value;
  return Array.isArray(list) ? list : [];
}

async function enqueue(
  tx: Db,
  siteId: string,
  installationIds: readonly string[],
  payload: { event: NotificationEvent } & Record<string, unknown>,
  now: Date,
): Promise<void> {
  for (const installationId of installationIds) {
    await tx.insertInto("plugin_notifications").values({
      id: crypto.randomUUID(),
      site_id: siteId,
      installation_id: installationId,
      event: payload.event,
      payload: JSON.stringify(payload),
      status: "pending",
      attempts: 0,
      next_attempt_at: now,
      last_code: null,
      created_at: now,
      updated_at: now,
    }).execute();
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
    .select(["id", "grant_capabilities"])
    .where("site_id", "=", siteId).where("state", "=", "active").execute())
    .filter((i) => jsonList(i.grant_capabilities).includes("media:read"))
    .map((i) => i.id);
  if (installations.length === 0) return;
  for (const mediaId of mediaIds) {
    await enqueue(tx, siteId, installations, {
      event: "media.changed",
      media_id: mediaId,
      deleted: options.deleted,
    }, options.now);
  }
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
    .select(["id", "grant_model_ids"])
    .where("site_id", "=", siteId).where("state", "=", "active").execute())
    .filter((i) => jsonList(i.grant_model_ids).includes(model.id))
    .map((i) => i.id);
  await enqueue(tx, siteId, installations, {
    event: "model.changed",
    model_id: model.id,
    revision: model.revision,
    deleted: options.deleted,
  }, options.now);
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

const RETRY_STATUSES = new Set([429, 500, 502, 503, 504]);

function retryAfterMs(header: string | null): number | null {
  if (header === null || !/^\d{1,6}$/.test(header)) return null;
  return Math.min(Number(header) * 1000, LIMITS.scheduler.max_retry_after_ms);
}

/**
 * Delivers due notifications (at most `limit`). A 2xx is delivered; 429, 5xx, network
 * errors and timeouts are retried with a bounded `Retry-After` or exponential backoff
 * until 5 attempts or 15 minutes; anything else, or a no longer active installation,
 * fails for good. Rows are claimed by moving `next_attempt_at` first, so two drains
 * never send the same attempt.
 */
export async function drainNotifications(
  ctx: DrainContext,
  options: { limit?: number } = {},
): Promise<DrainReport> {
  const report: DrainReport = { delivered: 0, retrying: 0, failed: 0 };
  const now = ctx.now();
  const due = await ctx.db.selectFrom("plugin_notifications").selectAll()
    .where("status", "=", "pending").where("next_attempt_at", "<=", now)
    .orderBy("next_attempt_at").limit(options.limit ?? 20).execute();
  for (const row of due) {
    const leaseUntil = new Date(now.getTime() + LIMITS.scheduler.lease_ms);
    const claimed = await ctx.db.updateTable("plugin_notifications")
      .set({ next_attempt_at: leaseUntil, updated_at: now })
      .where("id", "=", row.id).where("status", "=", "pending")
      .where("next_attempt_at", "=", row.next_attempt_at)
      .executeTakeFirst();
    if (claimed.numUpdatedRows !== 1n) continue;
    const installationRow = await ctx.db.selectFrom("plugin_installations")
      .selectAll().where("site_id", "=", row.site_id)
      .where("id", "=", row.installation_id).executeTakeFirst();
    const attempts = row.attempts + 1;
    const finish = async (
      status: "delivered" | "failed" | "pending",
      code: string | null,
      next: Date = now,
    ) => {
      await ctx.db.updateTable("plugin_notifications").set({
        status,
        attempts,
        last_code: code,
        next_attempt_at: next,
        updated_at: ctx.now(),
      }).where("id", "=", row.id).execute();
    };
    if (!installationRow || installationRow.state !== "active") {
      await finish("failed", "plugin_unauthorized");
      report.failed++;
      continue;
    }
    const manifest = installationOf(installationRow).manifest;
    const payload = typeof row.payload === "string"
      ? JSON.parse(row.payload)
      : row.payload;
    const answer = await ctx.call({
      url: new URL(NOTIFICATION_PATH, manifest.base_url).toString(),
      method: "POST",
      purpose: "activation",
      json: {
        notification_id: row.id,
        installation_id: row.installation_id,
        ...payload,
      },
    });
    if (answer.ok && answer.status >= 200 && answer.status < 300) {
      await finish("delivered", null);
      report.delivered++;
      continue;
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
      await finish("failed", retryable ? "retry_exhausted" : code);
      report.failed++;
      continue;
    }
    const hinted = answer.ok
      ? retryAfterMs(answer.headers.get("retry-after"))
      : null;
    const backoff = hinted ??
      Math.min(
        1000 * 2 ** attempts + Math.floor(Math.random() * 1000),
        300_000,
      );
    await finish("pending", code, new Date(now.getTime() + backoff));
    report.retrying++;
  }
  return report;
}
