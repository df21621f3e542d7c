// Contract of the entry routes: list, create, read, update, versions, dependents, publish, unpublish, languages.
import { z } from "zod";
import { languageCode } from "./languages.ts";
import type { ErrorCode } from "./errors.ts";
import { operation } from "./operation.ts";

/** An entry (translation group), version or person id. */
export const entryId = z.uuid();

/**
 * A model named in a query or body: its id, or its api key (`posts`), which the API resolves
 * to the id before the handler runs (core/manage/model_keys.ts). An api key no model has is
 * `404 not_found`; anything else (a typo with spaces, a number) is refused with
 * `invalid_request` naming the parameter, never read as a model that holds nothing.
 */
export const modelRef = z.union([
  z.uuid(),
  z.string().regex(/^(?:[a-z][a-z0-9-]{0,63}|shared_section)$/),
], {
  error:
    'Expected a model id or api key (e.g. "posts"); GET /models lists both',
}).meta({
  "x-model-ref": true,
  description:
    'A model id, or its api key (e.g. "posts"), as GET /models answers them',
});

/** `{id}` of `/entries/{id}/...`. */
export const entryParams = z.strictObject({ id: entryId });

/** Field values by key; keys the reader cannot read are left out. */
export const fieldValues = z.custom<Record<string, unknown>>(
  (value) =>
    typeof value === "object" && value !== null && !Array.isArray(value),
  "expected an object of field values",
  // Not z.record: it silently drops a `__proto__` key, which must reach the model's
  // validation and be refused `unknown_field` like any other unknown key.
).meta({ type: "object", additionalProperties: {} }).describe(
  "Field values by key; fields the credential's creator cannot read are left out",
);

/** The state of an entry or one of its languages. */
export const entryState = z.enum(["draft", "published", "trashed"]);

/** One language of an entry, as a write answers it. */
export const localeFacts = z.strictObject({
  entry_id: z.uuid().describe("The language instance"),
  slug: z.string(),
  state: entryState,
  current_version_id: z.uuid().nullable(),
  published_version_id: z.uuid().nullable(),
  published_at: z.string().nullable().describe("ISO time, null when not live"),
});

/** What every entry write answers: the group's pins after the command. */
export const entryWritten = z.strictObject({
  id: z.uuid().describe("The entry (translation group)"),
  model_id: z.string(),
  state: entryState,
  revision: z.int().min(0).describe(
    "Workflow revision (pin of publish, unpublish, moves)",
  ),
  current_version_id: z.uuid().nullable(),
  published_version_id: z.uuid().nullable(),
  locales: z.record(z.string(), localeFacts).describe(
    "By language, in the site's order",
  ),
});

/** One plugin policy's word on a write that went through (spec 2 part 2.5, PEXT-022). */
export const policyResult = z.strictObject({
  installation_id: z.uuid(),
  plugin_name: z.string(),
  policy_id: z.string(),
  policy_label: z.string(),
  locale: z.string().nullable().describe(
    "The language checked; null for a command on the whole entry",
  ),
  message: z.string().nullable(),
  fields: z.array(z.string()).describe("Field keys the message is about"),
  outcome: z.enum(["warning", "transformed", "unavailable"]).describe(
    "`transformed`: the policy replaced values (read the entry back); `unavailable`: an advisory policy gave no answer (see `failure`)",
  ),
  failure: z.string().optional().describe(
    "Why an advisory policy gave no answer: plugin_timeout, plugin_unreachable, plugin_response_invalid, plugin_unavailable or plugin_policy_budget_exhausted",
  ),
});

/** Plugin policy results of a write (spec 2 part 2.5); empty when no policy applies or all allowed. */
export const policyResults = z.array(policyResult).describe(
  "What plugin policies said of this write: warnings, transforms and advisory policies that did not answer. Do not send the write again because of a warning: it is saved.",
);

/** Refusals of a write that plugin policies judge (spec 2 part 7); nothing is written. */
export const POLICY_ERRORS: ErrorCode[] = [
  "plugin_policy_refused",
  "plugin_policy_transform_invalid",
  "plugin_policy_transform_conflict",
  "plugin_policy_budget_exhausted",
  "plugin_policy_unavailable",
];

/** Where the draft stands in review. */
export const reviewStage = z.enum([
  "draft",
  "in_review",
  "changes_requested",
  "approved",
]);

