// Service refusals in words a person reads next to the control that caused them.

const MESSAGES: Record<string, string> = {
  not_found: "This entry no longer exists or you cannot read it",
  version_conflict:
    "Someone saved this entry after you opened it: compare the two versions below and choose",
  workflow_conflict:
    "The entry changed after you opened it (published, moved or trashed elsewhere): reload it and try again",
  transition_unavailable: "This step is not possible in the entry's state now",
  field_validation_failed:
    "Some fields need attention: see the messages beside them",
  locale_denied: "Your role may not do this in this language",
  field_denied: "Your role may not change some of these fields",
  missing_permission: "Your role does not allow this",
  unknown_locale: "The site has no such language",
  slug_taken:
    "Another entry of this model already uses this slug in this language",
  single_entry_exists: "This model holds a single entry, and it already exists",
  unique_value_taken:
    "Another entry already holds this value, which must be unique",
  relation_target_taken: "Another entry already holds one of the chosen items",
  relation_target_not_found:
    "Some chosen items are missing, in Trash, or not readable by you",
  relation_duplicate_target: "An item is chosen twice",
  relation_position_not_ordered: "This relation keeps no order",
  assignee_not_eligible: "That person may not work on this model",
  proposal_stale:
    "The entry changed after the proposal was made: it can only be dismissed now",
  proposal_not_open: "The proposal was already applied or dismissed",
  audit_unavailable:
    "The change could not be recorded: nothing was written; try again",
  temporary_failure: "The service is busy: nothing was written; try again",
  site_access_denied: "You no longer have access to this site",
  draft_conflict:
    "Your working draft changed in another tab: reload to continue",
  draft_held: "Someone else holds the working draft of this language",
};

/** The refusal in words; unknown codes are shown as they are so nothing is hidden. */
export function refusalMessage(code: string): string {
  return MESSAGES[code] ?? `Refused: ${code}`;
}
