// What a model write leaves in its own transaction besides the model: the audit entry that
// proves a lost answer (MAPI-014) and the outbound notifications of the change (AUD-014).
import { sql } from "kysely";
import type { Db } from "../db/database.ts";
import { snapshotActor } from "../entries/actor_snapshot.ts";
import { queueModelNotifications } from "../plugins/notifications.ts";
import type { ModelContext, ModelRecord, StoredModel } from "./store_rows.ts";

export type { ModelRecord };
import { toWireModel } from "./wire.ts";

/** The audit actions of model writes. */
export const MODEL_RECORD_ACTIONS = [
  "model.create",
  "model.update",
  "model.folder",
  "model.remove",
] as const;

/** One of {@link MODEL_RECORD_ACTIONS}. */
export type ModelRecordAction = typeof MODEL_RECORD_ACTIONS[number];

/** A model write as it committed: the model's revision after it and the first answer. */
export interface ModelWritten {
  action: ModelRecordAction;
  modelId: string;
  /** Null after a removal. */
  revision: number | null;
  /** The answer the write gives, as the Management API sends it (without `dependents`). */
  answer: Record<string, unknown>;
}

/**
 * Writes, in the command's transaction, the audit entry of a model write when the context
 * names who writes (with the key's digest, so a lost answer is proved from it), and queues the
 * change's notifications whatever door it came through.
 */
export async function recordModelWrite(
  tx: Db,
  ctx: ModelContext,
  written: ModelWritten,
): Promise<void> {
  const now = ctx.clock.now();
  await queueModelNotifications(tx, ctx.siteId, {
    id: written.modelId,
    revision: written.revision,
  }, { deleted: written.action === "model.remove", now });
  if (!ctx.record) return;
  const actor = await snapshotActor(tx, ctx.siteId, ctx.record.actor);
  await tx.insertInto("audit_entries").values({
    id: crypto.randomUUID(),
    site_id: ctx.siteId,
    actor: JSON.stringify(actor),
    action: written.action,
    target: JSON.stringify({ kind: "model", model_id: written.modelId }),
    details: JSON.stringify({
      answer: written.answer,
      ...(ctx.record.keyDigest
        ? { idempotency_key_digest: ctx.record.keyDigest }
        : {}),
    }),
    created_at: now,
  }).execute();
}

/** The answer a model write under `keyDigest` recorded, or null when none committed. */
export async function findModelWrite(
  db: Db,
  siteId: string,
  keyDigest: string,
): Promise<Record<string, unknown> | null> {
  const row = await db.selectFrom("audit_entries").select("details")
    .where("site_id", "=", siteId)
    .where("action", "in", [...MODEL_RECORD_ACTIONS])
    .where(sql<string>`details->>'idempotency_key_digest'`, "=", keyDigest)
    .executeTakeFirst();
  if (!row) return null;
  const details =
    (typeof row.details === "string"
      ? JSON.parse(row.details)
      : row.details) as { answer?: Record<string, unknown> };
  return details.answer ?? null;
}

/** The answer of a model save (create, model part, definition), `dependents` aside. */
export function savedAnswer(saved: {
  model: StoredModel;
  model_id: string;
  slug: string;
  created_field_ids: string[];
  renamed_from: string | null;
  changed: boolean;
}) {
  return {
    model_id: saved.model_id,
    slug: saved.slug,
    created_field_ids: saved.created_field_ids,
    renamed_from: saved.renamed_from,
    changed: saved.changed,
    model: toWireModel(saved.model),
  };
}

/** The answer of a removal, `dependents` aside. */
export function removedAnswer(modelId: string, slug: string) {
  return {
    model_id: modelId,
    slug,
    created_field_ids: [] as string[],
    renamed_from: null,
    changed: true,
    model: null,
  };
}
