// The plugin's side of a run (spec 1 part 2.5): it exchanges the one-time code at
// /invocations/exchange for a delegation, once, and learns the run's target and its grant; a
// policy check's code tells it the check and nothing else.
import { loadAuthority } from "../access/authority.ts";
import { readReach } from "../access/decide.ts";
import { OneTimeCodes } from "../kv/one_time_codes.ts";
import { type PluginRefusal, pluginRefusal } from "./api_support.ts";
import type { DelegatedModel, ExchangeContext } from "./delegations.ts";
import type { ManifestOperation } from "./manifest.ts";
import type { InvocationCaller } from "./invocation_caller.ts";
import type { PolicyCall } from "./policy_call.ts";

/** What the one-time invocation code is bound to, kept in KV under its digest. */
export interface InvocationPayload {
  siteId: string;
  installationId: string;
  invocationId: string;
  userId: string;
  via: InvocationCaller["via"];
  operationId: string;
  scope: ManifestOperation["scope"];
  groupId: string | null;
  instanceId: string | null;
  modelId: string | null;
  /** Models the caller reads (credential models applied), for a site operation's delegation. */
  models: DelegatedModel[];
  /** A credential's scope-derived capabilities (MPL-006); null for a person. */
  capabilities?: string[] | null;
  input: Record<string, unknown>;
  /** A column run: the listed entry languages it answers cells for. */
  entries?: ColumnEntry[];
  /** A media-source call: the source and what is asked of it (a page, or one item). */
  mediaSource?: MediaSourceCall;
  /** A policy check: what the policy may see (core/plugins/policies.ts). */
  policy?: PolicyCall;
}

/** What a media-source call asks (core/plugins/media_sources.ts). */
export interface MediaSourceCall {
  id: string;
  q: string | null;
  cursor: string | null;
  item_id: string | null;
}

/** One entry language a column run answers a cell for. */
export interface ColumnEntry {
  instance_id: string;
  group_id: string;
  locale: string;
}

export function invocationPurpose(installationId: string): string {
  return `invocation:${installationId}`;
}

export function byteLength(text: string): number {
  return new TextEncoder().encode(text).byteLength;
}

/** What the plugin learns from exchanging an invocation code. */
export interface InvocationExchange {
  delegation_id: string;
  invocation_id: string;
  operation_id: string;
  scope: ManifestOperation["scope"];
  instance_id: string | null;
  group_id: string | null;
  model_ids: DelegatedModel[];
  input: Record<string, unknown>;
  /** A column run only: the listed entry languages to answer cells for. */
  entries?: ColumnEntry[];
  /** A media-source call only: the source and what is asked of it. */
  media_source?: MediaSourceCall;
  user: { id: string; email: string };
}

/** What the plugin learns from exchanging a policy check's code: the check, and nothing else. */
export interface PolicyExchange {
  invocation_id: string;
  policy: PolicyCall;
}

const CODE_REFUSED =
  "The code is unknown, used, expired or was not minted for this installation";

/**
 * Exchanges an invocation code (`svi_`, one-time, bound to this installation and the run)
 * for a delegation recorded with the invocation (LAU-021): an entry operation's is bound to
 * the item's translation group and model; a site operation's has no entry and reaches the
 * granted models the caller reads (LAU-022). A launch code is refused here, and this code
 * at `/launch/exchange` (LAU-023).
 */
export async function exchangeInvocation(
  ctx: ExchangeContext,
  code: string,
): Promise<
  { ok: true; exchange: InvocationExchange | PolicyExchange } | PluginRefusal
