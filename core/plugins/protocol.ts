// This module is browser compatible.
// Plugin protocol v1 as data: outcome codes with HTTP status and retry flag, capabilities, installation states, limits.
import { z } from "zod";

/** The protocol version carried in the path prefix `/api/plugin/v1`. */
export const PROTOCOL_VERSION = 1;

/** The HTTP status and `retry` flag of one outcome code. */
export interface OutcomeRule {
  status: number;
  retry: boolean;
}

/**
 * Every outcome code of spec 1 part 7 with its HTTP status and `retry` flag, plus the
 * service-side remote-fault codes (OUT-025) and the refused-destination code of the
 * guarded outbound fetch. Statuses the spec leaves "not shown" are chosen here and
 * documented in docs/plugins.md ("Outcomes table").
 */
export const OUTCOMES = {
  // Success: the command's effect exists.
  transition_applied: { status: 200, retry: false },
  idempotent_replay: { status: 200, retry: false },
  release_applied: { status: 200, retry: false },
  // Request faults.
  invalid_request: { status: 400, retry: false },
  url_not_https: { status: 400, retry: false },
  url_destination_refused: { status: 400, retry: false },
  plugin_unauthorized: { status: 401, retry: false },
  capability_refused: { status: 403, retry: false },
  requester_unauthorized: { status: 403, retry: false },
  model_not_granted: { status: 403, retry: false },
  content_not_found: { status: 404, retry: false },
  // State conflicts: the caller (or a person) must decide again.
  scheduled_target_stale: { status: 409, retry: false },
  workflow_conflict: { status: 409, retry: false },
  transition_unavailable: { status: 409, retry: false },
  dependent_content: { status: 409, retry: false },
  idempotency_key_reused: { status: 409, retry: false },
  version_conflict: { status: 409, retry: false },
  draft_conflict: { status: 409, retry: false },
  execution_in_progress: { status: 409, retry: false },
  retry_exhausted: { status: 409, retry: false },
  already_in_release: { status: 409, retry: false },
  release_changed: { status: 409, retry: false },
  manifest_identity_changed: { status: 409, retry: false },
  // Rule refusals: the request is well formed but the rules refuse it.
  transition_refused: { status: 422, retry: false },
  locale_unavailable: { status: 422, retry: false },
  release_full: { status: 422, retry: false },
  release_time_required: { status: 422, retry: false },
  release_time_ambiguous: { status: 422, retry: false },
  future_requires_publish: { status: 422, retry: false },
  rich_block_unregistered: { status: 422, retry: false },
  rich_block_version_unknown: { status: 422, retry: false },
  rich_block_values_invalid: { status: 422, retry: false },
  token_unreadable: { status: 422, retry: false },
  // Retryable: the only two codes a client may send again on its own.
  rate_limited: { status: 429, retry: true },
  temporary_failure: { status: 503, retry: true },
  // Faults of a call the service made to a plugin.
  activation_refused: { status: 502, retry: false },
  remote_redirect_refused: { status: 502, retry: false },
  plugin_unreachable: { status: 502, retry: false },
  plugin_response_invalid: { status: 502, retry: false },
  plugin_timeout: { status: 504, retry: false },
} as const satisfies Record<string, OutcomeRule>;

/** One outcome code of the table. */
export type OutcomeCode = keyof typeof OUTCOMES;

/** Every outcome code, in table order. */
export const OUTCOME_CODES = Object.keys(OUTCOMES) as OutcomeCode[];

/** The outcome of spec 1 part 2.6: clients act on `code` and the HTTP status, never on `message`. */
export interface Outcome {
  code: OutcomeCode;
  message: string;
  retry: boolean;
}

/** The envelope every plugin API answer that carries an outcome has. */
export interface OutcomeBody {
  outcome: Outcome;
}

/** True when `code` is in the outcomes table. */
export function isOutcomeCode(code: unknown): code is OutcomeCode {
  return typeof code === "string" && Object.hasOwn(OUTCOMES, code);
}

/** The HTTP status the service answers with for `code`. */
export function outcomeStatus(code: OutcomeCode): number {
  return OUTCOMES[code].status;
}

