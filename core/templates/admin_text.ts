// This module is browser compatible.
// How the admin names template and release refusals: the code stays visible, with a plain reason.

const REASONS: Record<string, string> = {
  template_operation_unavailable: "Settings this needs are not set",
  invalid_template_manifest: "The manifest does not read",
  template_source_refused: "A source rule refused the files",
  template_checks_failed: "The candidate did not pass every check",
  template_build_unavailable: "The build service could not be reached",
  template_contract_outdated:
    "Built against another page contract: upload it again to rebuild",
  stale_document: "Another template was accepted since this page was loaded",
  section_pins_stranded:
    "Pages pin registered section versions this candidate no longer includes",
  candidate_unreadable: "The stored files no longer match",
  platform_template_unavailable: "The built-in template is not available",
  preview_payload_too_large: "The page's lists are larger than a preview takes",
  preview_failed: "The candidate could not draw this preview",
  invalid_host: "Expected a host name such as www.example.com",
  address_unchanged: "The site already serves this host",
  address_change_retained:
    "Remove the previous address before changing it again",
  no_accepted_template: "Accept a template first",
  installation_id_changed:
    "The installation id changed since the first release",
  release_not_found: "No such release",
  release_not_proven: "Only a proven release can take the address",
  active_release_changed:
    "The active release changed since this page was loaded",
  no_previous_address: "There is no previous address",
  address_rollback_expired: "Going back was possible for seven days only",
  published_pages_pin_missing_sections:
    "Published pages pin registered sections this release does not draw",
  search_page_address_taken:
    "Published pages use the search page's address while site search is on: give them another address",
  renderer_capability_exceeded:
    "The active template does not draw a registered section this page uses",
  deploy_service_failed: "The deploy service refused or did not answer",
  not_found: "Not found",
};

/** `code: reason` plus any details worth showing (missing settings, rule, deadline). */
export function refusalText(given: { code: string }): string {
  const refusal = given as { code: string } & Record<string, unknown>;
  const parts = [`${refusal.code}: ${REASONS[refusal.code] ?? "refused"}`];
  if (Array.isArray(refusal.missing)) {
    parts.push(`missing ${refusal.missing.join(", ")}`);
  }
  if (typeof refusal.rule === "string") {
    parts.push(
      `${refusal.rule}${
        Array.isArray(refusal.paths) && refusal.paths.length > 0
          ? ` (${refusal.paths.join(", ")})`
          : ""
      }`,
    );
  }
  if (Array.isArray(refusal.issues)) {
    parts.push(
      (refusal.issues as { path: string; message: string }[]).map((i) =>
        `${i.path}: ${i.message}`
      ).join("; "),
    );
  }
  if (Array.isArray(refusal.pins)) {
    parts.push(
      (refusal.pins as { key: string; version: number }[]).map((p) =>
        `${p.key} version ${p.version}`
      ).join(", "),
    );
  }
  if (
    typeof refusal.rule !== "string" && Array.isArray(refusal.paths) &&
    refusal.paths.length > 0
  ) parts.push(refusal.paths.join(", "));
  if (typeof refusal.deadline === "string") {
    parts.push(`deadline ${refusal.deadline}`);
  }
  if (typeof refusal.detail === "string") parts.push(refusal.detail);
  if (typeof refusal.reason === "string") parts.push(refusal.reason);
  return parts.join(" — ");
}
