// Contract of the model routes: read, create, change, file and remove models, and propose model changes.
import { z } from "zod";
import { FIELD_TYPES } from "../../models/field_types.ts";
import { operation } from "./operation.ts";

const id = z.uuid();
const isoTime = z.string().describe("ISO 8601 time");

/** The `model` part of a definition as answered (the builder accepts `settings` as JSON text too). */
export const modelInfo = z.strictObject({
  name: z.string(),
  slug: z.string(),
  description: z.string(),
  kind: z.enum(["collection", "single"]),
  isPublic: z.boolean(),
  enableI18n: z.boolean(),
  settings: z.strictObject({
    validation_mode: z.enum(["draft", "strict"]),
    unique_combinations: z.array(z.strictObject({
      name: z.string(),
      fields: z.array(z.string()),
      scope: z.enum(["model", "language"]),
    })),
  }),
});

/** A field as answered: `config`, `validation`, `derived` and `ui` are JSON text (MOD-003). */
export const wireField = z.strictObject({
  id: z.string().describe("Absent on fields a proposal adds"),
  key: z.string(),
  label: z.string(),
  type: z.enum(FIELD_TYPES),
  required: z.boolean(),
  unique: z.boolean(),
  private: z.boolean(),
  localized: z.boolean(),
  config: z.string().describe("JSON text"),
  validation: z.string().describe("JSON text"),
  derived: z.string().nullable().describe("JSON text or null"),
  ui: z.string().nullable().describe("JSON text or null"),
  visibility: z.unknown().describe("A condition term or group, or null"),
});

/** A definition as answered. */
export const wireDefinition = z.strictObject({
  model: modelInfo,
  fields: z.array(wireField),
});

/** A model: its whole definition, revision, `updated_at` and folder label (MOD-007). */
export const wireModel = z.strictObject({
  model_id: id,
  revision: z.int().min(1),
  updated_at: isoTime,
  folder: z.string().nullable(),
  definition: wireDefinition,
});

/**
 * A definition as sent: `{ model, fields }`. Checked whole by the model builder, which
 * answers every problem with its path (`fields[2].config`); objects inside are closed there.
 */
export const definitionInput = z.strictObject({
  model: z.looseObject({}).describe(
    "name, slug, description, kind, isPublic, enableI18n, settings (object or JSON text)",
  ),
  fields: z.array(z.looseObject({})).describe(
    "Ordered fields; config, validation, derived, ui as JSON text (objects accepted)",
  ),
});

/** One relation field of another model naming this model as a target. */
const relationDependent = z.strictObject({
  model_id: id,
  slug: z.string(),
  field: z.string().describe("Dotted key path of the relation field"),
});

/** After a rename or a delete: what refers to the model (MOD-013). */
const dependents = z.strictObject({
  complete: z.boolean().describe(
    "True when every dependent was settled or listed with this answer",
  ),
  relation_fields: z.array(relationDependent).describe(
    "Relation fields of other models that name this model; not changed",
  ),
});

/** The answer of a model write (MOD-013). */
export const modelWriteAnswer = z.strictObject({
  model_id: id,
  slug: z.string(),
  created_field_ids: z.array(z.string()).describe(
    "Ids given to the fields this write added, nested ones included, in order",
  ),
  renamed_from: z.string().nullable().describe(
    "The previous slug when this write renamed the model",
  ),
  changed: z.boolean().describe(
    "False when the definition sent was identical (revision unchanged)",
  ),
  model: wireModel.nullable().describe(
    "The model after the write; null after a remove",
  ),
  dependents: dependents.optional().describe(
    "Only after a rename or a remove",
  ),
});

/** One change existing content could not survive (`409 model_change_blocked`, proposals). */
export const modelChange = z.strictObject({
  kind: z.enum([
    "retained_key_reuse",
    "type_change",
    "localization_change",
    "relation_change",
    "required_missing",
    "unique_conflict",
    "single_entry_conflict",
  ]),
  field: z.string().nullable(),
  affected_count: z.int().min(0),
  message: z.string(),
  suggestion: z.string(),
});

const modelErrors = [
  "input_invalid",
  "duplicate_field_key",
  "component_nesting_too_deep",
  "unique_unsupported",
  "invalid_field_config",
  "invalid_field_validation",
  "invalid_visibility",
  "field_not_found",
  "invalid_reference",
  "model_slug_taken",
  "model_name_collision",
] as const;

