// Handlers of the model routes: the models module's services with the real content facts, and model proposals.
import { readReach } from "../../access/decide.ts";
import {
  applyModelDefinition,
  type ApplyModelResult,
  createModel as createStoredModel,
  type DefinitionRefusal,
  type FieldDefinition,
  getModel as readModel,
  listModels as readModels,
  type ModelSaved,
  removeModel as removeStoredModel,
  setModelFolder as fileModel,
  type StoredModel,
  toWireModel,
  updateModelInfo,
  walkFields,
} from "../../models/mod.ts";
import type { Problem } from "../../models/problems.ts";
import {
  createModelProposal as proposeModel,
  getModelProposal as readModelProposal,
  listModelProposals as readModelProposals,
  type ModelProposal,
} from "../../proposals/mod.ts";
import { refuse } from "../../web/errors.ts";
import { entryContentFacts } from "../content_facts.ts";
import type { ErrorCode } from "../contract/errors.ts";
import * as contract from "../contract/models.ts";
import { reindexModel } from "../../search/index_documents.ts";
import { defineHandler, type ManageContext } from "../handler.ts";
import { requireAllowed } from "./require.ts";

function modelContext(ctx: ManageContext) {
  const { db, clock } = ctx.services;
  return { db, clock, siteId: ctx.site.id };
}

/** Search documents follow a model change in its own transaction (new or newly private fields). */
function reindexed(ctx: ManageContext) {
  return (db: typeof ctx.services.db, saved: { model_id: string }) =>
    reindexModel(db, ctx.site.id, saved.model_id);
}

function facts(ctx: ManageContext) {
  return (db: typeof ctx.services.db, model: StoredModel) =>
    entryContentFacts(db, ctx.site.id, model);
}

/** A model outside the credential's models is answered as absent, like a missing one. */
function requireReachable(ctx: ManageContext, modelId: string): void {
  const models = ctx.authority.models;
  if (models !== null && !models.includes(modelId.toLowerCase())) {
    refuse(404, "not_found", `No model "${modelId}" on this site`);
  }
}

function notFound(modelId: string): never {
  return refuse(404, "not_found", `No model "${modelId}" on this site`);
}

/** `invalid_request` issues for problems found inside the body, under `prefix`. */
function issuesOf(problems: readonly Problem[], prefix: string) {
  return problems.map((p) => ({
    path: p.path === "" ? prefix : `${prefix}.${p.path}`,
    message: p.message,
  }));
}

/**
 * A definition refusal: 400 with the model builder's code (MOD-017) and every problem; an
 * `invalid_request` also lists them as `issues` under `prefix` like any other bad body.
 */
function refuseDefinition(refusal: DefinitionRefusal, prefix: string): never {
  const first = refusal.problems[0];
  const message = first
    ? `Invalid ${prefix}${first.path ? `.${first.path}` : ""}: ${first.message}`
    : "The definition is not valid";
  const details: Record<string, unknown> = { problems: refusal.problems };
  if (refusal.code === "invalid_request") {
    details.issues = issuesOf(refusal.problems, prefix);
  }
  return refuse(400, refusal.code as ErrorCode, message, details);
}

/** Maps every refusal of a model save to its answer. */
function refuseSave(
  result: Exclude<ApplyModelResult, { ok: true }>,
  modelId: string,
  prefix: string,
): never {
  switch (result.code) {
    case "not_found":
      return notFound(modelId);
    case "model_changed":
      return refuse(
        409,
        "model_changed",
        `Model "${modelId}" changed: its revision is now ${result.current_revision}`,
        {
          current_revision: result.current_revision,
          current_updated_at: result.current_updated_at,
        },
      );
    case "model_change_blocked":
      return refuse(
        409,
        "model_change_blocked",
        `Existing content cannot survive this change: ${
          result.changes.map((c) => c.message).join("; ")
        }`,
        { changes: result.changes },
      );
    case "model_slug_taken":
      return refuse(
        409,
        "model_slug_taken",
        `Another model of the site has slug "${result.slug}"`,
        { slug: result.slug },
      );
    case "model_name_collision":
      return refuse(
        409,
        "model_name_collision",
        `Another model of the site is named "${result.name}" (ignoring case)`,
        { name: result.name },
      );
    default:
      return refuseDefinition(result, prefix);
  }
}

/** Relation fields of the site's other models that name `modelId` as a target. */
async function relationDependents(ctx: ManageContext, modelId: string) {
  const found: { model_id: string; slug: string; field: string }[] = [];
  for (const other of await readModels(modelContext(ctx))) {
    if (other.id === modelId) continue;
    walkFields(other.fields, (field, path) => {
      if (field.type === "relation" && field.config.targets.includes(modelId)) {
        found.push({ model_id: other.id, slug: other.slug, field: path });
      }
    });
  }
  return found;
}

