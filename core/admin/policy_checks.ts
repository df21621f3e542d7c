// The editors' side of plugin policies: the signed-in person as a plugin call sees them, writes run
// under the same policy checks as the Management API's, and what policies said reaches the next
// page through a short-lived note (a redirect after a save cannot carry it otherwise).
import { isId } from "../entries/store.ts";
import type { LifecycleContext } from "../entries/types.ts";
import { invokeContextFor } from "../plugins/invoke_context.ts";
import type { InvokeContext } from "../plugins/invocations.ts";
import {
  type PolicyCheck,
  type PolicyChecked,
  type PolicyRefusal,
  type PolicyResult,
  withPolicies,
} from "../plugins/policies.ts";
import type { AdminContext } from "./context.ts";

/** The signed-in person as the one a plugin call is made for (`via: session`). */
export function personInvokeContext(ctx: AdminContext): InvokeContext {
  return invokeContextFor(ctx.services, ctx.site.id, {
    userId: ctx.user.id,
    via: "session",
    authority: ctx.authority,
  });
}

/** Runs an editor command under the site's policies, as the Management API runs it. */
export function underPolicies<T extends { ok: boolean; code?: string }>(
  ctx: AdminContext,
  check: PolicyCheck,
  attempt: (
    lifecycle: LifecycleContext,
    transform: Record<string, unknown> | null,
  ) => Promise<T>,
): Promise<PolicyChecked<T> | PolicyRefusal> {
  return withPolicies(
    personInvokeContext(ctx),
    check,
    ({ dryRun, transform }) => attempt({ ...ctx.lifecycle, dryRun }, transform),
  );
}

/** What a person reads for a policy refusal. */
export function policyRefusalText(refusal: PolicyRefusal): string {
  const d = refusal.details as { plugin?: string; policy_label?: string };
  switch (refusal.code) {
    case "plugin_policy_refused":
      return `Not saved: ${d.plugin} (${d.policy_label}) says: ${refusal.message}`;
    case "plugin_policy_transform_conflict":
    case "plugin_policy_transform_invalid":
    case "plugin_policy_unavailable":
      return `Not saved: ${refusal.message}`;
    case "plugin_policy_budget_exhausted":
      return `Not saved: ${refusal.message}. Try again in a minute.`;
  }
}

/** One line per policy result, for the page after the write. */
export function policyLines(results: readonly PolicyResult[]): string[] {
  return results.map((r) => {
    const who = `${r.plugin_name} (${r.policy_label})`;
    if (r.outcome === "transformed") {
      return `${who} changed ${r.fields.join(", ")}${
        r.message ? `: ${r.message}` : ""
      }`;
    }
    if (r.outcome === "unavailable") {
      return `${who} did not answer (${r.failure}); saved without it`;
    }
    return `${who}: ${r.message ?? "warning"}${
      r.fields.length > 0 ? ` (${r.fields.join(", ")})` : ""
    }`;
  });
}

const NOTE_TTL_MS = 5 * 60_000;

/** Keeps lines for this person's next page; answers the id to put in the redirect. */
export async function keepNotes(
  ctx: AdminContext,
  lines: readonly string[],
): Promise<string | null> {
  if (lines.length === 0) return null;
  const id = crypto.randomUUID();
  await ctx.services.kv.set(["admin_notes", ctx.user.id, id], lines, {
    expireIn: NOTE_TTL_MS,
  });
  return id;
}

/** Takes the lines kept under `id` for this person (once); none for another person's id. */
export async function takeNotes(
  ctx: AdminContext,
  id: string | undefined,
): Promise<string[]> {
  if (!id || !isId(id)) return [];
  const key = ["admin_notes", ctx.user.id, id];
  const kept = await ctx.services.kv.get<string[]>(key);
  if (!kept.value) return [];
  await ctx.services.kv.delete(key);
  return kept.value;
}
