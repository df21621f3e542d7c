// Grant ceilings: a creator grants only what they hold now, and a role never exceeds its author's authority.
// This module is browser compatible.
import type { Authority } from "./authority.ts";
import {
  allowedLanguagesOf,
  holdsSystem,
  meetsNeed,
  modelActionsOn,
  resolveFieldLimit,
} from "./limits.ts";
import {
  ALL_MODELS,
  type LanguageAction,
  languageActionOf,
  type ModelAction,
  type Permissions,
} from "./permissions.ts";
import {
  ACTION_SCOPES,
  type Requirement,
  type Scope,
  SCOPE_RULES,
  scopeHeld,
} from "./scopes.ts";

/** One scope (or scope on one model) the creator cannot grant, and what they lack. */
export interface NotHeld {
  scope: Scope;
  /** The requested model the scope is not held on; absent when judged site-wide. */
  model?: string;
  /** Each unmet need; alternatives joined with " or ". */
  missing: string[];
}

/** The answer of {@linkcode checkGrantHeld}. */
export type GrantCheck =
  | { ok: true }
  | { ok: false; code: "grant_not_held"; not_held: NotHeld[] };

/** The answer of {@linkcode checkRoleEscalation}. */
export type EscalationCheck =
  | { ok: true }
  | { ok: false; code: "escalation_refused"; exceeds: string[] };

function unmetOn(
  permissions: Permissions,
  requirement: Requirement,
  model: string | undefined,
): string[] {
  // At grant time the creator's own items count: `read:own` holds `read` for them.
  return requirement
    .filter((group) =>
      !group.some((need) => meetsNeed(permissions, need, { model, own: true }))
    )
    .map((group) => group.join(" or "));
}

/** A model-bound scope held on no one model: the whole requirement is missing. */
function siteWideModelBound(
  permissions: Permissions,
  requirement: Requirement,
  models: readonly string[],
): string[] {
  const held = models.some((model) =>
    unmetOn(permissions, requirement, model).length === 0
  );
  return held ? [] : requirement.map((group) => group.join(" or "));
}

/** A site-wide scope: a model need is met when some reachable model meets it. */
function siteWide(
  permissions: Permissions,
  requirement: Requirement,
  models: readonly string[],
): string[] {
  return requirement
    .filter((group) =>
      !group.some((need) =>
        [undefined, ...models].some((model) =>
          meetsNeed(permissions, need, { model, own: true })
        )
      )
    )
    .map((group) => group.join(" or "));
}

function reachableModels(
  creator: Authority,
  requestedModels: readonly string[] | null,
): string[] {
  const own = Object.keys(creator.permissions.models);
  const base = requestedModels ?? own;
  return creator.models === null
    ? [...base]
    : base.filter((m) => creator.models!.includes(m));
}

/**
 * Checks that the creator holds now what a credential with these scopes and models would
 * allow (spec 2 part 5.1, MCR-005). A model-bound scope must be held on every requested
 * model, or on at least one model when the credential is not limited to some models.
 */
export function checkGrantHeld(
  creatorAuthority: Authority,
  requestedScopes: readonly Scope[],
  requestedModels: readonly string[] | null,
): GrantCheck {
  const notHeld: NotHeld[] = [];
  const perms = creatorAuthority.permissions;
  const candidates = reachableModels(creatorAuthority, requestedModels);
  for (const scope of new Set(requestedScopes)) {
    const rule = SCOPE_RULES[scope];
    if (!scopeHeld(creatorAuthority.scopes, scope)) {
      notHeld.push({ scope, missing: [`scope ${scope}`] });
      continue;
    }
    if (rule.modelBound && requestedModels !== null) {
      for (const model of requestedModels) {
        const missing = candidates.includes(model)
          ? unmetOn(perms, rule.grant, model)
          : [`model ${model}`];
        if (missing.length > 0) notHeld.push({ scope, model, missing });
      }
      continue;
    }
    const missing = rule.modelBound
      ? siteWideModelBound(perms, rule.grant, candidates)
      : siteWide(perms, rule.grant, candidates);
    if (missing.length > 0) notHeld.push({ scope, missing });
  }
  return notHeld.length === 0
    ? { ok: true }
    : { ok: false, code: "grant_not_held", not_held: notHeld };
}

