// Runs one lifecycle command in one transaction: authority, the change, its workflow events and its audit entry.
import { type Authority, loadAuthority } from "../access/authority.ts";
import type { Decision } from "../access/decide.ts";
import type { Db } from "../db/database.ts";
import { snapshotActor } from "./actor_snapshot.ts";
import { publicationChanged } from "./publication_hook.ts";
import type { ChangedGroup } from "./publication_change.ts";
import { type Insertable, sql } from "kysely";
import type { WorkflowEventsTable } from "../db/schema.ts";
import {
  type AuditEntryInput,
  AuditFailure,
  auditWriteError,
  HELD_AUDIT,
  heldLedgerAuditWriter,
} from "./audit.ts";
import { heldLabelOf } from "../db/prepared_queries.ts";
import type {
  ActorSnapshot,
  EntryState,
  LifecycleContext,
  LifecycleOutcome,
  LifecycleRefusal,
} from "./types.ts";
import type { ReviewStage } from "./review_stage.ts";

/** One immutable workflow event a command writes. */
export interface EventInput {
  groupId: string;
  entryId: string | null;
  locale: string | null;
  kind: string;
  /** An entry state, or a review stage for review moves. */
  from: EntryState | ReviewStage | null;
  to: EntryState | ReviewStage | null;
  versionId: string | null;
  previousVersionId: string | null;
}

/** A workflow event's row as a command writes it. */
export type EventRow = Insertable<WorkflowEventsTable>;

/** What a command's body has at hand inside its transaction. */
export interface CommandScope {
  tx: Db;
  authority: Authority;
  actor: ActorSnapshot;
  newId: () => string;
  now: Date;
  /**
   * Writes the workflow events and the audit entry; call once, after the change. With
   * `eventsWritten`, the step wrote the events itself, in its change's statement
   * ({@linkcode CommandScope.eventRows}), and only the audit entry is written here.
   */
  record(
    events: readonly EventInput[],
    audit: Pick<AuditEntryInput, "action" | "target" | "details">,
    options?: { eventsWritten?: boolean },
  ): Promise<void>;
  /**
   * The rows of `events` exactly as `record` writes them, for a step to insert inside the
   * statement of its change; it then calls `record` with `eventsWritten`.
   */
  eventRows(events: readonly EventInput[]): EventRow[];
  /**
   * Tells the runner the group as this step left it (after its `record`), so the projections
   * need not read it again. A later `record` on the group forgets it.
   */
  wrote(groupId: string, group: ChangedGroup): void;
}

class Refused extends Error {
  constructor(readonly refusal: LifecycleRefusal) {
    super(`Refused: ${refusal.code}`);
  }
}

class DryRunDone<T> extends Error {
  constructor(readonly outcome: T) {
    super("Dry run: rolled back");
  }
}

/** A refusal value from a refused access decision. */
export function refusalOf(
  decision: Exclude<Decision, { ok: true }>,
): LifecycleRefusal {
  return { ...decision };
}

function isUniqueViolation(error: unknown, constraint: string): boolean {
  const e = error as { code?: string; constraint?: string; message?: string };
  return e?.code === "23505" &&
    (e.constraint === constraint || (e.message ?? "").includes(constraint));
}

/**
 * Runs `body` in one transaction. A refusal the body answers rolls back everything, and so
 * does a dry run (`ctx.dryRun`) after a success, once every held statement was sent; a
 * failed audit write rolls back everything and answers `audit_unavailable` (people,
 * credentials) or `temporary_failure` (plugins, spec 1 part 6). Other errors throw.
 */
export function runCommand(
  ctx: LifecycleContext,
  body: (scope: CommandScope) => Promise<LifecycleOutcome>,
): Promise<LifecycleOutcome> {
  return runCommandOver(ctx, body, (outcome) => [outcome.group_id]);
}

/**
 * {@linkcode runCommand} for a command that changes several groups in its one transaction
 * (a release): `groupsOf` names every group whose projections must be refreshed.
 */
export async function runCommandOver<T extends { ok: true }>(
  ctx: LifecycleContext,
  body: (scope: CommandScope) => Promise<T | LifecycleRefusal>,
  groupsOf: (result: T) => readonly string[],
): Promise<T | LifecycleRefusal> {
  const loaded = ctx.authority
    ? { ok: true as const, authority: ctx.authority }
    : await loadAuthority(ctx.db, { siteId: ctx.siteId, actor: ctx.actor });
  if (!loaded.ok) return { ok: false, code: loaded.code };
  const newId = ctx.newId ?? (() => crypto.randomUUID());
  const writer = ctx.audit ?? heldLedgerAuditWriter;
  try {
    return await ctx.db.transaction().execute(async (tx) => {
      const actor = ctx.actorSnapshot ??
        await snapshotActor(tx, ctx.siteId, ctx.actor);
      const now = ctx.clock.now();
      const trace = ctx.trace ?? {};
      const written = new Map<string, ChangedGroup>();
      const eventRow = (event: EventInput): EventRow => ({
        id: newId(),
        site_id: ctx.siteId,
        group_id: event.groupId,
        entry_id: event.entryId,
        locale: event.locale,
        kind: event.kind,
        from_state: event.from,
        to_state: event.to,
        version_id: event.versionId,
        previous_version_id: event.previousVersionId,
        actor: JSON.stringify(actor),
        details: JSON.stringify(trace),
        created_at: now,
      });
      const scope: CommandScope = {
        tx,
        authority: loaded.authority,
        actor,
        newId,
        now,
        wrote(groupId, group) {
          written.set(groupId, group);
        },
        eventRows(events) {
          return events.map(eventRow);
        },
        async record(events, audit, options = {}) {
          for (const event of events) {
            written.delete(event.groupId);
            if (!options.eventsWritten) {
              await tx.insertInto("workflow_events").values(eventRow(event))
                .execute();
            }
          }
          try {
            await writer.write(tx, {
              id: newId(),
              siteId: ctx.siteId,
              actor,
              at: now,
              ...audit,
              details: { ...audit.details, ...trace },
            });
          } catch (error) {
            throw auditWriteError(error);
          }
        },
      };
      const outcome = await body(scope);
      if (!outcome.ok) throw new Refused(outcome as LifecycleRefusal);
      for (const group of new Set(groupsOf(outcome as T))) {
        await publicationChanged(tx, ctx.siteId, group, written.get(group));
      }
      if (ctx.dryRun) {
        // A rollback drops held statements unsent (see `heldMark`), so a dry run sends one more
        // statement first: whatever the command held goes with it, and a held write fails the
        // dry run (a taken slug, a broken ledger) as it would fail the real run.
        await sql`select 1`.execute(tx);
        throw new DryRunDone(outcome as T);
      }
      return outcome as T;
    });
  } catch (caught) {
    // The ledger's row is sent with the statement after it, so its failure surfaces there.
    const error = heldLabelOf(caught) === HELD_AUDIT
      ? auditWriteError(caught)
      : caught;
    if (error instanceof Refused) return error.refusal;
    if (error instanceof DryRunDone) return error.outcome as T;
    if (error instanceof AuditFailure) {
      const code = ctx.actor.kind === "plugin"
        ? "temporary_failure"
        : "audit_unavailable";
      return { ok: false, code };
    }
    if (isUniqueViolation(error, "entries_slug")) {
      return { ok: false, code: "slug_taken" };
    }
    throw error;
  }
}