/** The `retry` flag of `code`. */
export function outcomeRetry(code: OutcomeCode): boolean {
  return OUTCOMES[code].retry;
}

/** The body `{ outcome: { code, message, retry } }` with the table's retry flag. */
export function outcomeBody(code: OutcomeCode, message: string): OutcomeBody {
  return { outcome: { code, message, retry: OUTCOMES[code].retry } };
}

/** A `Response` with the outcome body and its status (`Retry-After` in whole seconds when given). */
export function outcomeResponse(
  code: OutcomeCode,
  message: string,
  options: { retryAfterSeconds?: number } = {},
): Response {
  const headers = new Headers({ "content-type": "application/json" });
  if (options.retryAfterSeconds !== undefined) {
    headers.set(
      "retry-after",
      String(Math.max(0, Math.ceil(options.retryAfterSeconds))),
    );
  }
  return new Response(JSON.stringify(outcomeBody(code, message)), {
    status: outcomeStatus(code),
    headers,
  });
}

/** The closed outcome envelope; `code` is any string here so clients can tell "unknown code" from "malformed". */
export const outcomeEnvelopeSchema = z.strictObject({
  outcome: z.strictObject({
    code: z.string().min(1).max(64),
    message: z.string().max(2000),
    retry: z.boolean(),
  }),
});

/** Capabilities a plugin may request and an administrator may grant (spec 1 part 2.1). */
export const CAPABILITIES = [
  "content:read",
  "content:write",
  "content:create",
  "content:delete",
  "content:propose",
  "draft:write",
  "workflow:read",
  "workflow:publish",
  "workflow:unpublish",
  "workflow:locale",
  "workflow:release",
  "media:read",
  "media:write",
  "media:update",
  "media:source",
] as const;

/** One grantable capability. */
export type Capability = typeof CAPABILITIES[number];

/**
 * The lifecycle notifications Stave sends to `<base_url>svc/events` (the spec names no kinds;
 * these are Stave's). A manifest's `events` lists the ones the plugin wants.
 */
export const NOTIFICATION_EVENTS = [
  "content.changed",
  "media.changed",
  "model.changed",
] as const;

/** One lifecycle notification kind. */
export type NotificationEvent = typeof NOTIFICATION_EVENTS[number];

/**
 * What an operation's `requires` may name: the capabilities, plus `site:plugins`, which
 * is not granted to the plugin but demanded of the person invoking a site operation.
 */
export const OPERATION_REQUIREMENTS = [
  ...CAPABILITIES,
  "site:plugins",
] as const;

/** One entry of an operation's `requires`. */
export type OperationRequirement = typeof OPERATION_REQUIREMENTS[number];

/**
 * Installation states (spec 1 part 3.1). `enable` moves `disabled` back to `active`
 * (the token hash was kept while disabled); `revoked` is terminal.
 */
export const INSTALLATION_STATES = [
  "pending",
  "active",
  "disabled",
  "revoked",
] as const;

/** One installation state. */
export type InstallationState = typeof INSTALLATION_STATES[number];

/** The limits of spec 1 part 8 (sizes in bytes, times in milliseconds). */
export const LIMITS = {
  plugin_api_rate: { requests: 120, window_ms: 60_000 },
  token_random_chars: 43,
  previous_token_overlap_ms: 600_000,
  launch_code_ms: 60_000,
  activation_code_ms: 900_000,
  handoff: { max_bytes: 32_768, timeout_ms: 5_000 },
  invocation: { max_bytes: 65_536, timeout_ms: 10_000 },
  media_download: { timeout_ms: 20_000 },
  catalogues: {
    max_catalogues: 4,
    max_pages: 5,
    max_page_bytes: 131_072,
    max_entries_per_page: 100,
    max_entries: 200,
  },
  rich_block_groups: { max_depth: 3, max_items: 50 },
  scheduler: {
    max_due_per_tick: 20,
    max_attempts: 5,
    max_lateness_ms: 900_000,
    lease_ms: 60_000,
    max_retry_after_ms: 300_000,
  },
  release: { max_items: 25, name_min: 1, name_max: 80 },
  admin_secret_min_chars: 16,
} as const;
