// What a content policy is sent: the command it checks and the changed values, nothing more.
import type { InvocationCaller } from "./invocation_caller.ts";
import type { ManifestPolicy } from "./manifest.ts";

/** The command a policy checks. */
export type PolicyKind = ManifestPolicy["kind"];

/**
 * What a policy sees (PEXT-015): the model, the entry, the language, the changed field keys
 * with their new values, and for a transition which one. Nothing else: the exchange of a
 * policy's code grants no delegation to read more.
 */
export interface PolicyCall {
  id: string;
  kind: PolicyKind;
  model_id: string;
  entry_id: string;
  /** Null for a command on the whole entry (Trash, review moves). */
  locale: string | null;
  /** Changed keys and their new values; a cleared field is null. */
  changed_fields: Record<string, unknown>;
  /** `publish`, `unpublish`, or a review move; null for other kinds. */
  transition: string | null;
  caller: { via: InvocationCaller["via"] };
}