/** A workflow move the reader may take now. */
export const transition = z.union([
  z.strictObject({
    kind: z.enum(["publish", "unpublish", "trash", "restore"]),
    to: entryState,
  }),
  z.strictObject({
    kind: z.enum(["submit", "approve", "request_changes", "withdraw"]),
    to: reviewStage,
  }),
]);

/** The workflow block of a read (spec 1 part 2.8): only transitions the creator may take now. */
export const workflowBlock = z.strictObject({
  revision: z.int().min(0),
  current_version_id: z.uuid().nullable(),
  published_version_id: z.uuid().nullable(),
  transitions: z.array(transition),
  locales: z.record(
    z.string(),
    z.strictObject({
      current_version_id: z.uuid().nullable(),
      published_version_id: z.uuid().nullable(),
      transitions: z.array(transition),
    }),
  ),
});

/** An entry as lists answer it: pins and each language's current values. */
export const entrySummary = z.strictObject({
  ...entryWritten.shape,
  locales: z.record(
    z.string(),
    z.strictObject({ ...localeFacts.shape, fields: fieldValues }),
  ),
  created_at: z.string(),
  updated_at: z.string(),
  trashed_at: z.string().nullable(),
});

/** An entry as `GET /entries/{id}` answers it. */
export const entryRead = z.strictObject({
  ...entrySummary.shape,
  review_stage: reviewStage,
  assignee_id: z.uuid().nullable().describe("Who acts next, if named"),
  workflow: workflowBlock,
});

/** The page of a paged list: send `next_cursor` back as `cursor` with the same other query values. */
export const listPage = z.strictObject({
  limit: z.int(),
  has_more: z.boolean(),
  next_cursor: z.string().nullable(),
});

/** `limit` (1 to 100, default 25) and `cursor` of a paged list. */
export const pageQuery = {
  limit: z.coerce.number().int().min(1).max(100).default(25),
  cursor: z.string().min(1).max(512).optional(),
};

/** One version without its values. */
export const versionSummary = z.strictObject({
  id: z.uuid(),
  number: z.int().min(1).describe("Counts across the whole entry"),
  locale: z.string(),
  entry_id: z.uuid(),
  created_at: z.string(),
  created_by: z.looseObject({ kind: z.string() }).describe("Actor snapshot"),
  current: z.boolean().describe("The language's current version"),
  published: z.boolean().describe("The language's published version"),
});

const SAVE_ERRORS: ErrorCode[] = [
  "not_found",
  "unknown_locale",
  "locale_denied",
  "field_denied",
  "version_conflict",
  "transition_unavailable",
  "field_validation_failed",
  "slug_taken",
  // A page's new address the service keeps for its own routes (ENT-031).
  "slug_reserved",
  "unique_value_taken",
  "relation_target_taken",
  "relation_target_not_found",
  "relation_duplicate_target",
  "relation_position_not_ordered",
  "audit_unavailable",
];

const slug = z.string().regex(
  /^[a-z0-9]+(?:-[a-z0-9]+)*$/,
  "expected a slug such as my-first-post",
).max(200);

/** `GET /entries?model_id=`. */
export const listEntries = operation({
  name: "list-entries",
  description:
    "`model_id` is a model's id or its api key (`posts`), both as `GET /models` answers them; an id or api key of no model of this site is `404 not_found`. Each entry shows every language's current values; fields the credential's creator cannot read are left out. Page with `limit` and `cursor`.",
  method: "GET",
  path: "/entries",
  summary:
    "List a model's entries outside Trash, newest first, one page at a time",
  tag: "entries",
  scope: "content:read",
  key: null,
  status: 200,
  query: z.strictObject({ model_id: modelRef, ...pageQuery }),
  answer: z.strictObject({ data: z.array(entrySummary), page: listPage }),
  errors: ["not_found"],
});

/** `POST /entries`. */
export const createEntry = operation({
  name: "create-entry",
  description:
    "The entry starts as a draft in one language. Publish it with `POST /entries/{id}/publish`, pinned to the `current_version_id` this answers.",
  method: "POST",
  path: "/entries",
  summary: "Create an entry with its first language as a draft version",
  tag: "entries",
  scope: "content:write",
  key: { retention: "short", settle: "rerun" },
  status: 201,
  body: z.strictObject({
    model_id: modelRef,
    locale: languageCode,
    slug,
    fields: fieldValues,
  }),
  answer: entryWritten,
  errors: [...SAVE_ERRORS, "single_entry_exists"],
});

