// The admin audit ledger: the writer a command calls inside its transaction, and the default table writer.
import { sql } from "kysely";
import type { Db } from "../db/database.ts";
import { heldMark } from "../db/prepared_queries.ts";
import { prebuilt } from "../db/prebuilt.ts";
import type { ActorSnapshot } from "./actor_snapshot.ts";
import { isConnectionError } from "../../plugins/sdk/pg_faults.ts";

/** One admin audit entry, as a command hands it to the writer. */
export interface AuditEntryInput {
  id: string;
  siteId: string;
  actor: ActorSnapshot;
  /** What was done, such as `entry.publish` or `plugin.content.save`. */
  action: string;
  /** What it was done to: an entry, or another kind of thing (credential, role...). */
  target:
    | {
      kind: "entry";
      group_id: string;
      model_id: string;
      locale: string | null;
    }
    | { kind: "credential"; credential_id: string; name: string }
    | { kind: "installation"; installation_id: string; plugin_id: string }
    | { kind: "media"; media_id: string };
  details: Record<string, unknown>;
  at: Date;
}

/**
 * Writes one audit entry with the command's transaction handle. A writer that throws
 * rolls the whole command back (nothing is ever written unaudited).
 */
export interface AuditWriter {
  write(tx: Db, entry: AuditEntryInput): Promise<void>;
}

/** The default writer: one row in `audit_entries`, in the command's transaction. */
export const ledgerAuditWriter: AuditWriter = {
  async write(tx, entry) {
    await LEDGER_ROW[0].rows(tx, ledgerValues(entry));
  },
};

/** The label of {@link heldLedgerAuditWriter}'s statement (see `heldLabelOf`). */
export const HELD_AUDIT = "audit";

/**
 * The default writer for a command that maps a failure labelled {@link HELD_AUDIT} as its own
 * audit failure: the row is held back and sent with the transaction's next statement on
 * PostgreSQL (one round trip fewer per command), so a failure to write it surfaces there.
 */
export const heldLedgerAuditWriter: AuditWriter = {
  async write(tx, entry) {
    await LEDGER_ROW[1].rows(tx, ledgerValues(entry));
  },
};

type LedgerValues = {
  id: string;
  siteId: string;
  actor: string;
  action: string;
  target: string;
  details: string;
  at: Date;
};

function ledgerValues(entry: AuditEntryInput): LedgerValues {
  return {
    id: entry.id,
    siteId: entry.siteId,
    actor: JSON.stringify(entry.actor),
    action: entry.action,
    target: JSON.stringify(entry.target),
    details: JSON.stringify(entry.details),
    at: entry.at,
  };
}

/** The ledger's row: sent at once, then held back for the transaction's next statement. */
const LEDGER_ROW = [false, true].map((held) =>
  prebuilt((db, v: LedgerValues) => {
    const insert = db.insertInto("audit_entries").values({
      id: v.id,
      site_id: v.siteId,
      actor: v.actor,
      action: v.action,
      target: v.target,
      details: v.details,
      created_at: v.at,
    });
    return held ? insert.modifyEnd(sql.raw(heldMark(HELD_AUDIT))) : insert;
  })
);

/** Thrown inside a command's transaction when the audit write failed, so the command rolls back. */
export class AuditFailure extends Error {
  constructor(cause: unknown) {
    super(
      `Cannot write the admin audit entry: ${
        (cause as Error)?.message ?? cause
      }`,
      {
        cause,
      },
    );
    this.name = "AuditFailure";
  }
}

/**
 * What a failed audit write throws: the error itself when the database connection was lost (the
 * whole command failed with it, and answers 503 `temporary_failure` with `Retry-After` like any
 * request on a dropped connection), else an {@link AuditFailure} (`audit_unavailable`).
 */
export function auditWriteError(error: unknown): unknown {
  return isConnectionError(error) ? error : new AuditFailure(error);
}
