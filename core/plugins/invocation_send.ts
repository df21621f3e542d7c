// Sends one invocation (spec 1 part 2.5): the closed envelope with a one-time code bound to
// the run, through the guarded outbound fetch.
import { sha256Hex } from "../auth/secrets.ts";
import type { Clock } from "../clock.ts";
import type { Db } from "../db/database.ts";
import type { AuditWriter } from "../entries/audit.ts";
import { OneTimeCodes } from "../kv/one_time_codes.ts";
import { canonicalJson } from "../pages/mod.ts";
import type { PluginCall } from "./calls.ts";
import { readableGranted } from "./delegations.ts";
import type { Installation } from "./installation_store.ts";
import type { ManifestOperation } from "./manifest.ts";
import {
  OUTBOUND_LIMITS,
  OutboundBudget,
  type OutboundLimits,
} from "./outbound.ts";
import type { InvocationCaller } from "./invocation_caller.ts";
import type { PolicyCall } from "./policy_call.ts";
import { LIMITS } from "./protocol.ts";
import {
  byteLength,
  type ColumnEntry,
  type InvocationPayload,
  invocationPurpose,
  type MediaSourceCall,
} from "./invocation_exchange.ts";
import { delegatedCapabilities } from "./operation_grants.ts";

/** What {@linkcode invokeOperation} needs. */
export interface InvokeContext {
  db: Db;
  kv: Deno.Kv;
  clock: Clock;
  call: PluginCall;
  siteId: string;
  caller: InvocationCaller;
  audit?: AuditWriter;
  newId?: () => string;
}

/** What one invocation sends: the run's target, and for a media source what is asked of it. */
export interface InvocationTarget {
  operationId: string;
  scope: ManifestOperation["scope"];
  url: string;
  groupId: string | null;
  modelId: string | null;
  instanceId: string | null;
  input: Record<string, unknown>;
  entries?: ColumnEntry[];
  mediaSource?: MediaSourceCall;
  policy?: PolicyCall;
  /** Tighter limits than an invocation's (a policy's own timeout). */
  limits?: OutboundLimits;
}

/**
 * Records the invocation as sent, issues its one-time code with what the exchange will bind,
 * and posts the closed envelope through the guarded fetch within the invocation budget.
 * Shared by operations, list columns and media sources; each judges the answer itself.
 */
export async function sendInvocation(
  ctx: InvokeContext,
  installation: Installation,
  target: InvocationTarget,
): Promise<{
  invocationId: string;
  inputDigest: string;
  /** Bytes of the envelope sent, for {@linkcode judgeExchange}. */
  sentBytes: number;
  answered: Awaited<ReturnType<PluginCall>>;
}> {
  const newId = ctx.newId ?? (() => crypto.randomUUID());
  const invocationId = newId();
  const now = ctx.clock.now();
  const inputDigest = await sha256Hex(canonicalJson(
    target.mediaSource
      ? { ...target.input, media_source: target.mediaSource }
      : target.policy
      ? { ...target.input, policy: target.policy }
      : target.input,
  ));
  await ctx.db.insertInto("plugin_invocations").values({
    id: invocationId,
    site_id: ctx.siteId,
    installation_id: installation.id,
    operation_id: target.operationId,
    scope: target.scope,
    caller_id: ctx.caller.userId,
    caller_via: ctx.caller.via,
    model_id: target.modelId,
    group_id: target.groupId,
    instance_id: target.instanceId,
    input_digest: inputDigest,
    status: "sent",
    outcome: null,
    answer_digest: null,
    delegation_id: null,
    created_at: now,
    exchanged_at: null,
    finished_at: null,
  }).execute();
  const payload: InvocationPayload = {
    siteId: ctx.siteId,
    installationId: installation.id,
    invocationId,
    userId: ctx.caller.userId,
    via: ctx.caller.via,
    operationId: target.operationId,
    scope: target.scope,
    groupId: target.groupId,
    instanceId: target.instanceId,
    modelId: target.modelId,
    models: readableGranted(ctx.caller.authority, installation),
    capabilities: delegatedCapabilities(ctx.caller.authority.scopes),
    input: target.input,
    ...(target.entries ? { entries: target.entries } : {}),
    ...(target.mediaSource ? { mediaSource: target.mediaSource } : {}),
    ...(target.policy ? { policy: target.policy } : {}),
  };
  const issued = await new OneTimeCodes(ctx.kv, { clock: ctx.clock }).issue(
    invocationPurpose(installation.id),
    { prefix: "svi_", ttlMs: LIMITS.invocation.timeout_ms, payload },
  );
  const budget = new OutboundBudget(
    target.limits ?? OUTBOUND_LIMITS.invocation,
    () => ctx.clock.now().getTime(),
  );
  const envelope = {
    installation_id: installation.id,
    invocation_id: invocationId,
    code: issued.code,
    expires_at: issued.expiresAt.getTime(),
  };
  const answered = await ctx.call({
    url: target.url,
    method: "POST",
    purpose: "invocation",
    json: envelope,
  }, { budget });
  return {
    invocationId,
    inputDigest,
    sentBytes: byteLength(JSON.stringify(envelope)),
    answered,
  };
}
