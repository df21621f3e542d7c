// Contract of the entry workflow routes: moves, assignment, Trash, relations, proposals and working drafts.
import { z } from "zod";
import {
  entryId,
  entryParams,
  entrySummary,
  entryWritten,
  fieldValues,
  listPage,
  modelRef,
  pageQuery,
  POLICY_ERRORS,
  policyResults,
} from "./entries.ts";
import type { ErrorCode } from "./errors.ts";
import { languageCode } from "./languages.ts";
import { operation } from "./operation.ts";

const MOVE_ERRORS: ErrorCode[] = [
  "not_found",
  "locale_denied",
  "workflow_conflict",
  "transition_unavailable",
  "audit_unavailable",
];

/** `POST /entries/{id}/transition`. */
export const transitionEntry = operation({
  name: "transition-entry",
  description:
    "Pinned to the workflow revision read; the workflow block of `GET /entries/{id}` lists the moves the credential may take now.",
  method: "POST",
  path: "/entries/{id}/transition",
  summary:
    "Move the entry's draft through review: submit, approve, request_changes or withdraw",
  tag: "entries",
  scope: "workflow:move",
  key: { retention: "long", settle: "rerun" },
  status: 200,
  params: entryParams,
  body: z.strictObject({
    move: z.enum(["submit", "approve", "request_changes", "withdraw"]),
    expected_workflow_revision: z.int().min(0),
  }),
  answer: z.strictObject({
    ...entryWritten.shape,
    review_stage: z.enum([
      "draft",
      "in_review",
      "changes_requested",
      "approved",
    ]),
    policy_results: policyResults,
  }),
  errors: [...MOVE_ERRORS, ...POLICY_ERRORS],
});

const person = z.strictObject({
  user_id: z.uuid(),
  email: z.string(),
  display_name: z.string(),
});

/** `GET /entries/{id}/assignees`. */
export const listEntryAssignees = operation({
  name: "list-entry-assignees",
  description: "Only people who may act on the entry are candidates.",
  method: "GET",
  path: "/entries/{id}/assignees",
  summary:
    "List who may be named to act next on the entry, and who is named now",
  tag: "entries",
  scope: "workflow:assign",
  key: null,
  status: 200,
  params: entryParams,
  answer: z.strictObject({
    data: z.array(person),
    assignee_id: z.uuid().nullable(),
  }),
  errors: ["not_found"],
});

/** `PUT /entries/{id}/assignment`. */
export const putEntryAssignment = operation({
  name: "put-entry-assignment",
  description:
    "The assignee must be one of `GET /entries/{id}/assignees`; `null` clears the assignment.",
  method: "PUT",
  path: "/entries/{id}/assignment",
  summary: "Name who acts next on the entry (null clears it)",
  tag: "entries",
  scope: "workflow:assign",
  key: { retention: "short", settle: "prove" },
  status: 200,
  params: entryParams,
  body: z.strictObject({ assignee_id: entryId.nullable() }),
  answer: z.strictObject({
    id: z.uuid(),
    model_id: z.string(),
    assignee_id: z.uuid().nullable(),
  }),
  errors: ["not_found", "assignee_not_eligible", "audit_unavailable"],
});

/** `GET /trash?model_id=`. */
export const listTrash = operation({
  name: "list-trash",
  description:
    "`model_id` is a model id, as for `GET /entries`. Entries in Trash keep their versions and publication pointers until purged.",
  method: "GET",
  path: "/trash",
  summary:
    "List a model's entries in Trash, most recently trashed first, one page at a time",
  tag: "trash",
  scope: "content:read",
  key: null,
  status: 200,
  query: z.strictObject({ model_id: modelRef, ...pageQuery }),
  answer: z.strictObject({ data: z.array(entrySummary), page: listPage }),
  errors: ["not_found"],
});