> {
  if (!/^svi_[A-Za-z0-9_-]{43}$/.test(code)) {
    return pluginRefusal("invalid_request", CODE_REFUSED);
  }
  const consumed = await new OneTimeCodes(ctx.kv, { clock: ctx.clock })
    .consume<InvocationPayload>(code, invocationPurpose(ctx.installation.id));
  if (!consumed.ok) return pluginRefusal("invalid_request", CODE_REFUSED);
  const p = consumed.payload;
  if (
    p.siteId !== ctx.installation.siteId ||
    p.installationId !== ctx.installation.id
  ) {
    return pluginRefusal("invalid_request", CODE_REFUSED);
  }
  if (p.policy) {
    // A policy sees what it checks and nothing else (PEXT-015): no delegation to read more.
    const exchange = { invocation_id: p.invocationId, policy: p.policy };
    const waiting = await ctx.db.updateTable("plugin_invocations").set({
      status: "exchanged",
      exchanged_at: ctx.clock.now(),
      exchange_bytes: exchangeBytes(code, exchange),
    }).where("id", "=", p.invocationId).where("status", "=", "sent")
      .executeTakeFirst();
    if (waiting.numUpdatedRows !== 1n) {
      return pluginRefusal("invalid_request", CODE_REFUSED);
    }
    return { ok: true, exchange };
  }
  const loaded = await loadAuthority(ctx.db, {
    siteId: p.siteId,
    actor: { kind: "person", userId: p.userId },
  });
  if (!loaded.ok) {
    return pluginRefusal(
      "requester_unauthorized",
      "The person who ran the operation no longer has access to the site",
    );
  }
  let models = p.models;
  if ((p.groupId !== null || p.entries) && p.modelId !== null) {
    const reach = readReach(loaded.authority, p.modelId);
    if (reach === "none") {
      return pluginRefusal(
        "requester_unauthorized",
        "The person may no longer read the item",
      );
    }
    models = [{
      model_id: p.modelId,
      access: reach === "all" ? "read" : "read:own",
    }];
  }
  const user = await ctx.db.selectFrom("users").select("email")
    .where("id", "=", p.userId).executeTakeFirstOrThrow();
  const id = (ctx.newId ?? (() => crypto.randomUUID()))();
  const now = ctx.clock.now();
  const exchange: InvocationExchange = {
    delegation_id: id,
    invocation_id: p.invocationId,
    operation_id: p.operationId,
    scope: p.scope,
    instance_id: p.instanceId,
    group_id: p.groupId,
    model_ids: models,
    input: p.input,
    ...(p.entries ? { entries: p.entries } : {}),
    ...(p.mediaSource ? { media_source: p.mediaSource } : {}),
    user: { id: p.userId, email: user.email },
  };
  // Only a run still waiting for its answer can be exchanged: once the service has judged
  // the answer (or given up), the code is worth nothing.
  const exchanged = await ctx.db.transaction().execute(async (tx) => {
    const waiting = await tx.updateTable("plugin_invocations").set({
      status: "exchanged",
      delegation_id: id,
      exchanged_at: now,
      exchange_bytes: exchangeBytes(code, exchange),
    }).where("id", "=", p.invocationId).where("status", "=", "sent")
      .executeTakeFirst();
    if (waiting.numUpdatedRows !== 1n) return false;
    await tx.insertInto("plugin_delegations").values({
      id,
      site_id: p.siteId,
      installation_id: ctx.installation.id,
      source: "invocation",
      user_id: p.userId,
      user_email: user.email,
      action: p.operationId,
      view: null,
      instance_id: p.instanceId,
      group_id: p.groupId,
      model_ids: JSON.stringify(models),
      invocation_id: p.invocationId,
      capabilities: p.capabilities ? JSON.stringify(p.capabilities) : null,
      created_at: now,
    }).execute();
    return true;
  });
  if (!exchanged) return pluginRefusal("invalid_request", CODE_REFUSED);
  return { ok: true, exchange };
}

/** The exchange's request (`{"code": …}`) and answer (`{"data": …}`) as sent, in bytes. */
function exchangeBytes(code: string, exchange: unknown): number {
  return byteLength(JSON.stringify({ code })) +
    byteLength(JSON.stringify({ data: exchange }));
}