/** The write answer (MOD-013); a rename carries `dependents`. */
async function writeAnswer(ctx: ManageContext, saved: ModelSaved) {
  return {
    model_id: saved.model_id,
    slug: saved.slug,
    created_field_ids: saved.created_field_ids,
    renamed_from: saved.renamed_from,
    changed: saved.changed,
    model: toWireModel(saved.model),
    ...(saved.renamed_from === null ? {} : {
      dependents: {
        complete: true,
        relation_fields: await relationDependents(ctx, saved.model_id),
      },
    }),
  };
}

/** `list-models`: every model the credential may read. */
export const listModels = defineHandler(contract.listModels, {
  async run(ctx) {
    requireAllowed(ctx, { action: "site.read" });
    const models = await readModels(modelContext(ctx));
    return {
      body: {
        data: models.filter((m) => readReach(ctx.authority, m.id) !== "none")
          .map(toWireModel),
      },
    };
  },
});

/** `get-model`: one model; one the credential may not read is not found. */
export const getModel = defineHandler(contract.getModel, {
  async run(ctx, { params }) {
    requireAllowed(ctx, { action: "site.read" });
    const found = await readModel(modelContext(ctx), params.id);
    if (!found.ok || readReach(ctx.authority, found.model.id) === "none") {
      notFound(params.id);
    }
    return { body: toWireModel(found.model) };
  },
});

/** `create-model`: a new model at revision 1. */
export const createModel = defineHandler(contract.createModel, {
  async run(ctx, { body }) {
    requireAllowed(ctx, { action: "models.write" });
    const result = await createStoredModel(modelContext(ctx), body.definition);
    if (!result.ok) refuseSave(result, "(new)", "body.definition");
    return { body: await writeAnswer(ctx, result) };
  },
});

/** `update-model`: the model part at the revision read, fields kept. */
export const updateModel = defineHandler(contract.updateModel, {
  async run(ctx, { params, body }) {
    requireAllowed(ctx, { action: "models.write" });
    requireReachable(ctx, params.id);
    const result = await updateModelInfo(
      modelContext(ctx),
      params.id,
      body.model,
      {
        baseRevision: body.expected_revision,
        facts: facts(ctx),
        onApplied: reindexed(ctx),
      },
    );
    // Problems of the model part are named from the body (`model.name` -> `body.model.name`).
    if (!result.ok) refuseSave(result, params.id, "body");
    return { body: await writeAnswer(ctx, result) };
  },
});

/** `set-model-folder`: display only, so neither revision nor updated_at moves. */
export const setModelFolder = defineHandler(contract.setModelFolder, {
  async run(ctx, { params, body }) {
    requireAllowed(ctx, { action: "models.write" });
    requireReachable(ctx, params.id);
    const result = await fileModel(modelContext(ctx), params.id, body.folder);
    if (!result.ok) {
      if (result.code === "not_found") notFound(params.id);
      refuse(400, "invalid_request", `Invalid body.folder: ${result.message}`, {
        issues: [{ path: "body.folder", message: result.message }],
      });
    }
    const { model_id, slug, folder } = result;
    return { body: { model_id, slug, folder } };
  },
});

/** `replace-model-definition`: the whole definition at the revision read. */
export const replaceModelDefinition = defineHandler(
  contract.replaceModelDefinition,
  {
    async run(ctx, { params, body }) {
      requireAllowed(ctx, { action: "models.write" });
      requireReachable(ctx, params.id);
      const result = await applyModelDefinition(
        modelContext(ctx),
        params.id,
        body.definition,
        {
          baseRevision: body.expected_revision,
          facts: facts(ctx),
          onApplied: reindexed(ctx),
        },
      );
      if (!result.ok) refuseSave(result, params.id, "body.definition");
      return { body: await writeAnswer(ctx, result) };
    },
  },
);

/** `remove-model`: a model holding no entries, confirmed by its id; needs `model:delete` too. */
export const removeModel = defineHandler(contract.removeModel, {
  async run(ctx, { params, body }) {
    requireAllowed(ctx, { action: "models.delete" });
    requireReachable(ctx, params.id);
    const result = await removeStoredModel(modelContext(ctx), params.id, {
      baseRevision: body.expected_revision,
      confirm: body.confirm,
      facts: facts(ctx),
    });
    if (!result.ok) {
      switch (result.code) {
        case "not_found":
          return notFound(params.id);
        case "invalid_request":
          return refuse(
            400,
            "invalid_request",
            `Invalid body.confirm: ${result.message}`,
            { issues: [{ path: "body.confirm", message: result.message }] },
          );
        case "model_changed":
          return refuse(
            409,
            "model_changed",
            `Model "${params.id}" changed: its revision is now ${result.current_revision}`,
            {
              current_revision: result.current_revision,
              current_updated_at: result.current_updated_at,
            },
          );
        case "model_not_empty":
          return refuse(
            409,
            "model_not_empty",
            `Model "${params.id}" holds ${result.affected_count} entries (Trash counts): remove them first`,
            { affected_count: result.affected_count },
          );
      }
    }
    return {
      body: {
        model_id: result.model_id,
        slug: result.slug,
        created_field_ids: [],
        renamed_from: null,
        changed: true,
        model: null,
        dependents: {
          complete: true,
          relation_fields: result.relation_dependents,
        },
      },
    };
  },
});