/** `GET /entries/{id}/trash`. */
export const getEntryTrash = operation({
  name: "get-entry-trash",
  description:
    "Answers whether the entry is in Trash and which of trash, restore and purge the credential may take now.",
  method: "GET",
  path: "/entries/{id}/trash",
  summary:
    "Read an entry's Trash state and the Trash commands the credential may take now",
  tag: "trash",
  scope: "content:read",
  key: null,
  status: 200,
  params: entryParams,
  answer: z.strictObject({
    id: z.uuid(),
    model_id: z.string(),
    trashed: z.boolean(),
    trashed_at: z.string().nullable(),
    revision: z.int().min(0),
    actions: z.array(z.enum(["trash", "restore", "purge"])),
  }),
  errors: ["not_found"],
});

const trashBody = z.strictObject({
  expected_workflow_revision: z.int().min(0).optional().describe(
    "When given, a different revision is 409 workflow_conflict",
  ),
});

const trashAnswer = z.strictObject({
  id: z.uuid(),
  model_id: z.string(),
  trashed: z.boolean(),
  revision: z.int().min(0),
  policy_results: policyResults,
});

/** `POST /entries/{id}/trash`. */
export const trashEntry = operation({
  name: "trash-entry",
  description:
    "The entry comes back unchanged with `POST /entries/{id}/trash/restore`; purge deletes it for good.",
  method: "POST",
  path: "/entries/{id}/trash",
  summary:
    "Move the whole entry to Trash; its publication pointers are kept for a restore",
  tag: "trash",
  scope: "content:trash",
  key: { retention: "short", settle: "prove" },
  status: 200,
  params: entryParams,
  body: trashBody,
  answer: trashAnswer,
  errors: [...MOVE_ERRORS, ...POLICY_ERRORS],
});

/** `POST /entries/{id}/trash/restore`. */
export const restoreTrashedEntry = operation({
  name: "restore-trashed-entry",
  description:
    "Publication pointers kept at trashing are restored with the entry.",
  method: "POST",
  path: "/entries/{id}/trash/restore",
  summary: "Bring the entry back from Trash exactly as it was",
  tag: "trash",
  scope: "content:trash",
  key: { retention: "short", settle: "prove" },
  status: 200,
  params: entryParams,
  body: trashBody,
  answer: trashAnswer,
  errors: [...MOVE_ERRORS, ...POLICY_ERRORS],
});

/** `POST /entries/{id}/trash/purge`. */
export const purgeEntry = operation({
  name: "purge-entry",
  description: "Cannot be undone. Only entries already in Trash can be purged.",
  method: "POST",
  path: "/entries/{id}/trash/purge",
  summary:
    "Delete an entry in Trash for good: languages, versions, links and claims",
  tag: "trash",
  scope: "content:purge",
  key: { retention: "short", settle: "prove" },
  status: 200,
  params: entryParams,
  body: trashBody,
  answer: z.strictObject({
    id: z.uuid(),
    model_id: z.string(),
    purged: z.strictObject({
      languages: z.array(z.string()),
      versions: z.int().min(0),
      links: z.int().min(0),
    }),
  }),
  errors: MOVE_ERRORS,
});

/**
 * One target of a relation write form, checked by the relation service (which names the
 * refused ids); the schema says only what a target is, for readers and tool clients.
 */
const relationTarget = z.unknown().meta({
  anyOf: [
    { type: "string", format: "uuid" },
    {
      type: "object",
      properties: {
        id: { type: "string", format: "uuid" },
        model: {
          type: "string",
          description: "The target's model id, on a field of several models",
        },
        position: {
          anyOf: [
            { type: "string", enum: ["start", "end"] },
            {
              type: "object",
              description: "{ before: <entry id> } or { after: <entry id> }",
            },
          ],
        },
      },
      required: ["id"],
    },
  ],
  description:
    "An entry id (a connect adds it at the end), or { id, model?, position } to place it",
});

/** `POST /entries/relate`. */
export const relateEntries = operation({
  name: "relate-entries",
  description:
    "Changes one relation field through a write form (see the request schema) without resending the entry's other values.",
  method: "POST",
  path: "/entries/relate",
  summary:
    "Change one relation field of an entry's language with a write form, saved as a new version",
  tag: "entries",
  scope: "content:write",
  key: { retention: "short", settle: "rerun" },
  status: 200,
  body: z.strictObject({
    id: entryId.describe("The entry whose relation field changes"),
    locale: languageCode,
    field: z.string().min(1).max(200),
    expected_current_version_id: entryId,
    set: z.array(relationTarget).optional(),
    connect: z.array(relationTarget).optional(),
    disconnect: z.array(relationTarget).optional(),
    move: z.array(relationTarget).optional(),
  }),
  answer: entryWritten,
  errors: [
    "not_found",
    "field_not_found",
    "locale_denied",
    "field_denied",
    "version_conflict",
    "transition_unavailable",
    "field_validation_failed",
    "relation_target_taken",
    "relation_target_not_found",
    "relation_duplicate_target",
    "relation_position_not_ordered",
    "audit_unavailable",
  ],
});

