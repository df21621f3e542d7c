// The Management API's refusal codes with their statuses, and the one error body (spec 2 part 7).
import { z } from "zod";
import { ENTRY_ERROR_STATUS } from "./entries_errors.ts";

/** Every refusal code a Management API route may answer, with its HTTP status. */
export const ERROR_STATUS = {
  ...ENTRY_ERROR_STATUS,
  invalid_request: 400,
  input_invalid: 400,
  // Site Chrome content for a region the active template does not declare (spec 3 4.8 rule 7).
  unknown_region: 400,
  unauthorized: 401,
  missing_permission: 403,
  creator_unauthorized: 403,
  not_found: 404,
  method_not_allowed: 405,
  idempotency_in_progress: 409,
  idempotency_key_reused: 409,
  locale_exists: 409,
  conflict: 409,
  payload_too_large: 413,
  unsupported_content_type: 415,
  rate_limited: 429,
  internal_error: 500,
  // Plugin launches and operations (spec 2 parts 4.3, 7).
  operation_unavailable: 404,
  installation_not_active: 409,
  plugin_unavailable: 409,
  invocation_in_progress: 409,
  // 403 on every launch door, as the plugin protocol's outcomes table says.
  model_not_granted: 403,
  plugin_refused: 422,
  plugin_unreachable: 502,
  plugin_response_invalid: 502,
  plugin_timeout: 504,
  media_source_unavailable: 404,
  media_source_mode_unsupported: 422,
  media_source_file_unreachable: 502,
  // Models and model proposals (spec 2 parts 4.3, 7; statuses not stated there are ours, see docs).
  duplicate_field_key: 400,
  component_nesting_too_deep: 400,
  unique_unsupported: 400,
  invalid_field_config: 400,
  invalid_field_validation: 400,
  invalid_visibility: 400,
  field_not_found: 400,
  invalid_reference: 400,
  model_changed: 409,
  model_change_blocked: 409,
  model_slug_taken: 409,
  model_name_collision: 409,
  model_not_empty: 409,
  stale_role_grant: 409,
  stale_token_scope: 409,
  model_has_bound_queries: 409,
  schema_proposal_stale: 409,
  // Deciding proposals and related-from writes (spec 2 parts 3, 7; docs/management-api.md).
  proposal_stale: 409,
  proposal_not_open: 409,
  relation_changed_concurrently: 409,
  // Roles (spec 2 parts 4.3, 7).
  invalid_permissions: 400,
  escalation_refused: 403,
  role_name_taken: 409,
  role_seeded: 409,
  role_in_use: 409,
  role_last_access_granter: 409,
  role_in_access_rule: 409,
  // Backend access and saved queries (spec 2 parts 2.3, 5.3; docs/backend-access.md).
  saved_query_slug_taken: 409,
  saved_query_invalid: 422,
  saved_query_limit: 422,
  private_field_on_public_route: 422,
  // Media (spec 2 parts 2.4, 4.3, 7; statuses the spec leaves open are ours, see docs/media.md).
  media_framing_not_image: 400,
  media_edit_source_not_found: 404,
  media_folder_not_found: 404,
  media_duplicate: 409,
  media_folder_changed: 409,
  media_folder_exists: 409,
  media_changed: 409,
  media_in_use: 409,
  media_external_bytes_unavailable: 409,
  media_too_large: 413,
  unsupported_media_type: 415,
  executable_file: 422,
  media_format_not_enabled: 422,
  media_kind_not_enabled: 422,
  media_folder_cycle: 422,
  media_folder_too_deep: 422,
  media_folder_limit: 422,
  media_usage_unreadable: 503,
  // Imports and exports (spec 2 parts 2.3, 4.2; docs/imports-exports.md).
  export_limited_role: 403,
  artifact_not_ready: 409,
  export_not_ready: 409,
  export_finished: 409,
  import_archive_closed: 409,
  import_archive_incomplete: 409,
  import_blocked: 409,
  import_finished: 409,
  import_part_out_of_order: 409,
  import_source_name_taken: 409,
  job_busy: 409,
  import_part_digest_mismatch: 422,
  import_part_invalid: 422,
  import_archive_parts_invalid: 422,
  import_archive_digest_mismatch: 422,
} as const;

/** One refusal code. */
export type ErrorCode = keyof typeof ERROR_STATUS;

/** Codes every route may answer. */
export const COMMON_ERRORS: readonly ErrorCode[] = [
  "invalid_request",
  "unauthorized",
  "missing_permission",
  "creator_unauthorized",
  "rate_limited",
];

/** Codes every route taking an `Idempotency-Key` may answer besides the common ones. */
export const KEY_ERRORS: readonly ErrorCode[] = [
  "idempotency_in_progress",
  "idempotency_key_reused",
];

/** The one error body: `{ error: { code, message, ...details } }`. */
export const errorBody = z.object({
  error: z.looseObject({
    code: z.string().describe("The refusal's name, e.g. missing_permission"),
    message: z.string().describe("A sentence for people; never parse it"),
  }),
}).describe(
  "Every refusal. Details beside code and message depend on the code (e.g. issues, missing, current_revision)",
);
