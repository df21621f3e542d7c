// Plugin operations (spec 1 parts 2.4, 2.5, 2.9, 7; spec 2 parts 2.5, 4.3): the service checks
// the caller and the grant, sends the closed invocation envelope through the guarded fetch, the
// plugin exchanges the one-time code at /invocations/exchange for a delegation, and its answer
// is accepted only after that exchange, while the installation is active and still granted.
import { decide } from "../access/decide.ts";
import { sha256Hex } from "../auth/secrets.ts";
import type { Db } from "../db/database.ts";
import { isId, readGroup } from "../entries/store.ts";
import { isPageField } from "../models/validate_values.ts";
import { parseOperationAnswer, type ResultBlock } from "./answers.ts";
import {
  type Installation,
  installationOf,
  readInstallation,
} from "./installation_store.ts";
import type { ManifestOperation } from "./manifest.ts";
import { answerJson, type OutboundAnswer } from "./outbound.ts";
import type { InvocationCaller } from "./invocation_caller.ts";
import type { PolicyCall } from "./policy_call.ts";
import { LIMITS } from "./protocol.ts";
import type { ColumnEntry } from "./invocation_exchange.ts";
export { exchangeInvocation } from "./invocation_exchange.ts";
import { checkOperationInput } from "./operation_input.ts";
export { checkOperationInput } from "./operation_input.ts";
import { operationAvailable, withinScopes } from "./operation_grants.ts";
export {
  capabilitiesOfScopes,
  delegatedCapabilities,
  operationAvailable,
  SCOPE_CAPABILITIES,
  withinScopes,
} from "./operation_grants.ts";
import { type InvokeContext, sendInvocation } from "./invocation_send.ts";
export { sendInvocation } from "./invocation_send.ts";
import { finishInvocation, judgeExchange } from "./invocation_finish.ts";
export {
  auditPluginCall,
  finishInvocation,
  judgeExchange,
} from "./invocation_finish.ts";
export type { ExchangeJudgement } from "./invocation_finish.ts";

export type { InvocationTarget, InvokeContext } from "./invocation_send.ts";

export type {
  ColumnEntry,
  InvocationExchange,
  MediaSourceCall,
  PolicyExchange,
} from "./invocation_exchange.ts";

export type { InvocationCaller, PolicyCall };

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
