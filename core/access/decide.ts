// The one answer to "may this actor do this to this item, in these languages, now", and read-side helpers.
// This module is browser compatible.
import type { Authority } from "./authority.ts";
import {
  allowedLanguagesOf,
  fieldRoot,
  fieldsOutside,
  holdsSystem,
  languagesOutside,
  meetsNeed,
  modelActionsOn,
  resolveFieldLimit,
} from "./limits.ts";
import {
  isModelAction,
  isSystemPermission,
  type LanguageAction,
  languageActionOf,
  type ModelAction,
  type SystemPermission,
} from "./permissions.ts";
import {
  type CommandId,
  type CommandRule,
  COMMANDS,
  isCommandId,
} from "./commands.ts";
import {
  ACTION_SCOPES,
  type Need,
  type Requirement,
  scopeHeld,
} from "./scopes.ts";

/** What the actor wants to do. */
export interface AccessRequest {
  /** A model permission, a system permission, or a management command id. */
  action: ModelAction | SystemPermission | CommandId;
  /** The content model acted on; required for model permissions and model-bound commands. */
  model?: string;
  /** The item's owner (creator) id, for `read:own` and `update:own`; null when it has none. */
  owner?: string | null;
  /** Every language the action touches; one outside the role refuses the whole action. */
  languages?: readonly string[];
  /** Field keys or paths written (`seo.meta_title`); reads never refuse a field. */
  fields?: readonly string[];
}

/** The answer of {@linkcode decide}. */
export type Decision =
  | { ok: true }
  /** `missing` lists each unmet need; alternatives are joined with " or ". */
  | { ok: false; code: "missing_permission"; missing: string[] }
  | { ok: false; code: "locale_denied"; languages: string[] }
  | { ok: false; code: "field_denied"; fields: string[] };

/** How much of a model's content an actor may read. */
export type ReadReach = "all" | "own" | "none";

const WRITING_ACTIONS: ReadonlySet<ModelAction> = new Set([
  "create",
  "update",
  "update:own",
  "restore",
]);

function meets(
  authority: Authority,
  need: Need,
  model: string | undefined,
  owner: string | null | undefined,
): boolean {
  const own = owner !== undefined && owner !== null &&
    owner === authority.personId;
  return meetsNeed(authority.permissions, need, { model, own });
}

function unmet(
  authority: Authority,
  requirement: Requirement,
  request: AccessRequest,
): string[] {
  return requirement
    .filter((group) =>
      !group.some((need) =>
        meets(authority, need, request.model, request.owner)
      )
    )
    .map((group) => group.join(" or "));
}

function requireModel(request: AccessRequest): string {
  if (request.model === undefined) {
    throw new Error(
      `Cannot decide "${request.action}": the request names no model`,
    );
  }
  return request.model;
}

function outsideModels(authority: Authority, model: string): boolean {
  return authority.models !== null && !authority.models.includes(model);
}

function checkLimits(
  authority: Authority,
  request: AccessRequest,
  language: LanguageAction | undefined,
  writes: boolean,
): Decision {
  if (language && request.languages) {
    const allowed = allowedLanguagesOf(authority.permissions, language);
    const denied = languagesOutside(allowed, request.languages);
    if (denied.length > 0) {
      return { ok: false, code: "locale_denied", languages: denied };
    }
  }
  if (writes && request.fields && request.model !== undefined) {
    const limit = resolveFieldLimit(authority.permissions, request.model);
    const denied = fieldsOutside(limit.write, request.fields);
    if (denied.length > 0) {
      return { ok: false, code: "field_denied", fields: denied };
    }
  }
  return { ok: true };
}

function decideCommand(
  authority: Authority,
  request: AccessRequest,
  rule: CommandRule,
): Decision {
  if (!scopeHeld(authority.scopes, rule.scope)) {
    return {
      ok: false,
      code: "missing_permission",
      missing: [`scope ${rule.scope}`],
    };
  }
  if (rule.model) {
    const model = requireModel(request);
    if (outsideModels(authority, model)) {
      return {
        ok: false,
        code: "missing_permission",
        missing: [`model ${model}`],
      };
    }
  }
  const missing = unmet(authority, rule.requires, request);
  if (missing.length > 0) {
    return { ok: false, code: "missing_permission", missing };
  }
  return checkLimits(authority, request, rule.language, rule.writes === true);
}

function scopeGate(
  authority: Authority,
  action: ModelAction | SystemPermission,
): Decision {
  // Scopes narrow credentials only: a person (scopes null) passes even a permission no scope
  // lists, such as site:deploy, and is then judged by their role alone.
  if (authority.scopes === null) return { ok: true };
  const scopes = ACTION_SCOPES[action];
  if (scopes.some((scope) => scopeHeld(authority.scopes, scope))) {
    return { ok: true };
  }
  const missing = scopes.length > 0
    ? `scope ${scopes.join(" or scope ")}`
    : `${action} (not available to management credentials)`;
  return { ok: false, code: "missing_permission", missing: [missing] };
}

/**
 * Decides whether the authority allows the request, now. Checks, in order: the
 * credential's scope (for a command, its scope; for a permission, a scope that allows
 * it), the credential's models, the permissions (`:own` compares `owner` with the acting
 * person, for a credential its creator), the touched languages (`locale_denied`) and the
 * written fields (`field_denied`). Pure: no I/O, no clock.
 */
export function decide(authority: Authority, request: AccessRequest): Decision {
  const { action } = request;
  if (isCommandId(action)) {
    return decideCommand(authority, request, COMMANDS[action]);
  }
  if (!isModelAction(action) && !isSystemPermission(action)) {
    throw new Error(`Cannot decide unknown action "${action}"`);
  }
  const gate = scopeGate(authority, action);
  if (!gate.ok) return gate;
  if (isSystemPermission(action)) {
    return holdsSystem(authority.permissions, action)
      ? { ok: true }
      : { ok: false, code: "missing_permission", missing: [action] };
  }
  const model = requireModel(request);
  if (outsideModels(authority, model)) {
    return {
      ok: false,
      code: "missing_permission",
      missing: [`model ${model}`],
    };
  }
  const missing = unmet(authority, [[action]], request);
  if (missing.length > 0) {
    return { ok: false, code: "missing_permission", missing };
  }
  return checkLimits(
    authority,
    request,
    languageActionOf(action),
    WRITING_ACTIONS.has(action),
  );
}

/** Whether the authority reads every item of the model, only its own, or none. */
export function readReach(authority: Authority, model: string): ReadReach {
  if (outsideModels(authority, model)) return "none";
  const held = modelActionsOn(authority.permissions, model);
  if (held.has("read")) return "all";
  return held.has("read:own") ? "own" : "none";
}

/** The given field keys the authority may read on the model; callers leave the rest out. */
export function readableFields(
  authority: Authority,
  model: string,
  keys: readonly string[],
): string[] {
  const { read } = resolveFieldLimit(authority.permissions, model);
  return read ? keys.filter((key) => read.has(fieldRoot(key))) : [...keys];
}

/** The given field keys the authority may write on the model. */
export function writableFields(
  authority: Authority,
  model: string,
  keys: readonly string[],
): string[] {
  const { write } = resolveFieldLimit(authority.permissions, model);
  return write ? keys.filter((key) => write.has(fieldRoot(key))) : [...keys];
}

/** The languages the authority may use for an action; null means every language. */
export function allowedLanguages(
  authority: Authority,
  action: LanguageAction,
): readonly string[] | null {
  return allowedLanguagesOf(authority.permissions, action);
}
