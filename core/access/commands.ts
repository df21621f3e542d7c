// Management commands as data: the scope each needs and what the acting role must hold for it.
// This module is browser compatible.
import type { LanguageAction } from "./permissions.ts";
import type { Requirement, Scope } from "./scopes.ts";

/** One management command: what it needs beyond its scope. */
export interface CommandRule {
  /** The scope a credential must hold for it. */
  scope: Scope;
  /** True when the command acts on one model's content (the request names the model). */
  model: boolean;
  /** Creator must hold (spec 2 part 5.1), plus the role permission of the action itself. */
  requires: Requirement;
  /** The language-limited action the touched languages are checked against. */
  language?: LanguageAction;
  /** True when the command writes field values (checked against writable fields). */
  writes?: boolean;
}

const read: Pick<CommandRule, "model" | "requires" | "language"> = {
  model: true,
  requires: [["read"]],
  language: "read",
};

/** Every management command by id. */
export const COMMANDS = {
  "site.read": { scope: "content:read", model: false, requires: [] },
  "media.read": { scope: "content:read", model: false, requires: [] },
  "entries.read": { scope: "content:read", ...read },
  "pages.read": { scope: "content:read", ...read },
  "entries.create": {
    scope: "content:write",
    model: true,
    requires: [["create"]],
    language: "create",
    writes: true,
  },
  "entries.update": {
    scope: "content:write",
    model: true,
    requires: [["update"]],
    language: "update",
    writes: true,
  },
  "entries.add_language": {
    scope: "content:write",
    model: true,
    requires: [["update"]],
    language: "create",
    writes: true,
  },
  "entries.restore_version": {
    scope: "content:write",
    model: true,
    requires: [["update"], ["restore"], ["content:restore"]],
    language: "restore",
    writes: true,
  },
  "entries.propose": { scope: "content:propose", ...read },
  "pages.save": {
    scope: "pages:write",
    model: true,
    requires: [["update"]],
    language: "update",
    writes: true,
  },
  "pages.add_translation": {
    scope: "pages:write",
    model: true,
    requires: [["update"]],
    language: "create",
    writes: true,
  },
  "media.upload": {
    scope: "media:write",
    model: false,
    requires: [["media:upload"]],
  },
  "media.update": {
    scope: "media:write",
    model: false,
    requires: [["media:update"]],
  },
  "media.delete": {
    scope: "media:write",
    model: false,
    requires: [["media:delete"]],
  },
  "entries.publish": {
    scope: "lifecycle:publish",
    model: true,
    requires: [["update"], ["publish"]],
    language: "publish",
  },
  "entries.unpublish": {
    scope: "lifecycle:publish",
    model: true,
    requires: [["update"], ["unpublish"]],
    language: "unpublish",
  },
  "entries.trash": {
    scope: "content:trash",
    model: true,
    requires: [["delete"]],
    language: "delete",
  },
  "entries.trash_restore": {
    scope: "content:trash",
    model: true,
    requires: [["delete"], ["restore"]],
    language: "restore",
  },
  "entries.purge": {
    scope: "content:purge",
    model: true,
    requires: [["delete"]],
    language: "delete",
  },
  "entries.transition": {
    scope: "workflow:move",
    model: true,
    requires: [["update"], ["review"]],
    language: "review",
  },
  // A step whose own permission is update (submit or withdraw a draft for review).
  "entries.transition_update": {
    scope: "workflow:move",
    model: true,
    requires: [["update"]],
    language: "update",
  },
  "entries.assign": {
    scope: "workflow:assign",
    model: true,
    requires: [["update"]],
    language: "update",
  },
  "comments.read": { scope: "content:read", ...read },
  "comments.moderate": {
    scope: "content:write",
    model: true,
    requires: [["review"]],
    language: "review",
  },
  "settings.write": {
    scope: "settings:write",
    model: false,
    requires: [["site:settings"]],
  },
  "settings.search": {
    scope: "settings:write",
    model: false,
    requires: [["site:infra"]],
  },
  "models.propose": {
    scope: "schema:propose",
    model: false,
    requires: [["model:apply"]],
  },
  "models.write": {
    scope: "schema:write",
    model: false,
    requires: [["model:apply"]],
  },
  "models.delete": {
    scope: "schema:write",
    model: false,
    requires: [["model:apply"], ["model:delete"]],
  },
  "data.import": {
    scope: "data:import",
    model: false,
    requires: [["data:import"]],
  },
  "data.export": {
    scope: "data:export",
    model: false,
    requires: [["data:export"]],
  },
  "roles.write": {
    scope: "roles:write",
    model: false,
    requires: [["role:manage"]],
  },
  "plugins.list": { scope: "plugins:use", model: false, requires: [] },
  "plugins.launch": { scope: "plugins:use", ...read },
  "plugins.entry_operation": { scope: "plugins:use", ...read },
  "plugins.entry_operation_destructive": {
    scope: "plugins:use",
    model: true,
    requires: [["update"]],
    language: "update",
  },
  "plugins.site_operation": {
    scope: "plugins:use",
    model: false,
    requires: [["site:plugins"]],
  },
} as const satisfies Record<string, CommandRule>;

/** One management command id, e.g. `entries.publish`. */
export type CommandId = keyof typeof COMMANDS;

/** True when `value` names a management command. */
export function isCommandId(value: string): value is CommandId {
  return Object.hasOwn(COMMANDS, value);
}
