// What a caller's scopes and an installation's grant allow of a plugin operation (MPL-006,
// MPL-011): the capabilities behind each scope, and whether an operation is available.
import type { Scope } from "../access/scopes.ts";
import type { Installation } from "./installation_store.ts";
import type { ManifestOperation } from "./manifest.ts";
import type { Capability } from "./protocol.ts";

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