const params = z.strictObject({ id });

/** A model proposal (spec 2 parts 2.3, 3). */
export const modelProposal = z.strictObject({
  id,
  mode: z.enum(["create", "update"]),
  model_id: id.nullable(),
  base_updated_at: isoTime.nullable(),
  definition: z.strictObject({
    model: modelInfo,
    fields: z.array(wireField.partial({ id: true })),
  }),
  note: z.string(),
  source: z.looseObject({
    kind: z.string(),
    id: z.string(),
    label: z.string(),
  }),
  state: z.enum(["open", "applied", "dismissed"]),
  stale: z.boolean().describe(
    "Open update proposal whose model changed after base_updated_at: only dismissal remains",
  ),
  revision: z.int().min(1),
  applied_model_id: id.nullable(),
  decided_by: z.looseObject({ kind: z.string() }).nullable(),
  decided_at: isoTime.nullable(),
  created_at: isoTime,
  updated_at: isoTime,
});

/** `GET /models/proposals`. Declared before `/models/{id}` so the static segment wins. */
export const listModelProposals = operation({
  name: "list-model-proposals",
  description:
    "Proposals come from scripts and agents holding `schema:propose`; a person with `model:apply` applies or dismisses them. A proposal whose base changed since it was made is marked stale.",
  method: "GET",
  path: "/models/proposals",
  summary: "List model proposals, oldest first, optionally by state",
  tag: "models",
  scope: "schema:propose",
  key: null,
  status: 200,
  query: z.strictObject({
    state: z.enum(["open", "applied", "dismissed"]).optional(),
  }),
  answer: z.strictObject({ data: z.array(modelProposal) }),
});

/** `POST /models/proposals`. */
export const createModelProposal = operation({
  name: "create-model-proposal",
  description:
    "Nothing changes until a person applies it. Changes that existing content would not survive are listed in the answer so the person can judge them.",
  method: "POST",
  path: "/models/proposals",
  summary:
    "Propose a new model or a model change for a person to apply; unsafe changes are listed, not refused",
  tag: "models",
  scope: "schema:propose",
  key: { retention: "short", settle: "rerun" },
  status: 201,
  body: z.strictObject({
    mode: z.enum(["create", "update"]),
    model_id: id.optional().describe("update only"),
    base_updated_at: isoTime.optional().describe(
      "update only: the model's updated_at as read",
    ),
    definition: definitionInput,
    note: z.string().optional().describe("At most 500 characters"),
  }),
  answer: modelProposal.extend({
    changes: z.array(modelChange).describe(
      "Changes existing content could not survive; applying refuses while they hold",
    ),
  }),
  // An update naming a model that does not exist (or this credential cannot see) is 404.
  errors: [...modelErrors, "model_changed", "not_found"],
});

/** `GET /models/proposals/{id}`. */
export const getModelProposal = operation({
  name: "get-model-proposal",
  description:
    "`stale` is true when the model changed after the proposal was made.",
  method: "GET",
  path: "/models/proposals/{id}",
  summary: "Read one model proposal with its state and stale flag",
  tag: "models",
  scope: "schema:propose",
  key: null,
  status: 200,
  params,
  answer: modelProposal,
});

/** `GET /models`. */
export const listModels = operation({
  name: "list-models",
  description:
    "Only the models the credential may read, with their whole definitions: use `model_id` from here in `GET /entries?model_id=` and `POST /entries`.",
  method: "GET",
  path: "/models",
  summary:
    "List the models the credential may read, by folder (unfiled last) then name",
  tag: "models",
  scope: "content:read",
  key: null,
  status: 200,
  answer: z.strictObject({ data: z.array(wireModel) }),
});

/** `GET /models/{id}`. */
export const getModel = operation({
  name: "get-model",
  description:
    "The definition lists every field with its id, type, settings and validation; `revision` pins later changes.",
  method: "GET",
  path: "/models/{id}",
  summary: "Read one model: its whole definition, revision and updated_at",
  tag: "models",
  scope: "content:read",
  key: null,
  status: 200,
  params,
  answer: wireModel,
});

/** `POST /models`. */
export const createModel = operation({
  name: "create-model",
  description:
    "Fields get their ids here; the answer lists them as `created_field_ids` in definition order.",
  method: "POST",
  path: "/models",
  summary: "Create a model from a definition that names no field ids",
  tag: "models",
  scope: "schema:write",
  key: { retention: "short", settle: "prove" },
  status: 201,
  body: z.strictObject({ definition: definitionInput }),
  answer: modelWriteAnswer,
  errors: modelErrors,
});