/** `GET /entries/{id}`. */
export const getEntry = operation({
  name: "get-entry",
  description:
    "The `workflow` block lists only the transitions the credential may take now, with the pins (`revision`, version ids) each one needs.",
  method: "GET",
  path: "/entries/{id}",
  summary:
    "Read an entry: every language's current values, pins, review stage and workflow block",
  tag: "entries",
  scope: "content:read",
  key: null,
  status: 200,
  params: entryParams,
  answer: entryRead,
  errors: ["not_found"],
});

/** `PUT /entries/{id}`. */
export const updateEntry = operation({
  name: "update-entry",
  description:
    "Saves a new version of one language. `expected_current_version_id` must be the version the edit started from; otherwise `409 version_conflict` and nothing is saved.",
  method: "PUT",
  path: "/entries/{id}",
  summary:
    "Save a new draft version of one language, pinned to the version the edit started from",
  tag: "entries",
  scope: "content:write",
  key: { retention: "short", settle: "rerun" },
  status: 200,
  params: entryParams,
  body: z.strictObject({
    locale: languageCode,
    expected_current_version_id: entryId,
    fields: fieldValues.describe(
      "The language's values; fields left out are cleared, unreadable ones kept",
    ),
    slug: slug.optional(),
  }),
  answer: z.strictObject({
    ...entryWritten.shape,
    policy_results: policyResults,
  }),
  errors: [...SAVE_ERRORS, ...POLICY_ERRORS],
});

/** `GET /entries/{id}/versions`. */
export const listEntryVersions = operation({
  name: "list-entry-versions",
  description:
    "Versions count across the whole entry (every language); read one with `GET /entries/{id}/versions/{versionId}` to see its values.",
  method: "GET",
  path: "/entries/{id}/versions",
  summary: "List an entry's versions, newest first, without their values",
  tag: "entries",
  scope: "content:read",
  key: null,
  status: 200,
  params: entryParams,
  query: z.strictObject({ locale: languageCode.optional(), ...pageQuery }),
  answer: z.strictObject({ data: z.array(versionSummary), page: listPage }),
  errors: ["not_found"],
});

const versionParams = z.strictObject({ id: entryId, versionId: entryId });

/** `GET /entries/{id}/versions/{versionId}`. */
export const getEntryVersion = operation({
  name: "get-entry-version",
  description:
    "Fields the credential's creator cannot read are left out of `fields`.",
  method: "GET",
  path: "/entries/{id}/versions/{versionId}",
  summary: "Read one version with its values (unreadable fields left out)",
  tag: "entries",
  scope: "content:read",
  key: null,
  status: 200,
  params: versionParams,
  answer: z.strictObject({ ...versionSummary.shape, fields: fieldValues }),
  errors: ["not_found"],
});

/** `POST /entries/{id}/versions/{versionId}/restore`. */
export const restoreEntryVersion = operation({
  name: "restore-entry-version",
  description:
    "The old values become a new draft version; publication is unchanged until the entry is published again.",
  method: "POST",
  path: "/entries/{id}/versions/{versionId}/restore",
  summary:
    "Write an old version's values as a new draft version of its language",
  tag: "entries",
  scope: "content:write",
  key: { retention: "short", settle: "rerun" },
  status: 200,
  params: versionParams,
  body: z.strictObject({ expected_current_version_id: entryId.nullable() }),
  answer: z.strictObject({
    ...entryWritten.shape,
    policy_results: policyResults,
  }),
  errors: [...SAVE_ERRORS, ...POLICY_ERRORS],
});

/** `GET /entries/{id}/dependents`. */
export const listEntryDependents = operation({
  name: "list-entry-dependents",
  description:
    "Use it before trashing or unpublishing an entry to see what links to it.",
  method: "GET",
  path: "/entries/{id}/dependents",
  summary: "List the entries whose relation fields link to this one",
  tag: "entries",
  scope: "content:read",
  key: null,
  status: 200,
  params: entryParams,
  answer: z.strictObject({
    data: z.array(z.strictObject({
      id: z.uuid(),
      model_id: z.string(),
      trashed: z.boolean(),
      fields: z.array(
        z.strictObject({ key: z.string(), locale: z.string().nullable() }),
      ),
    })),
    hidden: z.int().min(0).describe(
      "Linking entries the credential cannot read, counted only",
    ),
  }),
  errors: ["not_found"],
});

