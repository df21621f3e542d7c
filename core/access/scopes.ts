// Management credential scopes as data: what each allows and what the creator must hold (spec 2 part 5.1).
// This module is browser compatible.
import type { ModelAction, SystemPermission } from "./permissions.ts";

/** Every management scope. */
export const SCOPES = [
  "content:read",
  "content:write",
  "content:propose",
  "pages:write",
  "media:write",
  "lifecycle:publish",
  "content:trash",
  "content:purge",
  "workflow:move",
  "workflow:assign",
  "settings:write",
  "schema:propose",
  "schema:write",
  "data:import",
  "data:export",
  "roles:write",
  "plugins:use",
] as const;
/** One management scope. */
export type Scope = typeof SCOPES[number];

/** The scope every credential holds whether or not it was asked for. */
export const ALWAYS_INCLUDED_SCOPE: Scope = "content:read";

/**
 * True when a credential's scopes allow `scope`; `null` (a person or plugin) is never
 * limited by scopes, and `content:read` is always included.
 */
export function scopeHeld(
  scopes: readonly Scope[] | null,
  scope: Scope,
): boolean {
  return scopes === null || scope === ALWAYS_INCLUDED_SCOPE ||
    scopes.includes(scope);
}

/**
 * A permission a command needs. A model permission is needed on the command's model;
 * `read` is met by `read:own` and `update` by `update:own` on the actor's own items.
 */
export type Need = ModelAction | SystemPermission;

/** Requirement groups: every group must be met, a group by any one of its needs. */
export type Requirement = readonly (readonly Need[])[];

/** One row of the scope table. */
export interface ScopeRule {
  /** What the scope allows, as the spec words it. */
  allows: string;
  /** True when what the creator must hold is judged per model of the credential. */
  modelBound: boolean;
  /** What the creator must hold now to grant the scope (`grant_not_held` otherwise). */
  grant: Requirement;
}

/** The scope table of spec 2 part 5.1; a scope's commands are the `COMMANDS` naming it. */
export const SCOPE_RULES: Record<Scope, ScopeRule> = {
  "content:read": {
    allows:
      "read site, models, entries, versions, dependents, proposals, pages, media",
    modelBound: true,
    grant: [["read"]],
  },
  "content:write": {
    allows:
      "create and update drafts, add a language, restore a version, change linked items",
    modelBound: true,
    grant: [["create", "update"]],
  },
  "content:propose": {
    allows: "propose field changes",
    modelBound: true,
    grant: [["read"]],
  },
  "pages:write": {
    allows: "page editor save",
    modelBound: true,
    grant: [["update"]],
  },
  "media:write": {
    allows: "upload, edit metadata, delete unused, folders, move",
    modelBound: false,
    grant: [["media:upload", "media:update", "media:delete"]],
  },
  "lifecycle:publish": {
    allows: "publish and unpublish, no second human confirmation",
    modelBound: true,
    grant: [["update"], ["publish", "unpublish"]],
  },
  "content:trash": {
    allows: "trash and restore",
    modelBound: true,
    grant: [["delete"]],
  },
  "content:purge": {
    allows: "permanent delete of a Trash item",
    modelBound: true,
    grant: [["delete"]],
  },
  "workflow:move": {
    allows: "non-publishing workflow steps",
    modelBound: true,
    grant: [["update"]],
  },
  "workflow:assign": {
    allows: "name who acts next, list candidates",
    modelBound: true,
    grant: [["update"]],
  },
  "settings:write": {
    allows: "read and change settings",
    modelBound: false,
    grant: [["site:settings"]],
  },
  "schema:propose": {
    allows: "propose models and changes; list and read proposals",
    modelBound: false,
    grant: [["model:apply"]],
  },
  "schema:write": {
    allows: "create, change, replace and delete models",
    modelBound: false,
    grant: [["model:apply"]],
  },
  "data:import": {
    allows: "run imports end to end",
    modelBound: false,
    grant: [["data:import"]],
  },
  "data:export": {
    allows: "create, build and read exports in byte ranges",
    modelBound: false,
    grant: [["data:export"]],
  },
  "roles:write": {
    allows: "create, change, delete roles",
    modelBound: false,
    grant: [["role:manage"]],
  },
  "plugins:use": {
    allows: "list plugins, create launch links, run declared operations",
    modelBound: false,
    grant: [["read", "site:plugins"]],
  },
};

/**
 * The scopes under which a credential may exercise a role permission directly (a
 * permission no scope lists, such as `site:deploy`, is never reachable by a credential).
 */
export const ACTION_SCOPES: Record<ModelAction | SystemPermission, Scope[]> = {
  "read": ["content:read"],
  "read:own": ["content:read"],
  "create": ["content:write"],
  "update": ["content:write", "pages:write"],
  "update:own": ["content:write", "pages:write"],
  "delete": ["content:trash", "content:purge"],
  "restore": ["content:write", "content:trash"],
  "publish": ["lifecycle:publish"],
  "unpublish": ["lifecycle:publish"],
  "review": ["workflow:move"],
  "site:plugins": ["plugins:use"],
  "site:settings": ["settings:write"],
  "site:infra": ["settings:write"],
  "site:deploy": [],
  "model:apply": ["schema:propose", "schema:write"],
  "model:delete": ["schema:write"],
  "media:upload": ["media:write"],
  "media:update": ["media:write"],
  "media:delete": ["media:write"],
  "role:manage": ["roles:write"],
  "data:import": ["data:import"],
  "data:export": ["data:export"],
  "content:restore": ["content:write"],
  "ai:generate": [],
};