/** `PUT /models/{id}`. */
export const updateModel = operation({
  name: "update-model",
  description:
    "Send `expected_revision` from `GET /models/{id}`; a stale revision is `409 model_changed` and nothing is saved. Fields are left as they are.",
  method: "PUT",
  path: "/models/{id}",
  summary:
    "Change the model part (name, slug, settings...) at the revision read, keeping the fields",
  tag: "models",
  scope: "schema:write",
  key: {
    retention: "short",
    settle: "prove",
    // MAPI-014: proved from the audit entry written with the model. Dependents are
    // settled by the first answer only (MOD-013).
    omitOnReplay: ["dependents"],
  },
  status: 200,
  params,
  body: z.strictObject({
    expected_revision: z.int().min(1),
    model: z.looseObject({}).describe(
      "The whole model part: name, slug, description, kind, isPublic, enableI18n, settings",
    ),
  }),
  answer: modelWriteAnswer,
  errors: [
    ...modelErrors,
    "model_changed",
    "model_change_blocked",
    "private_field_on_public_route",
  ],
});

/** `PUT /models/{id}/folder`. */
export const setModelFolder = operation({
  name: "set-model-folder",
  description:
    "The folder only groups models in the admin navigation; it does not change the model's revision or its content.",
  method: "PUT",
  path: "/models/{id}/folder",
  summary:
    "File the model under a navigation folder label (1 to 40 characters after trimming) or null; the revision stays",
  tag: "models",
  scope: "schema:write",
  key: { retention: "short", settle: "prove" },
  status: 200,
  params,
  body: z.strictObject({ folder: z.string().nullable() }),
  answer: z.strictObject({
    model_id: id,
    slug: z.string(),
    folder: z.string().nullable(),
  }),
});

/** `PUT /models/{id}/definition`. */
export const replaceModelDefinition = operation({
  name: "replace-model-definition",
  description:
    "A field sent with its `id` is kept (and changed), one without an id is added, one left out is removed. A change unsafe for existing content is refused with `409 model_change_blocked` listing each change.",
  method: "PUT",
  path: "/models/{id}/definition",
  summary:
    "Replace the whole definition at the revision read: fields kept by id, added without one, removed when left out",
  tag: "models",
  scope: "schema:write",
  key: {
    retention: "short",
    settle: "prove",
    // MAPI-014: proved from the audit entry written with the model. Dependents are
    // settled by the first answer only (MOD-013).
    omitOnReplay: ["dependents"],
  },
  status: 200,
  params,
  body: z.strictObject({
    expected_revision: z.int().min(1),
    definition: definitionInput,
  }),
  answer: modelWriteAnswer,
  errors: [
    ...modelErrors,
    "model_changed",
    "model_change_blocked",
    "private_field_on_public_route",
  ],
});

/** `POST /models/{id}/remove`. */
export const removeModel = operation({
  name: "remove-model",
  description:
    "Only a model with no entries (entries in Trash count) and no saved queries can be removed; its backend access rules go with it. `confirm` must repeat the model id, so a script cannot remove the wrong model by accident.",
  method: "POST",
  path: "/models/{id}/remove",
  summary:
    "Remove a model holding no entries (Trash counts); confirm repeats the model id",
  tag: "models",
  scope: "schema:write",
  key: {
    retention: "short",
    settle: "prove",
    // MAPI-014: proved from the audit entry written with the model. Dependents are
    // settled by the first answer only (MOD-013).
    omitOnReplay: ["dependents"],
  },
  status: 200,
  params,
  body: z.strictObject({
    expected_revision: z.int().min(1),
    confirm: z.string().describe("The model id again"),
  }),
  answer: modelWriteAnswer,
  errors: [
    "model_changed",
    "model_not_empty",
    "stale_role_grant",
    "stale_token_scope",
    "model_has_bound_queries",
  ],
});

/** Every model operation, static paths before `{id}` ones. */
export const MODEL_OPERATIONS = [
  listModels,
  listModelProposals,
  createModelProposal,
  getModelProposal,
  getModel,
  createModel,
  updateModel,
  setModelFolder,
  replaceModelDefinition,
  removeModel,
] as const;
