// Content policies (spec 1 parts 2.1, 6, 7; spec 2 parts 2.5, 4.3, 7; PEXT-015..023, MAPI-020,
// AUD-012, AUD-013): before an entry update, page save, version restore, Trash command or
// transition is written, every active installation that declares a policy of that kind for the
// entry's model is asked, through the invocation envelope and its exchange, after the service's
// own checks have passed in a dry run. Answers: allow, warning, refuse, or (save and restore)
// transform. The write is then made with the same pins, so it commits only while the version
// the policies saw is still current.
import { readableFields } from "../access/decide.ts";
import { stableJson } from "../models/problems.ts";
import { canonicalJson } from "../pages/mod.ts";
import { sha256Hex } from "../auth/secrets.ts";
import { RateWindow } from "../kv/rate_window.ts";
import {
  type AnswerIssue,
  parsePolicyAnswer,
  type PolicyAnswer,
  policyAnswerSchema,
} from "./answers.ts";
import {
  type Installation,
  installationOf,
  type InstallationRow,
  type PolicyMode,
  readInstallation,
} from "./installation_store.ts";
import {
  answerJsonOrNothing,
  auditPluginCall,
  finishInvocation,
  type InvokeContext,
  judgeExchange,
  noAnswerCode,
  sendInvocation,
} from "./invocations.ts";
import type { ManifestPolicy } from "./manifest.ts";
import { LIMITS } from "./protocol.ts";
import type { PolicyCall, PolicyKind } from "./policy_call.ts";
import { INSTALLATION_COLUMNS } from "../db/row_columns.ts";

export type { PolicyCall, PolicyKind };

/** One entry of `policy_results` (spec 2 part 2.5, PEXT-022). */
export interface PolicyResult {
  installation_id: string;
  plugin_name: string;
  policy_id: string;
  policy_label: string;
  locale: string | null;
  message: string | null;
  fields: string[];
  outcome: "warning" | "transformed" | "unavailable";
  /** For `unavailable`: why the advisory policy gave no answer. */
  failure?: string;
}

/** A write the policies stopped: nothing was written. */
export interface PolicyRefusal {
  ok: false;
  status: 422 | 429 | 503;
  code:
    | "plugin_policy_refused"
    | "plugin_policy_transform_invalid"
    | "plugin_policy_transform_conflict"
    | "plugin_policy_unavailable"
    | "plugin_policy_budget_exhausted";
  message: string;
  details: Record<string, unknown>;
}

/**
 * Our choices where spec 1 part 8 says "not shown": each policy answers within 5 seconds (the
 * invocation's 64 KB apply), and an installation is asked at most 60 times in any 60 seconds.
 */
export const POLICY_LIMITS = {
  timeout_ms: 5_000,
  max_bytes: LIMITS.invocation.max_bytes,
  calls_per_window: 60,
  window_ms: 60_000,
} as const;

/** One policy to ask, with the mode it runs in now. */
interface ApplicablePolicy {
  installation: Installation;
  policy: ManifestPolicy;
  mode: Exclude<PolicyMode, "off">;
}

/** The mode a policy runs in: the administrator's choice, else the declared one. */
export function policyModeOf(
  installation: Pick<Installation, "policyModes">,
  policy: Pick<ManifestPolicy, "id" | "mode">,
): PolicyMode {
  return installation.policyModes[policy.id] ?? policy.mode;
}

function covers(installation: Installation, modelId: string): boolean {
  return installation.state === "active" &&
    installation.capabilities.includes("content:read") &&
    installation.modelIds.includes(modelId);
}

/** Active, granted policies of `kind` for `modelId`, in a stable order; `off` ones left out. */
async function applicablePolicies(
  ctx: InvokeContext,
  check: PolicyCheck,
): Promise<ApplicablePolicy[]> {
  const { kind, modelId } = check;
  const rows = check.installations ??
    await ctx.db.selectFrom("plugin_installations").select(INSTALLATION_COLUMNS)
      .where("site_id", "=", ctx.siteId).where("state", "=", "active")
      .orderBy("created_at").orderBy("id").execute();
  const found: ApplicablePolicy[] = [];
  for (const installation of rows.map(installationOf)) {
    if (!covers(installation, modelId)) continue;
    for (const policy of installation.manifest.policies) {
      if (policy.kind !== kind) continue;
      const mode = policyModeOf(installation, policy);
      if (mode !== "off") found.push({ installation, policy, mode });
    }
  }
  return found;
}