const PIN_ERRORS: ErrorCode[] = [
  "not_found",
  "locale_denied",
  "workflow_conflict",
  "version_conflict",
  "transition_unavailable",
  "audit_unavailable",
];

/** The pin value that means "what is there when the request arrives" (publish only). */
export const CURRENT_PIN = "current";

/** `POST /entries/{id}/publish`. */
export const publishEntry = operation({
  name: "publish-entry",
  description:
    'Pinned to the workflow revision and to the version read, so a publish never ships an edit nobody reviewed. Without `locale`, every language with an unpublished change is published. A script that means "publish what is there now" sends `"current"` for a pin: the service reads it when the request arrives and publishes pinned to it, so a save or move that lands while the publish runs is still refused (`409 version_conflict` or `workflow_conflict`), and the answer names the version published.',
  method: "POST",
  path: "/entries/{id}/publish",
  summary:
    "Publish one language, or every language with an unpublished change, pinned to what was read",
  tag: "entries",
  scope: "lifecycle:publish",
  key: { retention: "long", settle: "rerun" },
  status: 200,
  params: entryParams,
  body: z.strictObject({
    locale: languageCode.optional(),
    expected_current_version_id: z.union([
      entryId,
      z.null(),
      z.literal(CURRENT_PIN),
    ]).describe(
      "The language's current version, or the entry's without locale; \"current\" for the one there when the request arrives",
    ),
    expected_workflow_revision: z.union([
      z.int().min(0),
      z.literal(CURRENT_PIN),
    ]).describe(
      'The workflow revision read; "current" for the one there when the request arrives',
    ),
  }),
  answer: z.strictObject({
    ...entryWritten.shape,
    policy_results: policyResults,
  }),
  errors: [
    ...PIN_ERRORS,
    "field_validation_failed",
    "page_address_required",
    "slug_taken",
    ...POLICY_ERRORS,
  ],
});

/** `POST /entries/{id}/unpublish`. */
export const unpublishEntry = operation({
  name: "unpublish-entry",
  description:
    "The published version is kept as a version; publish again to bring it back.",
  method: "POST",
  path: "/entries/{id}/unpublish",
  summary:
    "Take one language, or every language, out of publication, pinned to what was read",
  tag: "entries",
  scope: "lifecycle:publish",
  key: { retention: "long", settle: "rerun" },
  status: 200,
  params: entryParams,
  body: z.strictObject({
    locale: languageCode.optional(),
    expected_published_version_id: entryId.nullable().describe(
      "The language's published version, or the entry's newest without locale",
    ),
    expected_workflow_revision: z.int().min(0),
  }),
  answer: z.strictObject({
    ...entryWritten.shape,
    policy_results: policyResults,
  }),
  errors: [...PIN_ERRORS, ...POLICY_ERRORS],
});

/** `POST /entries/{id}/locales`. */
export const addEntryLocale = operation({
  name: "add-entry-locale",
  description:
    "The new language starts as a draft with its own slug and values.",
  method: "POST",
  path: "/entries/{id}/locales",
  summary: "Add a language to an entry with its first draft version",
  tag: "entries",
  scope: "content:write",
  key: { retention: "short", settle: "prove" },
  status: 201,
  params: entryParams,
  body: z.strictObject({ locale: languageCode, slug, fields: fieldValues }),
  answer: z.strictObject({
    id: z.uuid(),
    model_id: z.string(),
    locale: z.string(),
    entry_id: z.uuid(),
    slug: z.string(),
    current_version_id: z.uuid(),
  }),
  errors: [...SAVE_ERRORS, "locale_exists"],
});

/** The operations of this file, in the docs' order. */
export const ENTRY_OPERATIONS = [
  listEntries,
  createEntry,
  getEntry,
  updateEntry,
  listEntryVersions,
  getEntryVersion,
  restoreEntryVersion,
  listEntryDependents,
  publishEntry,
  unpublishEntry,
  addEntryLocale,
] as const;
