// The Management API's side of plugin policies (MAPI-020): the caller as a policy check sees it,
// and one wrapper that runs a command under the policies and answers their refusals.
import type { InvokeContext } from "../../plugins/invocations.ts";
import { invokeContextFor } from "../../plugins/invoke_context.ts";
import {
  type PolicyAttempt,
  type PolicyCheck,
  type PolicyResult,
  withPolicies,
} from "../../plugins/policies.ts";
import { refuse } from "../../web/errors.ts";
import type { ManageContext } from "../handler.ts";
import { unwrap } from "./entries_support.ts";

/** The credential's creator as the person a plugin call is made for (`via: management_credential`). */
export function invokeContextOf(ctx: ManageContext): InvokeContext {
  return invokeContextFor(ctx.services, ctx.site.id, {
    userId: ctx.authority.personId,
    via: "management_credential",
    authority: ctx.authority,
  });
}

/**
 * Runs a write under the site's policies: the write's success and the `policy_results` to
 * answer, or the refusal thrown (the service's own, or a policy's).
 */
export async function underPolicies<T extends { ok: boolean; code?: string }>(
  ctx: ManageContext,
  check: PolicyCheck,
  attempt: PolicyAttempt<T>,
): Promise<
  { result: Extract<T, { ok: true }>; policy_results: PolicyResult[] }
> {
  const gate = await withPolicies(invokeContextOf(ctx), check, attempt);
  if (!gate.ok) {
    return refuse(gate.status, gate.code, gate.message, gate.details);
  }
  return { result: unwrap(gate.outcome), policy_results: gate.results };
}