/** How one policy was answered: its decision, or why there is none. */
type Asked =
  | { ok: true; answer: PolicyAnswer }
  | { ok: false; failure: string; issues?: AnswerIssue[] };

const FAILURE_MESSAGES: Record<string, string> = {
  plugin_timeout: "did not answer in time",
  plugin_unreachable: "could not be reached",
  plugin_response_invalid: "gave an answer that is not a policy decision",
  plugin_unavailable: "is unavailable",
  plugin_policy_budget_exhausted: "has been asked too often in the last minute",
  transform_out_of_scope:
    "answered a transform that reaches beyond the checked entry and language",
};

/** Asks one policy, classifies the answer as part 7 says, and audits it (AUD-012, AUD-013). */
async function askPolicy(
  ctx: InvokeContext,
  item: ApplicablePolicy,
  call: PolicyCall,
): Promise<Asked> {
  const { installation, policy } = item;
  const audit = (outcome: string, extra: Record<string, unknown>) => ({
    policy_id: policy.id,
    policy_label: policy.label,
    kind: policy.kind,
    mode: item.mode,
    outcome,
    target: {
      entry_id: call.entry_id,
      model_id: call.model_id,
      locale: call.locale,
    },
    ...extra,
  });
  const budget = await new RateWindow(ctx.kv, { clock: ctx.clock }).hit(
    ["plugin_policy", installation.id],
    POLICY_LIMITS.calls_per_window,
    POLICY_LIMITS.window_ms,
  );
  if (!budget.allowed) {
    await auditPluginCall(
      ctx,
      installation,
      "plugin.policy.check",
      audit("plugin_policy_budget_exhausted", {
        input_digest: await sha256Hex(canonicalJson(call)),
        answer_digest: null,
      }),
    );
    return { ok: false, failure: "plugin_policy_budget_exhausted" };
  }
  const { invocationId, inputDigest, sentBytes, answered } =
    await sendInvocation(
      ctx,
      installation,
      {
        operationId: `policy:${policy.id}`,
        scope: "entry",
        url: policy.url,
        groupId: call.entry_id,
        modelId: call.model_id,
        instanceId: null,
        input: {},
        policy: call,
        limits: {
          maxBytes: POLICY_LIMITS.max_bytes,
          timeoutMs: POLICY_LIMITS.timeout_ms,
        },
      },
    );
  const finish = async (
    status: "completed" | "refused" | "failed",
    outcome: string,
    answerDigest: string | null,
  ) => {
    await finishInvocation(
      ctx,
      installation,
      "plugin.policy.check",
      invocationId,
      { status, outcome, answerDigest },
      audit(outcome, {
        invocation_id: invocationId,
        input_digest: inputDigest,
        answer_digest: answerDigest,
      }),
    );
  };
  const failed = async (code: string, answerDigest: string | null) => {
    await finish("failed", code, answerDigest);
    return { ok: false as const, failure: code };
  };
  if (!answered.ok) {
    return await failed(noAnswerCode(answered.code), null);
  }
  const answerDigest = await sha256Hex(answered.body);
  if (answered.status === 503) {
    return await failed("plugin_unavailable", answerDigest);
  }
  const json = answerJsonOrNothing(answered);
  const parsed = answered.status >= 200 && answered.status < 300
    ? parsePolicyAnswer(json, {
      kind: policy.kind,
      entryId: call.entry_id,
      locale: call.locale ?? "",
    })
    : null;
  if (!parsed || !parsed.ok) {
    // A well-formed decision that reaches another entry or language, or transforms a command
    // that cannot be transformed, is the transform's fault, not a broken answer (PEXT-017).
    if (parsed && policyAnswerSchema.safeParse(json).success) {
      await finish("refused", "transform_out_of_scope", answerDigest);
      return {
        ok: false,
        failure: "transform_out_of_scope",
        issues: parsed.issues,
      };
    }
    return await failed("plugin_response_invalid", answerDigest);
  }
  // Accepted only after the exchange, from an installation still active whose grant still
  // covers the model and which still declares the policy (PEXT-013, PEXT-014).
  const judged = await judgeExchange(
    ctx.db,
    invocationId,
    sentBytes,
    answered.body.byteLength,
  );
  if (!judged.exchanged || !judged.withinBytes) {
    return await failed("plugin_response_invalid", answerDigest);
  }
  const now = await readInstallation(ctx.db, ctx.siteId, installation.id);
  const still = now ? installationOf(now) : null;
  if (
    !still || !covers(still, call.model_id) ||
    !still.manifest.policies.some((p) => p.id === policy.id)
  ) {
    return await failed("plugin_unavailable", answerDigest);
  }
  const decision = parsed.answer.decision;
  await finish(
    decision === "refuse" ? "refused" : "completed",
    decision,
    answerDigest,
  );
  return { ok: true, answer: parsed.answer };
}