function withinCeiling(
  ceiling: Authority,
  model: string,
  action: ModelAction,
): boolean {
  if (ceiling.scopes !== null) {
    if (model === ALL_MODELS) return false;
    if (ceiling.models !== null && !ceiling.models.includes(model)) {
      return false;
    }
    if (!ACTION_SCOPES[action].some((s) => scopeHeld(ceiling.scopes, s))) {
      return false;
    }
  }
  const held = modelActionsOn(ceiling.permissions, model);
  return held.has(action) ||
    (action === "read:own" && held.has("read")) ||
    (action === "update:own" && held.has("update"));
}

function isSubset(
  inner: ReadonlySet<string> | null,
  outer: ReadonlySet<string> | null,
): boolean {
  if (outer === null) return true;
  return inner !== null && [...inner].every((key) => outer.has(key));
}

function fieldExcess(
  ceiling: Permissions,
  requested: Permissions,
  granted: string[],
): string[] {
  const models = new Set(granted);
  if (models.has(ALL_MODELS)) {
    for (const key of Object.keys(requested.fields ?? {})) models.add(key);
    for (const key of Object.keys(ceiling.fields ?? {})) models.add(key);
  }
  const exceeds: string[] = [];
  for (const model of models) {
    const want = resolveFieldLimit(requested, model);
    const have = resolveFieldLimit(ceiling, model);
    if (!isSubset(want.read, have.read)) exceeds.push(`fields.${model}.read`);
    if (!isSubset(want.write, have.write)) {
      exceeds.push(`fields.${model}.write`);
    }
  }
  return exceeds;
}

function languageExcess(
  ceiling: Permissions,
  requested: Permissions,
): string[] {
  const actions = new Set<LanguageAction>();
  for (const list of Object.values(requested.models)) {
    for (const action of list) actions.add(languageActionOf(action));
  }
  const exceeds: string[] = [];
  for (const action of actions) {
    const have = allowedLanguagesOf(ceiling, action);
    const want = allowedLanguagesOf(requested, action);
    if (!isSubset(want && new Set(want), have && new Set(have))) {
      exceeds.push(`languages.${action}`);
    }
  }
  return exceeds;
}

/**
 * Checks that a role permission document stays within the ceiling's authority (spec 2
 * part 4.3, SET-013): every model and system permission held, no wider field or language
 * limits. For a credential the ceiling is its narrowed permissions: only its models, only
 * what its scopes allow, and a model wildcard (`*`) is never within it.
 */
export function checkRoleEscalation(
  ceilingAuthority: Authority,
  permissions: Permissions,
): EscalationCheck {
  const exceeds: string[] = [];
  const granted: string[] = [];
  for (const [model, actions] of Object.entries(permissions.models)) {
    if (actions.length === 0) continue;
    granted.push(model);
    for (const action of actions) {
      if (!withinCeiling(ceilingAuthority, model, action)) {
        exceeds.push(`models.${model}.${action}`);
      }
    }
  }
  for (const permission of permissions.system) {
    const scopeOk = ceilingAuthority.scopes === null ||
      ACTION_SCOPES[permission].some((s) =>
        scopeHeld(ceilingAuthority.scopes, s)
      );
    if (!scopeOk || !holdsSystem(ceilingAuthority.permissions, permission)) {
      exceeds.push(`system.${permission}`);
    }
  }
  exceeds.push(
    ...fieldExcess(ceilingAuthority.permissions, permissions, granted),
  );
  if (granted.length > 0) {
    exceeds.push(...languageExcess(ceilingAuthority.permissions, permissions));
  }
  return exceeds.length === 0
    ? { ok: true }
    : { ok: false, code: "escalation_refused", exceeds };
}
