// Plugin operations (spec 1 parts 2.4, 2.5, 2.9, 7; spec 2 parts 2.5, 4.3): the service checks
// the caller and the grant, sends the closed invocation envelope through the guarded fetch, the
// plugin exchanges the one-time code at /invocations/exchange for a delegation, and its answer
// is accepted only after that exchange, while the installation is active and still granted.
import { loadAuthority } from "../access/authority.ts";
import { decide, readReach } from "../access/decide.ts";
import type { Scope } from "../access/scopes.ts";
import { sha256Hex } from "../auth/secrets.ts";
import type { Clock } from "../clock.ts";
import type { Db } from "../db/database.ts";
import { snapshotActor } from "../entries/actor_snapshot.ts";
import { type AuditWriter, ledgerAuditWriter } from "../entries/audit.ts";
import { isId, readGroup } from "../entries/store.ts";
import { OneTimeCodes } from "../kv/one_time_codes.ts";
import { isPageField } from "../models/validate_values.ts";
import { canonicalJson } from "../pages/mod.ts";
import type { PluginActor } from "../access/actor.ts";
import { type PluginRefusal, pluginRefusal } from "./api_support.ts";
import { parseOperationAnswer, type ResultBlock } from "./answers.ts";
import type { PluginCall } from "./calls.ts";
import {
  type DelegatedModel,
  type ExchangeContext,
  readableGranted,
} from "./delegations.ts";
import {
  type Installation,
  installationOf,
  readInstallation,
} from "./installation_store.ts";
import type { ManifestOperation } from "./manifest.ts";
import {
  answerJson,
  OUTBOUND_LIMITS,
  type OutboundAnswer,
  OutboundBudget,
  type OutboundLimits,
} from "./outbound.ts";
import type { InvocationCaller } from "./invocation_caller.ts";
import type { PolicyCall } from "./policy_call.ts";
import { type Capability, LIMITS } from "./protocol.ts";

/**
 * What each management scope lets a plugin do for a credential (spec 2 part 4.3, MPL-006);
 * a capability outside the credential's scopes is refused.
 */
export const SCOPE_CAPABILITIES: Partial<Record<Scope, Capability[]>> = {
  "content:read": ["content:read", "workflow:read"],
  "lifecycle:publish": [
    "workflow:publish",
    "workflow:unpublish",
    "workflow:locale",
  ],
  "content:write": ["content:write", "content:create", "draft:write"],
  "content:trash": ["content:delete"],
  "media:write": ["media:write", "media:read", "media:update", "media:source"],
  "content:propose": ["content:propose"],
};

/** The capabilities a caller's scopes allow; every capability for a person (null scopes). */
export function capabilitiesOfScopes(
  scopes: readonly Scope[] | null,
): Set<string> | null {
  if (scopes === null) return null;
  return new Set(scopes.flatMap((s) => SCOPE_CAPABILITIES[s] ?? []));
}

/** What a delegation made for a caller with `scopes` keeps (MPL-006): null for a person. */
export function delegatedCapabilities(
  scopes: readonly Scope[] | null,
): string[] | null {
  const allowed = capabilitiesOfScopes(scopes);
  return allowed === null ? null : [...allowed];
}

export type { InvocationCaller, PolicyCall };

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

/** A refusal of an invocation, with the status the Management API answers. */
export interface InvokeRefusal {
  ok: false;
  status: 400 | 403 | 404 | 409 | 422 | 502 | 503 | 504;
  code: string;
  message: string;
  details?: Record<string, unknown>;
}

/** A completed run: the plugin's result blocks. */
export interface InvokeSuccess {
  ok: true;
  invocation_id: string;
  outcome: "completed";
  result: { blocks: ResultBlock[] };
}

function refusal(
  status: InvokeRefusal["status"],
  code: string,
  message: string,
  details?: Record<string, unknown>,
): InvokeRefusal {
  return { ok: false, status, code, message, ...(details ? { details } : {}) };
}