/** What a command tells the policies about itself. */
export interface PolicyCheck {
  kind: PolicyKind;
  groupId: string;
  modelId: string;
  locale: string | null;
  transition?: string;
  /**
   * A save's or restore's values and the version it is pinned to; the changed fields a policy
   * sees are worked out from them, only when some policy applies. Absent: nothing changes.
   */
  values?: { pinnedVersionId: string | null; after: Record<string, unknown> };
  /**
   * The site's active installations, when the caller read them with its own reads
   * (`activeInstallationsJson`); absent, they are read here.
   */
  installations?: readonly InstallationRow[];
}

/** A command the policies judge: run once as a dry run, then for real (with a transform's values). */
export type PolicyAttempt<T> = (options: {
  dryRun: boolean;
  transform: Record<string, unknown> | null;
}) => Promise<T>;

/** The outcome of a policy-checked command, with what the policies said. */
export interface PolicyChecked<T> {
  ok: true;
  outcome: T;
  results: PolicyResult[];
}

function resultOf(
  item: ApplicablePolicy,
  locale: string | null,
  rest: Pick<PolicyResult, "message" | "fields" | "outcome" | "failure">,
): PolicyResult {
  return {
    installation_id: item.installation.id,
    plugin_name: item.installation.name,
    policy_id: item.policy.id,
    policy_label: item.policy.label,
    locale,
    ...rest,
    ...(rest.failure === undefined ? {} : { failure: rest.failure }),
  };
}

/**
 * Runs `attempt` under the site's policies of `check.kind`. Without an applicable policy it
 * simply runs it. Otherwise: a dry run first (the service's own checks; its refusal is the
 * answer), then every policy is asked at once; a refusal, or a blocking policy without an
 * answer, refuses the write; transforms are merged (two different values for one field is
 * `plugin_policy_transform_conflict`) and the write runs with them, its refusal answered as
 * `plugin_policy_transform_invalid` with the cause. A stale pin stays the ordinary conflict.
 */
export async function withPolicies<
  T extends { ok: boolean; code?: string },