/** `GET /entries/{id}/related-from`. */
export const listEntryRelatedFrom = operation({
  name: "list-entry-related-from",
  description:
    "The reverse side of relation fields: which entries of which model link here, and through which field and language.",
  method: "GET",
  path: "/entries/{id}/related-from",
  summary:
    "List the entries linking to this one, by source model, field and language",
  tag: "entries",
  scope: "content:read",
  key: null,
  status: 200,
  params: entryParams,
  answer: z.strictObject({
    data: z.array(z.strictObject({
      model_id: z.string(),
      field: z.string(),
      locale: z.string().nullable(),
      ids: z.array(z.uuid()),
    })),
    hidden: z.int().min(0),
  }),
  errors: ["not_found"],
});

/** An entry proposal (spec 2 part 2.2), as reads and decisions answer it. */
export const proposal = z.strictObject({
  id: z.uuid(),
  group_id: z.uuid(),
  entry_id: z.uuid(),
  model_id: z.string(),
  locale: z.string(),
  base_version_id: z.uuid(),
  fields: fieldValues,
  original_fields: fieldValues.nullable(),
  note: z.string(),
  source: z.looseObject({
    kind: z.string(),
    id: z.string(),
    label: z.string(),
  }),
  state: z.enum(["open", "applied", "dismissed"]),
  revision: z.int().min(1),
  applied_version_id: z.uuid().nullable(),
  decided_by: z.looseObject({ kind: z.string() }).nullable(),
  decided_at: z.string().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
});

/** `POST /entries/{id}/proposals`. */
export const createEntryProposal = operation({
  name: "create-entry-proposal",
  description:
    "Nothing changes until a person applies the proposal; it is pinned to the version it was made from.",
  method: "POST",
  path: "/entries/{id}/proposals",
  summary:
    "Propose field values for a person to apply, pinned to the version read",
  tag: "proposals",
  scope: "content:propose",
  key: { retention: "short", settle: "rerun" },
  status: 201,
  params: entryParams,
  body: z.strictObject({
    base_version_id: entryId,
    fields: fieldValues,
    note: z.string().optional(),
  }),
  answer: proposal,
  errors: [
    "not_found",
    "field_not_found",
    "proposal_field_unsupported",
    "field_denied",
    "locale_denied",
    "version_conflict",
  ],
});

/** `GET /entries/{id}/proposals`. */
export const listEntryProposals = operation({
  name: "list-entry-proposals",
  description: "Open, applied and dismissed proposals of the entry.",
  method: "GET",
  path: "/entries/{id}/proposals",
  summary: "List an entry's proposals, oldest first",
  tag: "proposals",
  scope: "content:read",
  key: null,
  status: 200,
  params: entryParams,
  query: z.strictObject({
    state: z.enum(["open", "applied", "dismissed"]).optional(),
    locale: languageCode.optional(),
  }),
  answer: z.strictObject({ data: z.array(proposal) }),
  errors: ["not_found"],
});

const holder = z.strictObject({ person_id: z.uuid(), email: z.string() });
const draft = z.strictObject({
  group_id: z.uuid(),
  locale: z.string(),
  holder,
  fields: fieldValues,
  base_version_id: z.uuid().nullable(),
  revision: z.int().min(1),
  taken_over_from: holder.nullable(),
  taken_over_at: z.string().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
});
const DRAFT_ERRORS: ErrorCode[] = [
  "not_found",
  "unknown_locale",
  "locale_denied",
  "draft_conflict",
  "draft_held",
];