/** What the one-time invocation code is bound to, kept in KV under its digest. */
interface InvocationPayload {
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

function invocationPurpose(installationId: string): string {
  return `invocation:${installationId}`;
}

/** True while the installation is active and its grant holds every requirement of `op`. */
export function operationAvailable(
  installation: Installation,
  op: ManifestOperation,
): boolean {
  return installation.state === "active" &&
    op.requires.every((r) =>
      r === "site:plugins" ||
      installation.capabilities.includes(r as Capability)
    );
}

/** True when a caller with `scopes` may use every capability `op` requires (MPL-006, MPL-011). */
export function withinScopes(
  op: ManifestOperation,
  scopes: readonly Scope[] | null,
): boolean {
  const allowed = capabilitiesOfScopes(scopes);
  return allowed === null ||
    op.requires.every((r) => r === "site:plugins" || allowed.has(r));
}

/** Closed validation of an operation's input against its declared fields (MPL-009). */
export function checkOperationInput(
  op: ManifestOperation,
  input: Record<string, unknown>,
  languages: readonly string[],
): { path: string; message: string }[] {
  const issues: { path: string; message: string }[] = [];
  const fields = new Map(op.input.map((f) => [f.name, f]));
  for (const key of Object.keys(input)) {
    if (!fields.has(key)) {
      issues.push({ path: `input.${key}`, message: "unknown key" });
    }
  }
  for (const field of op.input) {
    const at = `input.${field.name}`;
    const value = input[field.name];
    if (value === undefined || value === null || value === "") {
      if (field.required) issues.push({ path: at, message: "required" });
      continue;
    }
    switch (field.type) {
      case "text":
      case "textarea":
        if (typeof value !== "string") {
          issues.push({ path: at, message: "expected text" });
        } else if (value.length > (field.max_length ?? 10_000)) {
          issues.push({
            path: at,
            message: `at most ${field.max_length ?? 10_000} characters`,
          });
        }
        break;
      case "number":
        if (typeof value !== "number" || !Number.isFinite(value)) {
          issues.push({ path: at, message: "expected a number" });
        } else if (field.min !== undefined && value < field.min) {
          issues.push({ path: at, message: `at least ${field.min}` });
        } else if (field.max !== undefined && value > field.max) {
          issues.push({ path: at, message: `at most ${field.max}` });
        }
        break;
      case "boolean":
        if (typeof value !== "boolean") {
          issues.push({ path: at, message: "expected true or false" });
        }
        break;
      case "select":
        if (!field.options!.some((o) => o.value === value)) {
          issues.push({ path: at, message: "expected one of the options" });
        }
        break;
      case "datetime":
        if (
          typeof value !== "string" ||
          !/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/.test(value) ||
          Number.isNaN(Date.parse(value))
        ) {
          issues.push({ path: at, message: "expected an ISO date and time" });
        }
        break;
      case "timezone":
        if (typeof value !== "string" || !isTimeZone(value)) {
          issues.push({ path: at, message: "expected an IANA time zone" });
        }
        break;
      case "locale":
        if (typeof value !== "string" || !languages.includes(value)) {
          issues.push({ path: at, message: "expected a language of the site" });
        }
        break;
    }
  }
  return issues;
}

function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat("en", { timeZone: zone });
    return zone.includes("/") || zone === "UTC";
  } catch {
    return false;
  }
}

/** A run that passed every check of {@linkcode checkInvocation}. */
export interface CheckedInvocation {
  installation: Installation;
  op: ManifestOperation;
  groupId: string | null;
  modelId: string | null;
  input: Record<string, unknown>;
}

/**
 * Every check of a run before anything is sent, in this order: installation and operation
 * (`operation_unavailable`, `installation_not_active`), the caller's scopes, `instance_id` and
 * `input` (`input_invalid`), the item and permissions. A replay of a keyed run is checked the
 * same way first (MPL-010), so lost authority never gets an old answer back.
 */
