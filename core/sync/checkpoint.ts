// Signed, scope-bound sync cursors and checkpoints: a JSON payload under HMAC-SHA256 (spec 3 part 4.5).
import type { Db } from "../db/database.ts";
import {
  instanceKey,
  signPayload,
  verifyPayload,
} from "../auth/signed_payload.ts";

/** The instance key's name; created on first use, kept apart from list cursors' key. */
export const SYNC_KEY_NAME = "sync_checkpoint_hmac";
const FORMAT = 1;

/** Where a sync client is: reading the snapshot after a group id, or the change log after a sequence. */
export type SyncPosition =
  | { phase: "snapshot"; after: string | null; highWater: number }
  | { phase: "changes"; afterSeq: number };

/** What a cursor or checkpoint binds to: site, model filter, language, token scope, schema. */
export interface SyncBinding {
  site: string;
  model: string | null;
  locale: string;
  /** `public`, or the site API token id whose scope the answer used. */
  scope: string;
  /** Digest of what shapes the answer (languages, policy, models and fields in scope). */
  schema: string;
}

/** A decoded cursor: binding, position and when it was issued (ms since the epoch). */
export interface SyncCursor {
  binding: SyncBinding;
  position: SyncPosition;
  issuedAt: number;
}

/** Signs a cursor into the opaque text a client sends back unmodified. */
export async function encodeSyncCursor(
  db: Db,
  cursor: SyncCursor,
): Promise<string> {
  return signPayload(await instanceKey(db, SYNC_KEY_NAME), {
    v: FORMAT,
    ...cursor,
  });
}

/** Verifies and decodes a cursor; null when malformed, forged or of another format. */
export async function decodeSyncCursor(
  db: Db,
  text: string,
): Promise<SyncCursor | null> {
  const raw = verifyPayload(await instanceKey(db, SYNC_KEY_NAME), text) as
    | (Partial<SyncCursor> & { v?: unknown })
    | null;
  if (raw?.v !== FORMAT || typeof raw.issuedAt !== "number") return null;
  if (!raw.binding || !raw.position) return null;
  return {
    binding: raw.binding,
    position: raw.position,
    issuedAt: raw.issuedAt,
  };
}
