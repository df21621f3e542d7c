// Runs one proposal command in one transaction: the actor's authority now, the change, and its audit entry.
import { type Authority, loadAuthority } from "../access/authority.ts";
import type { Actor } from "../access/actor.ts";
import type { Clock } from "../clock.ts";
import type { Db } from "../db/database.ts";
import { snapshotActor } from "../entries/actor_snapshot.ts";
import {
  type AuditEntryInput,
  AuditFailure,
  auditWriteError,
  type AuditWriter,
  ledgerAuditWriter,
} from "../entries/audit.ts";
import type { ActorSnapshot } from "../entries/types.ts";
import type { ProposalRefusal } from "./types.ts";

/** What a proposal command needs: the stores, the site, who acts. */
export interface CommandContext {
  db: Db;
  clock: Clock;
  /** The site, taken from the credential or Host, never from a request field. */
  siteId: string;
  actor: Actor;
  /** Writes the admin audit entry inside the command's transaction; defaults to the ledger table. */
  audit?: AuditWriter;
  /** Id source, injectable for tests; defaults to `crypto.randomUUID`. */
  newId?: () => string;
}

/** What a command's body has at hand inside its transaction. */
export interface ProposalScope {
  tx: Db;
  authority: Authority;
  actor: ActorSnapshot;
  now: Date;
  newId: () => string;
  /** Writes the audit entry in the transaction; a failure rolls everything back. */
  audit(entry: Pick<AuditEntryInput, "action" | "target" | "details">): Promise<
    void
  >;
}

class Refused extends Error {
  constructor(readonly refusal: { ok: false; code: string }) {
    super(`Refused: ${refusal.code}`);
  }
}

/** The authority of the context's actor now, or the refusal that stops every command. */
export async function authorityOf(
  ctx: Pick<CommandContext, "db" | "siteId" | "actor">,
): Promise<{ ok: true; authority: Authority } | ProposalRefusal> {
  const loaded = await loadAuthority(ctx.db, {
    siteId: ctx.siteId,
    actor: ctx.actor,
  });
  return loaded.ok ? loaded : { ok: false, code: loaded.code };
}

/**
 * Runs `body` in one transaction; a refusal it answers rolls everything back. A failed
 * audit write answers `audit_unavailable` (people, credentials) or `temporary_failure`
 * (plugins) with nothing written. Other errors throw.
 */
export async function runProposalCommand<
  T extends { ok: true },
  R extends { ok: false; code: string } = ProposalRefusal,
>(
  ctx: CommandContext,
  body: (scope: ProposalScope) => Promise<T | R | ProposalRefusal>,
): Promise<T | R | ProposalRefusal> {
  const loaded = await authorityOf(ctx);
  if (!loaded.ok) return loaded;
  const newId = ctx.newId ?? (() => crypto.randomUUID());
  const writer = ctx.audit ?? ledgerAuditWriter;
  try {
    return await ctx.db.transaction().execute(async (tx) => {
      const actor = await snapshotActor(tx, ctx.siteId, ctx.actor);
      const now = ctx.clock.now();
      const outcome = await body({
        tx,
        authority: loaded.authority,
        actor,
        now,
        newId,
        async audit(entry) {
          try {
            await writer.write(tx, {
              id: newId(),
              siteId: ctx.siteId,
              actor,
              at: now,
              ...entry,
            });
          } catch (error) {
            throw auditWriteError(error);
          }
        },
      });
      if (!outcome.ok) throw new Refused(outcome);
      return outcome;
    });
  } catch (error) {
    if (error instanceof Refused) return error.refusal as R | ProposalRefusal;
    if (error instanceof AuditFailure) {
      return {
        ok: false,
        code: ctx.actor.kind === "plugin"
          ? "temporary_failure"
          : "audit_unavailable",
      };
    }
    throw error;
  }
}
