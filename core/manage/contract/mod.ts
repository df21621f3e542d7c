// The Management API v1 contract: every operation, declared once. Routes, OpenAPI and client types come from it.
import { addLanguage, listLanguages } from "./languages.ts";
import { getSettings, putSettings, reviewSeoRedirects } from "./settings.ts";
import { getSite } from "./site.ts";
import { MODEL_OPERATIONS } from "./models.ts";
import { ROLE_OPERATIONS } from "./roles.ts";
import { MENU_OPERATIONS } from "./menus.ts";
import { ENTRY_MORE_OPERATIONS, ENTRY_OPERATIONS } from "./entries_ops.ts";
import { PROPOSAL_OPERATIONS } from "./proposals.ts";
import { RELATED_FROM_OPERATIONS } from "./related_from.ts";
import { MEDIA_OPERATIONS } from "./media.ts";
import { PAGE_OPERATIONS } from "./pages.ts";
import { COMMENT_OPERATIONS } from "./comments.ts";
import { PLUGIN_OPERATIONS } from "./plugins.ts";
import { DATA_OPERATIONS } from "./data.ts";
import { BACKEND_OPERATIONS_CONTRACT } from "./backend.ts";

export * from "./operation.ts";
export * from "./errors.ts";

/**
 * Contract version: `info.version` of `openapi-v1.json`. Spec 2 part 9: "Management API
 * additions use minor contract 1.12.0", so routes the spec asks for without listing them (the
 * backend access and saved-query routes, docs/backend-access.md) stay within 1.12.0 too.
 */
export const CONTRACT_VERSION = "1.12.0";

/** Base path of the Management API v1. */
export const BASE_PATH = "/api/manage/v1";

/** Every operation, in the order of the docs. Add a new one here (see docs/management-api.md). */
export const OPERATIONS = [
  getSite,
  listLanguages,
  addLanguage,
  getSettings,
  putSettings,
  reviewSeoRedirects,
  ...MODEL_OPERATIONS,
  ...ROLE_OPERATIONS,
  ...BACKEND_OPERATIONS_CONTRACT,
  ...ENTRY_OPERATIONS,
  ...ENTRY_MORE_OPERATIONS,
  ...RELATED_FROM_OPERATIONS,
  ...PROPOSAL_OPERATIONS,
  ...PAGE_OPERATIONS,
  ...MENU_OPERATIONS,
  ...MEDIA_OPERATIONS,
  ...COMMENT_OPERATIONS,
  ...PLUGIN_OPERATIONS,
  ...DATA_OPERATIONS,
] as const;

/** The union of declared operations. */
export type DeclaredOperation = typeof OPERATIONS[number];
/** The kebab-case name of a declared operation. */
export type OperationName = DeclaredOperation["name"];
