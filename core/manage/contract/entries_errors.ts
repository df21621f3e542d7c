// Refusal codes of the /entries and /trash routes with their statuses (spec 2 part 7, spec 1 part 7).

/** The entry routes' own refusal codes; `ERROR_STATUS` spreads them in. */
export const ENTRY_ERROR_STATUS = {
  locale_denied: 403,
  field_denied: 403,
  forbidden: 403,
  version_conflict: 409,
  workflow_conflict: 409,
  transition_unavailable: 409,
  single_entry_exists: 409,
  unique_value_taken: 409,
  slug_taken: 409,
  slug_reserved: 409,
  page_address_required: 409,
  relation_target_taken: 409,
  draft_conflict: 409,
  draft_held: 409,
  field_validation_failed: 422,
  unknown_locale: 422,
  relation_target_not_found: 422,
  relation_duplicate_target: 422,
  relation_position_not_ordered: 422,
  assignee_not_eligible: 422,
  proposal_field_unsupported: 422,
  audit_unavailable: 503,
  // Plugin policies (spec 2 part 7).
  plugin_policy_refused: 422,
  plugin_policy_transform_invalid: 422,
  plugin_policy_transform_conflict: 422,
  plugin_policy_budget_exhausted: 429,
  plugin_policy_unavailable: 503,
} as const;
