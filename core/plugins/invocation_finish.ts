// A run once the plugin answered: accepted only after the exchange and within its bytes, while
// the installation is active and still granted; every call is audited.
import type { Db } from "../db/database.ts";
import { snapshotActor } from "../entries/actor_snapshot.ts";
import { ledgerAuditWriter } from "../entries/audit.ts";
import type { PluginActor } from "../access/actor.ts";
import type { Installation } from "./installation_store.ts";
import { LIMITS } from "./protocol.ts";
import type { InvokeContext } from "./invocation_send.ts";

/** How a run stands once the plugin answered: exchanged or not, and within its bytes. */
export interface ExchangeJudgement {
  exchanged: boolean;
  /** Request, exchange and answer together within the invocation's 64 KB (OUT-022). */
  withinBytes: boolean;
}

/**
 * Judges a run after its answer: the plugin must have exchanged the code (PEXT-013), and the
 * envelope, the exchange (recorded by whichever process served it) and the answer together
 * stay within `LIMITS.invocation.max_bytes`.
 */
export async function judgeExchange(
  db: Db,
  invocationId: string,
  sentBytes: number,
  answerBytes: number,
): Promise<ExchangeJudgement> {
  const stored = await db.selectFrom("plugin_invocations")
    .select(["status", "exchange_bytes"])
    .where("id", "=", invocationId).executeTakeFirstOrThrow();
  return {
    exchanged: stored.status === "exchanged",
    withinBytes: sentBytes + (stored.exchange_bytes ?? 0) + answerBytes <=
      LIMITS.invocation.max_bytes,
  };
}

/**
 * Records how a run ended on its `plugin_invocations` row, in one transaction with its audit
 * entry (`action`, whose details carry the classified outcome and digests).
 */
export async function finishInvocation(
  ctx: InvokeContext,
  installation: Installation,
  action: "plugin.operation.run" | "plugin.policy.check",
  invocationId: string,
  end: {
    status: "completed" | "refused" | "failed";
    outcome: string;
    answerDigest: string | null;
  },
  details: Record<string, unknown>,
): Promise<void> {
  await auditPluginCall(ctx, installation, action, details, async (tx) => {
    await tx.updateTable("plugin_invocations").set({
      status: end.status,
      outcome: end.outcome,
      answer_digest: end.answerDigest,
      finished_at: ctx.clock.now(),
    }).where("id", "=", invocationId).execute();
  });
}

/**
 * Writes an audit entry of a call the service made to a plugin for a person (an operation run
 * or a policy check), attributed to the plugin acting for them, after `body` in one transaction.
 */
export async function auditPluginCall(
  ctx: InvokeContext,
  installation: Installation,
  action: "plugin.operation.run" | "plugin.policy.check",
  details: Record<string, unknown>,
  body: (tx: Db) => Promise<void> = async () => {},
): Promise<void> {
  const writer = ctx.audit ?? ledgerAuditWriter;
  const newId = ctx.newId ?? (() => crypto.randomUUID());
  await ctx.db.transaction().execute(async (tx) => {
    await body(tx);
    const person = await tx.selectFrom("users").select("email")
      .where("id", "=", ctx.caller.userId).executeTakeFirstOrThrow();
    const actor: PluginActor = {
      kind: "plugin",
      installationId: installation.id,
      name: installation.name,
      version: installation.version,
      delegatedUserId: ctx.caller.userId,
      delegatedEmail: person.email,
      pluginId: installation.pluginId,
      protocolVersion: installation.protocolVersion,
    };
    await writer.write(tx, {
      id: newId(),
      siteId: ctx.siteId,
      actor: await snapshotActor(tx, ctx.siteId, actor),
      action,
      target: {
        kind: "installation",
        installation_id: installation.id,
        plugin_id: installation.pluginId,
      },
      details: { ...details, via: ctx.caller.via },
      at: ctx.clock.now(),
    });
  });
}
