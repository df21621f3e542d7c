// The outcomes table of spec 1 part 7: every code present with its status and retry flag.
import { deepEqual, equal } from "node:assert/strict";
import {
  CAPABILITIES,
  INSTALLATION_STATES,
  isOutcomeCode,
  OUTCOME_CODES,
  outcomeBody,
  outcomeEnvelopeSchema,
  outcomeResponse,
  OUTCOMES,
  outcomeStatus,
} from "./protocol.ts";

const specCodes = [
  "transition_applied",
  "idempotent_replay",
  "invalid_request",
  "plugin_unauthorized",
  "capability_refused",
  "requester_unauthorized",
  "content_not_found",
  "model_not_granted",
  "scheduled_target_stale",
  "workflow_conflict",
  "transition_unavailable",
  "transition_refused",
  "dependent_content",
  "idempotency_key_reused",
  "version_conflict",
  "draft_conflict",
  "rate_limited",
  "temporary_failure",
  "locale_unavailable",
  "execution_in_progress",
  "retry_exhausted",
  "token_unreadable",
  "already_in_release",
  "release_full",
  "release_changed",
  "release_time_required",
  "release_time_ambiguous",
  "future_requires_publish",
  "release_applied",
  "manifest_identity_changed",
  "activation_refused",
  "url_not_https",
  "remote_redirect_refused",
  "rich_block_unregistered",
  "rich_block_version_unknown",
  "rich_block_values_invalid",
];

Deno.test("OUTCOMES holds every outcome code of spec 1 part 7 and the remote-fault codes (OUT-025, PAPI-038)", () => {
  for (const code of specCodes) equal(isOutcomeCode(code), true, code);
  for (
    const code of [
      "plugin_unreachable",
      "plugin_response_invalid",
      "plugin_timeout",
      "url_destination_refused",
    ]
  ) equal(isOutcomeCode(code), true, code);
  equal(isOutcomeCode("toString"), false);
  equal(isOutcomeCode("nope"), false);
  equal(OUTCOME_CODES.length, specCodes.length + 4);
});

Deno.test("OUTCOMES gives the stated statuses and retries only rate_limited and temporary_failure", () => {
  equal(outcomeStatus("plugin_unauthorized"), 401);
  equal(outcomeStatus("rate_limited"), 429);
  equal(outcomeStatus("temporary_failure"), 503);
  equal(outcomeStatus("plugin_timeout"), 504);
  equal(outcomeStatus("plugin_unreachable"), 502);
  equal(outcomeStatus("plugin_response_invalid"), 502);
  deepEqual(
    OUTCOME_CODES.filter((code) => OUTCOMES[code].retry),
    ["rate_limited", "temporary_failure"],
  );
  for (
    const code of [
      "transition_applied",
      "idempotent_replay",
      "release_applied",
    ] as const
  ) {
    equal(outcomeStatus(code), 200);
  }
});

Deno.test("outcomeBody() and outcomeResponse() carry the table's retry flag and status", async () => {
  deepEqual(outcomeBody("temporary_failure", "Try again"), {
    outcome: { code: "temporary_failure", message: "Try again", retry: true },
  });
  const res = outcomeResponse("rate_limited", "Slow down", {
    retryAfterSeconds: 2.2,
  });
  equal(res.status, 429);
  equal(res.headers.get("retry-after"), "3");
  const body = await res.json();
  equal(outcomeEnvelopeSchema.safeParse(body).success, true);
  equal(
    outcomeEnvelopeSchema.safeParse({ outcome: { ...body.outcome, extra: 1 } })
      .success,
    false,
  );
});

Deno.test("capabilities and installation states are the spec's names", () => {
  equal(CAPABILITIES.length, 15);
  deepEqual([...INSTALLATION_STATES], [
    "pending",
    "active",
    "disabled",
    "revoked",
  ]);
});

Deno.test("transitionCommandSchema pins by kind and is closed (spec 1 part 2.7)", async () => {
  const { transitionCommandSchema } = await import("./messages.ts");
  const v = "0190d6a4-1b2c-7d3e-8f40-123456789abc";
  const ok = (value: unknown) =>
    transitionCommandSchema.safeParse(value).success;
  const base = { expected_workflow_revision: 0, delegation_id: "d1" };
  equal(ok({ ...base, kind: "publish", expected_current_version_id: v }), true);
  equal(ok({ ...base, kind: "publish" }), false);
  equal(
    ok({ ...base, kind: "unpublish", expected_published_version_id: v }),
    true,
  );
  equal(
    ok({ ...base, kind: "unpublish", expected_current_version_id: v }),
    false,
  );
  equal(
    ok({ ...base, kind: "publish", expected_current_version_id: v, site: "x" }),
    false,
  );
  equal(
    ok({ ...base, kind: "publish", expected_current_version_id: "not-a-uuid" }),
    false,
  );
  equal(
    ok({
      ...base,
      kind: "publish",
      expected_current_version_id: v,
      expected_workflow_revision: -1,
    }),
    false,
  );
});