/** `GET /entries/{id}/editing?locale=&kind=` (ENT-017). */
export const getEntryEditing = operation({
  name: "get-entry-editing",
  description:
    "A working draft is one person's unsaved edit of one language; others see who holds one.",
  method: "GET",
  path: "/entries/{id}/editing",
  summary:
    "Read the creator's working draft of one language, and who else holds one",
  tag: "editing",
  scope: "content:read",
  key: null,
  status: 200,
  params: entryParams,
  query: z.strictObject({
    locale: languageCode,
    kind: z.enum(["draft", "holder"]).optional().describe(
      "draft (default): the creator's own working draft and who else holds one; holder: only who holds the language's draft (the creator included), never values",
    ),
  }),
  answer: z.strictObject({
    id: z.uuid(),
    locale: z.string(),
    kind: z.enum(["draft", "holder"]),
    draft: draft.nullable(),
    held_by: holder.nullable(),
  }),
  errors: ["not_found", "unknown_locale", "locale_denied"],
});

/** `PUT /entries/{id}/editing/draft` (no Idempotency-Key: spec 2 part 4.1 item 3). */
export const putEntryDraft = operation({
  name: "put-entry-draft",
  description:
    "Working drafts need no `Idempotency-Key`: each write replaces the draft at the revision read, and a stale revision is `409 draft_conflict`.",
  method: "PUT",
  path: "/entries/{id}/editing/draft",
  summary:
    "Write the creator's working draft of one language, pinned to its revision (null: none yet)",
  tag: "editing",
  scope: "content:write",
  key: null,
  status: 200,
  params: entryParams,
  body: z.strictObject({
    locale: languageCode,
    fields: fieldValues,
    base_version_id: entryId.nullable(),
    expected_revision: z.int().min(1).nullable(),
  }),
  answer: z.strictObject({ draft }),
  errors: DRAFT_ERRORS,
});

const draftCommand = z.strictObject({
  locale: languageCode,
  expected_revision: z.int().min(1).optional(),
});

/** `POST /entries/{id}/editing/takeover` (no Idempotency-Key). */
export const takeOverEntryDraft = operation({
  name: "take-over-entry-draft",
  description: "The values are kept; the previous holder is recorded.",
  method: "POST",
  path: "/entries/{id}/editing/takeover",
  summary:
    "Take over another person's working draft of one language, values kept",
  tag: "editing",
  scope: "content:write",
  key: null,
  status: 200,
  params: entryParams,
  body: draftCommand,
  answer: z.strictObject({ draft }),
  errors: DRAFT_ERRORS,
});

/** `POST /entries/{id}/editing/draft/discard` (no Idempotency-Key). */
export const discardEntryDraft = operation({
  name: "discard-entry-draft",
  description:
    "Only the credential creator's own draft; the saved versions are unchanged.",
  method: "POST",
  path: "/entries/{id}/editing/draft/discard",
  summary: "Discard the creator's own working draft of one language",
  tag: "editing",
  scope: "content:write",
  key: null,
  status: 200,
  params: entryParams,
  body: draftCommand,
  answer: z.strictObject({ discarded: z.boolean() }),
  errors: DRAFT_ERRORS,
});

/** Writes that take no `Idempotency-Key` (spec 2 part 4.1 item 3: plugin launches, the redirect review and the routes under /editing). */
export const KEYLESS_WRITES: ReadonlySet<string> = new Set([
  // The redirect review stores nothing (spec 2 part 4.1 item 3).
  "review-seo-redirects",
  putEntryDraft.name,
  takeOverEntryDraft.name,
  discardEntryDraft.name,
  // Plugin launches (spec 2 part 4.1 item 3, LAU-029): each call mints a new one-time link.
  "launch-plugin-manage-view",
  "launch-plugin-content-action",
]);

/** The operations of this file, in the docs' order. */
export const ENTRY_MORE_OPERATIONS = [
  transitionEntry,
  listEntryAssignees,
  putEntryAssignment,
  listTrash,
  getEntryTrash,
  trashEntry,
  restoreTrashedEntry,
  purgeEntry,
  relateEntries,
  listEntryRelatedFrom,
  createEntryProposal,
  listEntryProposals,
  getEntryEditing,
  putEntryDraft,
  takeOverEntryDraft,
  discardEntryDraft,
] as const;
