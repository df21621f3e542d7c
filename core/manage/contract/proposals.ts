// Contract of deciding proposals: apply and dismiss entry proposals and model proposals.
import { z } from "zod";
import { entryId, entryWritten } from "./entries.ts";
import { proposal } from "./entries_more.ts";
import type { ErrorCode } from "./errors.ts";
import { modelProposal, modelWriteAnswer } from "./models.ts";
import { operation } from "./operation.ts";

const entryProposalParams = z.strictObject({
  id: entryId.describe("The entry (translation group) the proposal is on"),
  proposalId: z.uuid(),
});

const modelProposalParams = z.strictObject({ id: z.uuid() });

const DECIDE_ERRORS: ErrorCode[] = [
  "not_found",
  "forbidden",
  "locale_denied",
  "proposal_not_open",
  "audit_unavailable",
];

/** `POST /entries/{id}/proposals/{proposalId}/apply`. */
export const applyEntryProposal = operation({
  name: "apply-entry-proposal",
  description:
    "Saved like an edit pinned to the proposal's base version, so a proposal overtaken by a later edit is refused like any stale save.",
  method: "POST",
  path: "/entries/{id}/proposals/{proposalId}/apply",
  summary:
    "Apply an open proposal: an ordinary save of its language pinned to the proposal's base version",
  tag: "proposals",
  scope: "content:write",
  key: { retention: "short", settle: "rerun" },
  status: 200,
  params: entryProposalParams,
  answer: z.strictObject({
    proposal: proposal.describe("The proposal, now applied"),
    entry: entryWritten.describe("The entry's pins after the save"),
  }),
  errors: [
    ...DECIDE_ERRORS,
    "proposal_stale",
    "field_denied",
    "field_validation_failed",
    "unique_value_taken",
    "transition_unavailable",
  ],
});

/** `POST /entries/{id}/proposals/{proposalId}/dismiss`. */
export const dismissEntryProposal = operation({
  name: "dismiss-entry-proposal",
  description: "The proposal stays listed as dismissed.",
  method: "POST",
  path: "/entries/{id}/proposals/{proposalId}/dismiss",
  summary: "Dismiss an open proposal; the entry is unchanged",
  tag: "proposals",
  scope: "content:write",
  key: { retention: "short", settle: "rerun" },
  status: 200,
  params: entryProposalParams,
  answer: z.strictObject({
    proposal: proposal.describe("The proposal, now dismissed"),
  }),
  errors: DECIDE_ERRORS,
});

/** `POST /models/proposals/{id}/apply`. */
export const applyModelProposal = operation({
  name: "apply-model-proposal",
  description:
    "Applied like a direct model save by the credential's creator, with the same checks.",
  method: "POST",
  path: "/models/proposals/{id}/apply",
  summary:
    "Apply an open model proposal as an ordinary model save (create, or update at the model's revision)",
  tag: "models",
  scope: "schema:write",
  key: { retention: "short", settle: "rerun" },
  status: 200,
  params: modelProposalParams,
  answer: z.strictObject({
    proposal: modelProposal.describe("The proposal, now applied"),
    model: modelWriteAnswer.describe(
      "The model write, as PUT /models/{id}/definition or POST /models answer it",
    ),
  }),
  errors: [
    "not_found",
    "forbidden",
    "proposal_not_open",
    "schema_proposal_stale",
    "model_change_blocked",
    "private_field_on_public_route",
    "model_slug_taken",
    "model_name_collision",
    "duplicate_field_key",
    "component_nesting_too_deep",
    "unique_unsupported",
    "invalid_field_config",
    "invalid_field_validation",
    "invalid_visibility",
    "field_not_found",
    "invalid_reference",
  ],
});

/** `POST /models/proposals/{id}/dismiss`. */
export const dismissModelProposal = operation({
  name: "dismiss-model-proposal",
  description: "The proposal stays listed as dismissed.",
  method: "POST",
  path: "/models/proposals/{id}/dismiss",
  summary: "Dismiss an open model proposal, stale or not; no model changes",
  tag: "models",
  scope: "schema:propose",
  key: { retention: "short", settle: "rerun" },
  status: 200,
  params: modelProposalParams,
  answer: z.strictObject({
    proposal: modelProposal.describe("The proposal, now dismissed"),
  }),
  errors: ["not_found", "forbidden", "proposal_not_open"],
});

/** The operations of this file, in the docs' order. */
export const PROPOSAL_OPERATIONS = [
  applyEntryProposal,
  dismissEntryProposal,
  applyModelProposal,
  dismissModelProposal,
] as const;
