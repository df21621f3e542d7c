// The permission documents of the roles every site is seeded with.
// This module is browser compatible.
import {
  MODEL_ACTIONS,
  type Permissions,
  SYSTEM_PERMISSIONS,
} from "./permissions.ts";

/** Name of the seeded role holding everything. */
export const ADMINISTRATOR_ROLE = "Administrator";
/** Name of the seeded role for day-to-day content work. */
export const EDITOR_ROLE = "Editor";

/** Every model permission on every model and every system permission. */
export function administratorPermissions(): Permissions {
  return {
    models: { "*": [...MODEL_ACTIONS] },
    system: [...SYSTEM_PERMISSIONS],
  };
}

/**
 * Every content action on every model (read, write, trash, restore, review, publish)
 * plus the media library and version restore; no settings, models, roles, plugins,
 * infrastructure, deployment, imports or exports.
 */
export function editorPermissions(): Permissions {
  return {
    models: {
      "*": [
        "read",
        "create",
        "update",
        "delete",
        "restore",
        "review",
        "publish",
        "unpublish",
      ],
    },
    system: ["media:upload", "media:update", "media:delete", "content:restore"],
  };
}
