// Handlers of the model routes: the models module's services with the real content facts, and model proposals.
import { readReach } from "../../access/decide.ts";
import {
  applyModelDefinition,
  createModel as createStoredModel,
  getModel as readModel,
  listModels as readModels,
  removeModel as removeStoredModel,
  setModelFolder as fileModel,
  toWireModel,
  updateModelInfo,
} from "../../models/mod.ts";
import { removedAnswer } from "../../models/model_record.ts";
import {
  createModelProposal as proposeModel,
  getModelProposal as readModelProposal,
  listModelProposals as readModelProposals,
} from "../../proposals/mod.ts";
import { refuse } from "../../web/errors.ts";
import * as contract from "../contract/models.ts";
import { defineHandler } from "../handler.ts";
import {
  facts,
  modelContext,
  notFound,
  proposalContext,
  provedWrite,
  refuseProposal,
  refuseSave,
  reindexed,
  requireReachable,
  wireProposal,
  writeAnswer,
  writeContext,
} from "./models_support.ts";
import { requireAllowed } from "./require.ts";

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
    const result = await createStoredModel(writeContext(ctx), body.definition);
    if (!result.ok) refuseSave(result, "(new)", "body.definition");
    return { body: await writeAnswer(ctx, result) };
  },
  // MAPI-014: written with its audit entry in one transaction; a lost answer is proved from it.
  prove: provedWrite,
});

/** `update-model`: the model part at the revision read, fields kept. */
export const updateModel = defineHandler(contract.updateModel, {
  async run(ctx, { params, body }) {
    requireAllowed(ctx, { action: "models.write" });
    requireReachable(ctx, params.id);
    const result = await updateModelInfo(
      writeContext(ctx),
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
  prove: provedWrite,
});

/** `set-model-folder`: display only, so neither revision nor updated_at moves. */
export const setModelFolder = defineHandler(contract.setModelFolder, {
  async run(ctx, { params, body }) {
    requireAllowed(ctx, { action: "models.write" });
    requireReachable(ctx, params.id);
    const result = await fileModel(writeContext(ctx), params.id, body.folder);
    if (!result.ok) {
      if (result.code === "not_found") notFound(params.id);
      refuse(400, "invalid_request", `Invalid body.folder: ${result.message}`, {
        issues: [{ path: "body.folder", message: result.message }],
      });
    }
    const { model_id, slug, folder } = result;
    return { body: { model_id, slug, folder } };
  },
  prove: provedWrite,
});

/** `replace-model-definition`: the whole definition at the revision read. */
export const replaceModelDefinition = defineHandler(
  contract.replaceModelDefinition,
  {
    async run(ctx, { params, body }) {
      requireAllowed(ctx, { action: "models.write" });
      requireReachable(ctx, params.id);
      const result = await applyModelDefinition(
        writeContext(ctx),
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
    prove: provedWrite,
  },
);

/** `remove-model`: a model holding no entries, confirmed by its id; needs `model:delete` too. */
export const removeModel = defineHandler(contract.removeModel, {
  async run(ctx, { params, body }) {
    requireAllowed(ctx, { action: "models.delete" });
    requireReachable(ctx, params.id);
    const result = await removeStoredModel(writeContext(ctx), params.id, {
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
        case "stale_role_grant":
          return refuse(
            409,
            "stale_role_grant",
            `Roles grant on model "${params.id}": remove those grants first`,
            { roles: result.roles },
          );
        case "stale_token_scope":
          return refuse(
            409,
            "stale_token_scope",
            `Credentials or site tokens are limited to model "${params.id}": change or revoke them first`,
            {
              credentials: result.credentials,
              site_tokens: result.site_tokens,
            },
          );
        case "model_has_bound_queries":
          return refuse(
            409,
            "model_has_bound_queries",
            `Saved queries are bound to model "${params.id}": delete them first`,
            { saved_queries: result.saved_queries },
          );
      }
    }
    return {
      body: {
        ...removedAnswer(result.model_id, result.slug),
        dependents: {
          complete: true,
          relation_fields: result.relation_dependents,
        },
      },
    };
  },
  prove: provedWrite,
});

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