export async function checkInvocation(
  ctx: InvokeContext,
  installationId: string,
  operationId: string,
  request: { instance_id?: string; input?: Record<string, unknown> },
): Promise<{ ok: true; checked: CheckedInvocation } | InvokeRefusal> {
  const unavailable = refusal(
    404,
    "operation_unavailable",
    `No operation "${operationId}" is available from this plugin`,
  );
  const row = isId(installationId)
    ? await readInstallation(ctx.db, ctx.siteId, installationId)
    : undefined;
  if (!row) return unavailable;
  const installation = installationOf(row);
  const op = installation.manifest.operations.find((o) => o.id === operationId);
  if (!op) return unavailable;
  if (installation.state !== "active") {
    return refusal(
      409,
      "installation_not_active",
      `The plugin is ${installation.state}`,
    );
  }
  const authority = ctx.caller.authority;
  if (
    !operationAvailable(installation, op) || !withinScopes(op, authority.scopes)
  ) {
    return unavailable;
  }
  const input = request.input ?? {};
  const issues: { path: string; message: string }[] = [];
  if (op.scope === "site" && request.instance_id !== undefined) {
    issues.push({
      path: "instance_id",
      message: "a site operation takes no instance_id",
    });
  }
  if (op.scope !== "site" && request.instance_id === undefined) {
    issues.push({
      path: "instance_id",
      message: `an ${op.scope} operation needs instance_id`,
    });
  }
  const languages = (await ctx.db.selectFrom("site_languages").select("code")
    .where("site_id", "=", ctx.siteId).execute()).map((l) => l.code);
  issues.push(...checkOperationInput(op, input, languages));
  if (issues.length > 0) {
    return refusal(400, "input_invalid", "The operation's input is not valid", {
      issues,
    });
  }

  let groupId: string | null = null;
  let modelId: string | null = null;
  if (op.scope === "site") {
    if (!decide(authority, { action: "plugins.site_operation" }).ok) {
      return refusal(
        403,
        "missing_permission",
        "A site operation needs site:plugins",
        { missing: ["site:plugins"] },
      );
    }
  } else {
    const notFound = refusal(
      404,
      "not_found",
      "No such entry you may read in the plugin's grant",
    );
    const entry = isId(request.instance_id!)
      ? await ctx.db.selectFrom("entries").select("group_id")
        .where("site_id", "=", ctx.siteId)
        .where("id", "=", request.instance_id!).executeTakeFirst()
      : undefined;
    const group = entry
      ? await readGroup(ctx.db, ctx.siteId, entry.group_id)
      : undefined;
    if (
      !group || !installation.modelIds.includes(group.model_id) ||
      !decide(authority, {
        action: "plugins.entry_operation",
        model: group.model_id,
        owner: group.created_by,
      }).ok
    ) {
      return notFound;
    }
    if (op.scope === "page" && !(await holdsPages(ctx, group.model_id))) {
      return notFound;
    }
    if (op.destructive) {
      const decision = decide(authority, {
        action: "plugins.entry_operation_destructive",
        model: group.model_id,
        owner: group.created_by,
      });
      if (!decision.ok) {
        const { ok: _ok, code, ...details } = decision;
        return refusal(
          403,
          code,
          "A destructive operation needs update permission on the entry",
          details,
        );
      }
    }
    groupId = group.id;
    modelId = group.model_id;
  }

  return {
    ok: true,
    checked: { installation, op, groupId, modelId, input },
  };
}

/**
 * Runs operation `operationId` of an installation for the caller, checking in this order:
 * installation and operation (`operation_unavailable`, `installation_not_active`), the
 * caller's scopes, `instance_id` and `input` (`input_invalid`), the item and permissions,
 * one run at a time per caller and target (`invocation_in_progress`); then the call, the
 * exchange and the answer (`plugin_refused`, `plugin_unreachable`, `plugin_timeout`,
 * `plugin_response_invalid`, `plugin_unavailable`). Audited as `plugin.operation.run`.
 */
export async function invokeOperation(
  ctx: InvokeContext,
  installationId: string,
  operationId: string,
  request: { instance_id?: string; input?: Record<string, unknown> },
): Promise<InvokeSuccess | InvokeRefusal> {
  const checked = await checkInvocation(
    ctx,
    installationId,
    operationId,
    request,
  );
  if (!checked.ok) return checked;
  const { installation, op, groupId, modelId, input } = checked.checked;
  // One run at a time per caller, operation and target: a second one waits for the first.
  const lockKey = [
    "plugin_invocation_lock",
    installation.id,
    op.id,
    ctx.caller.userId,
    request.instance_id ?? "site",
  ];
  const locked = await ctx.kv.atomic().check({
    key: lockKey,
    versionstamp: null,
  })
    .set(lockKey, true, { expireIn: LIMITS.invocation.timeout_ms * 2 })
    .commit();
  if (!locked.ok) {
    return refusal(
      409,
      "invocation_in_progress",
      "The same operation is already running for this target: wait for its answer",
    );
  }
  try {
    return await run(ctx, installation, op, {
      groupId,
      modelId,
      instanceId: request.instance_id ?? null,
      input,
    });
  } finally {
    await ctx.kv.delete(lockKey);
  }
}

