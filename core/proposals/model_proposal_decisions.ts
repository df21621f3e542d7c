// Decides an open model proposal: a person or credential applies it as an ordinary model save, or dismisses it.
import { decide } from "../access/decide.ts";
import type { Db } from "../db/database.ts";
import { getModel } from "../models/model_reads.ts";
import {
  applyModelDefinition,
  type ApplyModelResult,
  createModel,
  type CreateModelResult,
  type ModelSaved,
} from "../models/store.ts";
import type { ActorSnapshot } from "../entries/types.ts";
import { snapshotActor } from "../entries/actor_snapshot.ts";
import { authorityOf, runProposalCommand } from "./command.ts";
import {
  type ModelProposal,
  type ModelProposalRow,
  readModelProposal,
  readModelProposalRow,
} from "./model_proposal_rows.ts";
import type {
  ModelProposalContext,
  ModelProposalRefusal,
} from "./model_proposals.ts";
import type { CommandContext } from "./command.ts";

/** What an apply answers: the proposal, now applied, and the model save it made. */
export interface AppliedModelProposal {
  ok: true;
  proposal: ModelProposal;
  saved: ModelSaved;
}

/** What a dismissal answers. */
export interface DismissedModelProposal {
  ok: true;
  proposal: ModelProposal;
}

/** Options of {@linkcode applyModelProposal}. */
export interface ApplyModelProposalOptions {
  /**
   * Runs in the model save's transaction after an update proposal changed the model (the
   * Management API reindexes search documents there, as its model writes do).
   */
  onApplied?: (db: Db, saved: ModelSaved) => Promise<void>;
}

/** Every refusal of an apply: the proposal's own and the model save's. */
export type ApplyModelProposalRefusal =
  | ModelProposalRefusal
  | Exclude<ApplyModelResult | CreateModelResult, { ok: true }>;

const STALE = { ok: false, code: "schema_proposal_stale" } as const;
const NOT_OPEN = { ok: false, code: "proposal_not_open" } as const;

class ProposalClosed extends Error {
  constructor() {
    super("Cannot apply the model proposal: it is no longer open");
  }
}

/** Turns the proposal applied if it is still open; false when someone else decided it first. */
async function markApplied(
  db: Db,
  row: ModelProposalRow,
  modelId: string,
  actor: ActorSnapshot,
  at: Date,
): Promise<boolean> {
  const updated = await db.updateTable("model_proposals").set({
    state: "applied",
    applied_model_id: modelId,
    revision: row.revision + 1,
    decided_by: JSON.stringify(actor),
    decided_at: at,
    updated_at: at,
  }).where("site_id", "=", row.site_id).where("id", "=", row.id)
    .where("state", "=", "open").executeTakeFirst();
  return Number(updated.numUpdatedRows) === 1;
}

/**
 * A person, or a management credential acting as its creator (spec 2 part 5.1), applies an
 * open model proposal as an ordinary model change by the applier (MOD-022): `createModel` for `create`, `applyModelDefinition` for `update` with the
 * model's current revision, so every model-save refusal stands (`model_change_blocked`,
 * collisions, definition problems). Needs `model:apply` (a credential: scope
 * `schema:write`). An update proposal whose model
 * changed after `base_updated_at` is refused `schema_proposal_stale` (409, MOD-023);
 * nothing is written. Other refusals: `forbidden` (a plugin), `not_found`,
 * `proposal_not_open`, `missing_permission`.
 */
export async function applyModelProposal(
  ctx: ModelProposalContext,
  id: string,
  options: ApplyModelProposalOptions = {},
): Promise<AppliedModelProposal | ApplyModelProposalRefusal> {
  if (ctx.actor.kind === "plugin") return { ok: false, code: "forbidden" };
  const loaded = await authorityOf(ctx);
  if (!loaded.ok) return loaded;
  const decision = decide(loaded.authority, { action: "models.write" });
  if (!decision.ok) return decision;
  const row = await readModelProposalRow(ctx.db, ctx.siteId, id);
  if (!row) return { ok: false, code: "not_found" };
  if (row.state !== "open") return NOT_OPEN;
  const actor = await snapshotActor(ctx.db, ctx.siteId, ctx.actor);
  const modelCtx = { db: ctx.db, clock: ctx.clock, siteId: ctx.siteId };
  if (row.mode === "create") {
    const created = await createModel(modelCtx, row.definition);
    if (!created.ok) return created;
    // createModel has no hook inside its transaction; a dismissal racing this apply
    // leaves the created model in place and the proposal as the other person decided.
    await markApplied(ctx.db, row, created.model_id, actor, ctx.clock.now());
    return {
      ok: true,
      proposal: await readModelProposal(ctx.db, ctx.siteId, row.id),
      saved: created,
    };
  }
  const current = await getModel(modelCtx, row.model_id!);
  if (
    !current.ok ||
    current.model.updatedAt.getTime() !== row.base_updated_at!.getTime()
  ) {
    return STALE;
  }
  let marked = false;
  let result: ApplyModelResult;
  try {
    result = await applyModelDefinition(
      modelCtx,
      row.model_id!,
      row.definition,
      {
        baseRevision: current.model.revision,
        facts: ctx.facts,
        async onApplied(tx, saved) {
          if (
            !await markApplied(tx, row, saved.model_id, actor, ctx.clock.now())
          ) {
            throw new ProposalClosed();
          }
          marked = true;
          await options.onApplied?.(tx, saved);
        },
      },
    );
  } catch (error) {
    if (error instanceof ProposalClosed) return NOT_OPEN;
    throw error;
  }
  if (!result.ok) return result.code === "model_changed" ? STALE : result;
  // An identical definition changes nothing, so the save called no hook.
  if (
    !marked &&
    !await markApplied(ctx.db, row, result.model_id, actor, ctx.clock.now())
  ) {
    return NOT_OPEN;
  }
  return {
    ok: true,
    proposal: await readModelProposal(ctx.db, ctx.siteId, row.id),
    saved: result,
  };
}

/**
 * A person or a management credential dismisses an open model proposal, stale or not
 * (MOD-022, MOD-023); no model changes. Needs `model:apply` (a credential: scope
 * `schema:propose`). Refusals: `forbidden` (a plugin), `not_found`,
 * `proposal_not_open`, `missing_permission`.
 */
export function dismissModelProposal(
  ctx: CommandContext,
  id: string,
): Promise<DismissedModelProposal | ModelProposalRefusal> {
  if (ctx.actor.kind === "plugin") {
    return Promise.resolve({ ok: false, code: "forbidden" });
  }
  return runProposalCommand<DismissedModelProposal>(ctx, async (scope) => {
    const decision = decide(scope.authority, { action: "models.propose" });
    if (!decision.ok) return decision;
    const row = await readModelProposalRow(scope.tx, ctx.siteId, id, {
      lock: true,
    });
    if (!row) return { ok: false, code: "not_found" };
    if (row.state !== "open") return NOT_OPEN;
    await scope.tx.updateTable("model_proposals").set({
      state: "dismissed",
      revision: row.revision + 1,
      decided_by: JSON.stringify(scope.actor),
      decided_at: scope.now,
      updated_at: scope.now,
    }).where("site_id", "=", ctx.siteId).where("id", "=", row.id).execute();
    return {
      ok: true,
      proposal: await readModelProposal(scope.tx, ctx.siteId, row.id),
    };
  });
}
