// Handlers of deciding proposals: the proposal services' apply and dismiss, the credential acting as its creator.
import type { ModelSaved } from "../../models/mod.ts";
import {
  applyEntryProposal as applyEntry,
  applyModelProposal as applyModel,
  dismissEntryProposal as dismissEntry,
  dismissModelProposal as dismissModel,
  getEntryProposal,
  getModelProposal,
} from "../../proposals/mod.ts";
import { readGroup } from "../../entries/store.ts";
import { refuse } from "../../web/errors.ts";
import * as contract from "../contract/proposals.ts";
import { defineHandler, type ManageContext } from "../handler.ts";
import {
  lifecycleOf,
  plain,
  refuseWith,
  requireDecision,
  unwrap,
  writtenAnswer,
} from "./entries_support.ts";
import {
  proposalContext,
  refuseProposal,
  refuseSave,
  reindexed,
  requireReachable,
  wireProposal,
  writeAnswer,
} from "./models_support.ts";
import { requireAllowed } from "./require.ts";

function commandContext(ctx: ManageContext) {
  return {
    db: ctx.services.db,
    clock: ctx.services.clock,
    siteId: ctx.site.id,
    actor: ctx.actor,
  };
}

/**
 * The proposal on the entry of the path, readable by the credential, after checking that the
 * credential may update that entry in the proposal's language; a proposal of another entry
 * is `404 not_found`.
 */
async function decidableEntryProposal(
  ctx: ManageContext,
  params: { id: string; proposalId: string },
) {
  const found = unwrap(
    await getEntryProposal(commandContext(ctx), params.proposalId),
  );
  if (found.proposal.group_id !== params.id.toLowerCase()) {
    refuseWith({ ok: false, code: "not_found" });
  }
  const group = await readGroup(ctx.services.db, ctx.site.id, params.id);
  requireDecision(ctx.authority, {
    action: "entries.update",
    model: found.proposal.model_id,
    owner: group?.created_by ?? null,
    languages: [found.proposal.locale],
  });
  return found.proposal;
}

/** `apply-entry-proposal`: an ordinary save pinned to the proposal's base version. */
export const applyEntryProposal = defineHandler(contract.applyEntryProposal, {
  async run(ctx, { params }) {
    await decidableEntryProposal(ctx, params);
    const result = unwrap(
      await applyEntry(lifecycleOf(ctx), params.proposalId),
    );
    return {
      body: {
        proposal: plain(result.proposal),
        entry: writtenAnswer(result.entry),
      },
    };
  },
});

/** `dismiss-entry-proposal`: the proposal turns dismissed; the entry is unchanged. */
export const dismissEntryProposal = defineHandler(
  contract.dismissEntryProposal,
  {
    async run(ctx, { params }) {
      await decidableEntryProposal(ctx, params);
      const result = unwrap(
        await dismissEntry(commandContext(ctx), params.proposalId),
      );
      return { body: { proposal: plain(result.proposal) } };
    },
  },
);

/** The model proposal, when its model is within the credential's models (else 404). */
async function reachableModelProposal(ctx: ManageContext, id: string) {
  const found = await getModelProposal(proposalContext(ctx), id);
  if (!found.ok) refuseProposal(found);
  if (found.proposal.model_id !== null) {
    requireReachable(ctx, found.proposal.model_id);
  }
  return found.proposal;
}

/** Maps a refusal of a model proposal decision: its own codes, then the model save's. */
function refuseModelDecision(
  result: { ok: false; code: string },
  modelId: string,
): never {
  switch (result.code) {
    case "forbidden":
      return refuse(403, "forbidden", "This actor may not decide proposals");
    case "proposal_not_open":
      return refuse(
        409,
        "proposal_not_open",
        "The proposal was already applied or dismissed: read it again",
      );
    case "schema_proposal_stale":
      return refuse(
        409,
        "schema_proposal_stale",
        "The model changed after the proposal was made: only dismissal remains",
      );
    case "not_found":
    case "missing_permission":
    case "creator_unauthorized":
      return refuseProposal(result as Parameters<typeof refuseProposal>[0]);
    default:
      return refuseSave(
        result as Parameters<typeof refuseSave>[0],
        modelId,
        "proposal.definition",
      );
  }
}

/** `apply-model-proposal`: a model save as the credential's creator; search documents follow in its transaction. */
export const applyModelProposal = defineHandler(contract.applyModelProposal, {
  async run(ctx, { params }) {
    requireAllowed(ctx, { action: "models.write" });
    const proposal = await reachableModelProposal(ctx, params.id);
    const result = await applyModel(proposalContext(ctx), params.id, {
      onApplied: reindexed(ctx),
    });
    if (!result.ok) refuseModelDecision(result, proposal.model_id ?? "(new)");
    return {
      body: {
        proposal: wireProposal(result.proposal),
        model: await writeAnswer(ctx, result.saved as ModelSaved),
      },
    };
  },
});

/** `dismiss-model-proposal`: stale or not; no model changes. */
export const dismissModelProposal = defineHandler(
  contract.dismissModelProposal,
  {
    async run(ctx, { params }) {
      requireAllowed(ctx, { action: "models.propose" });
      const proposal = await reachableModelProposal(ctx, params.id);
      const result = await dismissModel(proposalContext(ctx), params.id);
      if (!result.ok) {
        refuseModelDecision(result, proposal.model_id ?? "(new)");
      }
      return { body: { proposal: wireProposal(result.proposal) } };
    },
  },
);