async function holdsPages(
  ctx: { db: Db; siteId: string },
  modelId: string,
): Promise<boolean> {
  const fields = await ctx.db.selectFrom("model_fields").select([
    "key",
    "type",
    "config",
  ]).where("site_id", "=", ctx.siteId).where("model_id", "=", modelId)
    .execute();
  return fields.some((f) => isPageField(f as never));
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

function byteLength(text: string): number {
  return new TextEncoder().encode(text).byteLength;
}

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

/** The part 7 code of a call that brought no HTTP answer back. */
export function noAnswerCode(
  code: string,
): "plugin_timeout" | "plugin_response_invalid" | "plugin_unreachable" {
  return code === "plugin_timeout" || code === "plugin_response_invalid"
    ? code
    : "plugin_unreachable";
}

/** An answer's JSON, or undefined when it is not JSON (the answer schemas then refuse it). */
export function answerJsonOrNothing(answered: OutboundAnswer): unknown {
  const read = answerJson(answered);
  return read.ok ? read.json : undefined;
}

async function run(
  ctx: InvokeContext,
  installation: Installation,
  op: ManifestOperation,
  target: {
    groupId: string | null;
    modelId: string | null;
    instanceId: string | null;
    input: Record<string, unknown>;
    entries?: ColumnEntry[];
  },
): Promise<InvokeSuccess | InvokeRefusal> {
  const { invocationId, inputDigest, sentBytes, answered } =
    await sendInvocation(
      ctx,
      installation,
      { operationId: op.id, scope: op.scope, url: op.url, ...target },
    );

  const finish = async (
    status: "completed" | "refused" | "failed",
    outcome: string,
    answerDigest: string | null,
  ) => {
    await finishInvocation(
      ctx,
      installation,
      "plugin.operation.run",
      invocationId,
      { status, outcome, answerDigest },
      {
        invocation_id: invocationId,
        operation_id: op.id,
        operation_label: op.label,
        outcome,
        input_digest: inputDigest,
        answer_digest: answerDigest,
        target: target.groupId === null
          ? null
          : { group_id: target.groupId, model_id: target.modelId },
      },
    );
  };

  if (!answered.ok) {
    const code = noAnswerCode(answered.code);
    await finish("failed", code, null);
    return refusal(
      code === "plugin_timeout" ? 504 : 502,
      code,
      code === "plugin_timeout"
        ? "The plugin did not answer in time"
        : code === "plugin_response_invalid"
        ? "The plugin's answer was too large"
        : "The plugin could not be reached",
    );
  }
  const answerDigest = await sha256Hex(answered.body);
  if (answered.status === 503) {
    await finish("failed", "plugin_unavailable", answerDigest);
    return refusal(
      409,
      "plugin_unavailable",
      "The plugin is unavailable: try again later",
    );
  }
  const parsed = answered.status >= 200 && answered.status < 300
    ? parseOperationAnswer(answerJsonOrNothing(answered), op)
    : null;
  if (!parsed || !parsed.ok) {
    await finish("failed", "plugin_response_invalid", answerDigest);
    return refusal(
      502,
      "plugin_response_invalid",
      `The plugin's answer is not a valid operation answer${
        parsed ? "" : ` (HTTP ${answered.status})`
      }`,
      parsed && !parsed.ok ? { issues: parsed.issues } : undefined,
    );
  }
  // Accepted only after the plugin exchanged the code (PEXT-013), and only while the
  // installation is active with a grant still covering the operation (PEXT-014).
  const judged = await judgeExchange(
    ctx.db,
    invocationId,
    sentBytes,
    answered.body.byteLength,
  );
  if (!judged.exchanged || !judged.withinBytes) {
    await finish("failed", "plugin_response_invalid", answerDigest);
    return refusal(
      502,
      "plugin_response_invalid",
      judged.exchanged
        ? `The request, exchange and answer together exceed ${LIMITS.invocation.max_bytes} bytes`
        : "The plugin answered without exchanging the invocation",
    );
  }
  const now2 = await readInstallation(ctx.db, ctx.siteId, installation.id);
  if (!now2 || !operationAvailable(installationOf(now2), op)) {
    await finish("failed", "plugin_unavailable", answerDigest);
    return refusal(
      409,
      "plugin_unavailable",
      "The plugin's installation or grant changed while it ran: its answer was not accepted",
    );
  }
  const answer = parsed.answer;
  if (answer.status === "refused") {
    await finish("refused", "plugin_refused", answerDigest);
    return refusal(422, "plugin_refused", answer.message, {
      plugin: { code: answer.code, message: answer.message },
    });
  }
  await finish("completed", "completed", answerDigest);
  return {
    ok: true,
    invocation_id: invocationId,
    outcome: "completed",
    result: { blocks: answer.blocks },
  };
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

/** Most entries one column run answers for (a `cells` block holds at most 200). */
export const COLUMN_MAX_ENTRIES = 200;

/** A column run's badges, by entry language id. */
export type ColumnCells = Map<string, { label: string; tone: string }>;

/**
 * Runs a column operation (audience `column`) for the entry languages a list shows. Entries
 * the caller may not read, or outside the grant, are left out before anything is sent; none
 * left sends nothing. The answer must be `cells` blocks naming only the listed entries, else it
 * is `plugin_response_invalid`. A run is checked, exchanged and audited as every run is.
 */
export async function invokeColumn(
  ctx: InvokeContext,
  installationId: string,
  operationId: string,
  request: { model_id: string; instance_ids: readonly string[] },
): Promise<{ ok: true; cells: ColumnCells } | InvokeRefusal> {
  const unavailable = refusal(
    404,
    "operation_unavailable",
    `No column "${operationId}" is available from this plugin`,
  );
  const row = isId(installationId)
    ? await readInstallation(ctx.db, ctx.siteId, installationId)
    : undefined;
  if (!row) return unavailable;
  const installation = installationOf(row);
  const op = installation.manifest.operations.find((o) =>
    o.id === operationId && o.audience === "column"
  );
  const authority = ctx.caller.authority;
  if (
    !op || installation.state !== "active" ||
    !operationAvailable(installation, op) ||
    !withinScopes(op, authority.scopes) ||
    !installation.modelIds.includes(request.model_id)
  ) {
    return unavailable;
  }
  if (op.scope === "page" && !(await holdsPages(ctx, request.model_id))) {
    return unavailable;
  }
  const wanted = [...new Set(request.instance_ids)]
    .filter((id) => isId(id)).slice(0, COLUMN_MAX_ENTRIES);
  const rows = wanted.length === 0
    ? []
    : await ctx.db.selectFrom("entries as e")
      .innerJoin(
        "entry_groups as g",
        (j) =>
          j.onRef("g.site_id", "=", "e.site_id").onRef(
            "g.id",
            "=",
            "e.group_id",
          ),
      )
      .select(["e.id", "e.group_id", "e.locale", "g.model_id", "g.created_by"])
      .where("e.site_id", "=", ctx.siteId).where("e.id", "in", wanted)
      .execute();
  const listed = rows.filter((r) =>
    r.model_id === request.model_id &&
    decide(authority, {
      action: "plugins.entry_operation",
      model: r.model_id,
      owner: r.created_by,
    }).ok
  ).map((r) => ({ instance_id: r.id, group_id: r.group_id, locale: r.locale }));
  if (listed.length === 0) return { ok: true, cells: new Map() };
  const ran = await run(ctx, installation, op, {
    groupId: null,
    modelId: request.model_id,
    instanceId: null,
    input: {},
    entries: listed,
  });
  if (!ran.ok) return ran;
  const cells: ColumnCells = new Map();
  const known = new Set(listed.map((e) => e.instance_id));
  for (const block of ran.result.blocks) {
    if (block.type !== "cells") continue;
    for (const cell of block.cells) {
      if (!known.has(cell.instance_id)) {
        return refusal(
          502,
          "plugin_response_invalid",
          "The plugin answered a cell for an entry the list does not show",
        );
      }
      cells.set(cell.instance_id, cell.badge);
    }
  }
  return { ok: true, cells };
}