>(
  ctx: InvokeContext,
  check: PolicyCheck,
  attempt: PolicyAttempt<T>,
): Promise<PolicyChecked<T> | PolicyRefusal> {
  const policies = await applicablePolicies(ctx, check);
  if (policies.length === 0) {
    return {
      ok: true,
      outcome: await attempt({ dryRun: false, transform: null }),
      results: [],
    };
  }
  const dry = await attempt({ dryRun: true, transform: null });
  if (!dry.ok) return { ok: true, outcome: dry, results: [] };
  const call = {
    kind: check.kind,
    model_id: check.modelId,
    entry_id: check.groupId,
    locale: check.locale,
    changed_fields: check.values
      ? await changedFieldValues(
        ctx,
        check.modelId,
        check.values.pinnedVersionId,
        check.values.after,
      )
      : {},
    transition: check.transition ?? null,
    caller: { via: ctx.caller.via },
  };
  const asked = await Promise.all(
    policies.map((item) =>
      askPolicy(ctx, item, { id: item.policy.id, ...call })
    ),
  );
  const results: PolicyResult[] = [];
  const transforms: {
    item: ApplicablePolicy;
    values: Record<string, unknown>;
  }[] = [];
  for (const [i, item] of policies.entries()) {
    const got = asked[i];
    if (!got.ok && got.failure === "transform_out_of_scope") {
      return {
        ok: false,
        status: 422,
        code: "plugin_policy_transform_invalid",
        message: `"${item.policy.label}" of ${item.installation.name} ${
          FAILURE_MESSAGES[got.failure]
        }: nothing was written`,
        details: {
          cause: { code: got.failure, issues: got.issues ?? [] },
          policies: [{
            installation_id: item.installation.id,
            policy: item.policy.id,
            policy_label: item.policy.label,
          }],
        },
      };
    }
    if (!got.ok) {
      if (item.mode === "advisory") {
        results.push(resultOf(item, check.locale, {
          message: `The policy ${FAILURE_MESSAGES[got.failure]}`,
          fields: [],
          outcome: "unavailable",
          failure: got.failure,
        }));
        continue;
      }
      const exhausted = got.failure === "plugin_policy_budget_exhausted";
      return {
        ok: false,
        status: exhausted ? 429 : 503,
        code: exhausted
          ? "plugin_policy_budget_exhausted"
          : "plugin_policy_unavailable",
        message: `"${item.policy.label}" of ${item.installation.name} ${
          FAILURE_MESSAGES[got.failure]
        }: nothing was written`,
        details: {
          plugin: item.installation.name,
          installation_id: item.installation.id,
          policy: item.policy.id,
          policy_label: item.policy.label,
          failure: got.failure,
        },
      };
    }
    const answer = got.answer;
    if (answer.decision === "refuse") {
      return {
        ok: false,
        status: 422,
        code: "plugin_policy_refused",
        message: answer.message,
        details: {
          plugin: item.installation.name,
          installation_id: item.installation.id,
          policy: item.policy.id,
          policy_label: item.policy.label,
          locale: check.locale,
          fields: answer.fields ?? [],
          // The error's own code and message are the service's; the plugin's code sits here.
          refusal: { code: answer.code, message: answer.message },
        },
      };
    }
    if (answer.decision === "warning") {
      results.push(resultOf(item, check.locale, {
        message: answer.message,
        fields: answer.fields ?? [],
        outcome: "warning",
      }));
    }
    if (answer.decision === "transform") {
      const values = { ...answer.values };
      if (answer.seo) values.seo = answer.seo;
      transforms.push({ item, values });
      results.push(resultOf(item, check.locale, {
        message: answer.message ?? null,
        fields: Object.keys(values),
        outcome: "transformed",
      }));
    }
  }
  if (transforms.length === 0) {
    return {
      ok: true,
      outcome: await attempt({ dryRun: false, transform: null }),
      results,
    };
  }
  const merged: Record<string, unknown> = {};
  const setBy = new Map<string, ApplicablePolicy>();
  for (const { item, values } of transforms) {
    for (const [key, value] of Object.entries(values)) {
      const earlier = setBy.get(key);
      if (earlier && stableJson(merged[key]) !== stableJson(value)) {
        return {
          ok: false,
          status: 422,
          code: "plugin_policy_transform_conflict",
          message:
            `"${earlier.policy.label}" and "${item.policy.label}" set "${key}" to different values: nothing was written`,
          details: {
            field: key,
            policies: [earlier, item].map((p) => ({
              installation_id: p.installation.id,
              policy: p.policy.id,
              policy_label: p.policy.label,
            })),
          },
        };
      }
      merged[key] = value;
      setBy.set(key, item);
    }
  }
  const outcome = await attempt({ dryRun: false, transform: merged });
  if (!outcome.ok && outcome.code !== "version_conflict") {
    const { ok: _ok, ...cause } = outcome as unknown as Record<string, unknown>;
    return {
      ok: false,
      status: 422,
      code: "plugin_policy_transform_invalid",
      message:
        "A policy's replacement values do not pass the checks your own input must pass: nothing was written",
      details: {
        cause,
        policies: transforms.map(({ item }) => ({
          installation_id: item.installation.id,
          policy: item.policy.id,
          policy_label: item.policy.label,
        })),
      },
    };
  }
  return { ok: true, outcome, results };
}

/**
 * The fields a save or restore changes, with their new values (a cleared one is null); a field
 * the person cannot read is never reported (the save keeps its stored value).
 */
async function changedFieldValues(
  ctx: Pick<InvokeContext, "db" | "siteId" | "caller">,
  modelId: string,
  beforeVersionId: string | null,
  after: Record<string, unknown>,
): Promise<Record<string, unknown>> {
  const before = beforeVersionId === null
    ? {}
    : ((await ctx.db.selectFrom("entry_versions").select("fields")
      .where("site_id", "=", ctx.siteId).where("id", "=", beforeVersionId)
      .executeTakeFirst())?.fields ?? {}) as Record<string, unknown>;
  const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])]
    .filter((k) => stableJson(before[k]) !== stableJson(after[k]));
  const readable = new Set(
    readableFields(ctx.caller.authority, modelId, keys),
  );
  return Object.fromEntries(
    keys.filter((k) => readable.has(k)).map((k) => [k, after[k] ?? null]),
  );
}