// ---- Model proposals ----

function proposalContext(ctx: ManageContext) {
  return { ...modelContext(ctx), actor: ctx.actor, facts: facts(ctx) };
}

function iso(value: Date | null): string | null {
  return value === null ? null : new Date(value).toISOString();
}

/** A stored field definition on the wire: the four JSON parts as text, id only when it has one. */
function wireProposalField(field: FieldDefinition) {
  const text = (v: unknown) =>
    v === null || v === undefined ? null : JSON.stringify(v);
  return {
    ...(field.id === undefined ? {} : { id: field.id }),
    key: field.key,
    label: field.label,
    type: field.type,
    required: field.required,
    unique: field.unique,
    private: field.private,
    localized: field.localized,
    config: JSON.stringify(field.config ?? {}),
    validation: JSON.stringify(field.validation ?? {}),
    derived: text(field.derived),
    ui: text(field.ui),
    visibility: field.visibility ?? null,
  };
}

function wireProposal(proposal: ModelProposal) {
  return {
    id: proposal.id,
    mode: proposal.mode,
    model_id: proposal.model_id,
    base_updated_at: iso(proposal.base_updated_at),
    definition: {
      model: proposal.definition.model,
      fields: proposal.definition.fields.map(wireProposalField),
    },
    note: proposal.note,
    source: proposal.source,
    state: proposal.state,
    stale: proposal.stale,
    revision: proposal.revision,
    applied_model_id: proposal.applied_model_id,
    decided_by: proposal.decided_by,
    decided_at: iso(proposal.decided_at),
    created_at: iso(proposal.created_at)!,
    updated_at: iso(proposal.updated_at)!,
  };
}

/** A problem path of a proposal body: the definition's own paths start at `model` or `fields`. */
function proposalPath(path: string): string {
  const inDefinition = path === "model" || path.startsWith("model.") ||
    path.startsWith("model[") || path.startsWith("fields") || path === "";
  return inDefinition
    ? `body.definition${path ? `.${path}` : ""}`
    : `body.${path}`;
}

/** Maps a refusal of a proposal service to its answer. */
function refuseProposal(result: {
  ok: false;
  code: string;
  missing?: string[];
  problems?: Problem[];
  current_updated_at?: string;
}): never {
  switch (result.code) {
    case "missing_permission":
      return refuse(
        403,
        "missing_permission",
        `Missing permission: ${(result.missing ?? []).join(", ")}`,
        { missing: result.missing ?? [] },
      );
    case "creator_unauthorized":
      return refuse(
        403,
        "creator_unauthorized",
        "The credential's creator has no access to this site",
      );
    case "not_found":
      return refuse(404, "not_found", "No such model or proposal on this site");
    case "model_changed":
      return refuse(
        409,
        "model_changed",
        `The model changed after base_updated_at: it is now ${result.current_updated_at}`,
        { current_updated_at: result.current_updated_at },
      );
    case "invalid_request":
    case "duplicate_field_key":
    case "component_nesting_too_deep":
    case "unique_unsupported":
    case "invalid_field_config":
    case "invalid_field_validation":
    case "invalid_visibility":
    case "field_not_found":
    case "invalid_reference": {
      const problems = result.problems ?? [];
      const issues = problems.map((p) => ({
        path: proposalPath(p.path),
        message: p.message,
      }));
      const first = issues[0];
      return refuse(
        400,
        result.code as ErrorCode,
        first ? `Invalid ${first.path}: ${first.message}` : "Invalid proposal",
        result.code === "invalid_request" ? { issues, problems } : { problems },
      );
    }
    default:
      // audit_unavailable and the like: an outage, not a refusal the contract names.
      throw new Error(`Model proposal command failed: ${result.code}`);
  }
}

/** `list-model-proposals`: by state, each with its stale flag. */
export const listModelProposals = defineHandler(contract.listModelProposals, {
  async run(ctx, { query }) {
    requireAllowed(ctx, { action: "models.propose" });
    const result = await readModelProposals(proposalContext(ctx), {
      state: query.state,
    });
    if (!result.ok) refuseProposal(result);
    return { body: { data: result.proposals.map(wireProposal) } };
  },
});

/** `create-model-proposal`: recorded with the changes content could not survive. */
export const createModelProposal = defineHandler(
  contract.createModelProposal,
  {
    async run(ctx, { body }) {
      requireAllowed(ctx, { action: "models.propose" });
      const result = await proposeModel(proposalContext(ctx), body);
      if (!result.ok) refuseProposal(result);
      return {
        body: { ...wireProposal(result.proposal), changes: result.changes },
      };
    },
  },
);

/** `get-model-proposal`: one proposal. */
export const getModelProposal = defineHandler(contract.getModelProposal, {
  async run(ctx, { params }) {
    requireAllowed(ctx, { action: "models.propose" });
    const result = await readModelProposal(proposalContext(ctx), params.id);
    if (!result.ok) refuseProposal(result);
    return { body: wireProposal(result.proposal) };
  },
});
