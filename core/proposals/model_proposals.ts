// Model proposals: propose a new model or a model change, list them by state, read one (spec 2 parts 2.3, 4.3).
import { decide } from "../access/decide.ts";
import type { Db } from "../db/database.ts";
import {
  assessModelChange,
  type ContentFacts,
  type ModelChange,
} from "../models/change_safety.ts";
import {
  type DefinitionRefusal,
  parseModelDefinition,
  walkFields,
} from "../models/definition.ts";
import { assignFieldIds, namedIds } from "../models/field_ids.ts";
import { UUID } from "../models/field_types.ts";
import { getModel } from "../models/model_reads.ts";
import type { Problem } from "../models/problems.ts";
import {
  definitionOf,
  loadRetainedKeys,
  type StoredModel,
} from "../models/store_rows.ts";
import {
  authorityOf,
  type CommandContext,
  runProposalCommand,
} from "./command.ts";
import {
  type ModelProposal,
  modelTimes,
  presentModelProposal,
  readModelProposal,
  readModelProposalRow,
} from "./model_proposal_rows.ts";
import {
  type AiJob,
  characterCount,
  PROPOSAL_STATES,
  type ProposalRefusal,
  type ProposalState,
  sourceOf,
} from "./types.ts";

/** Limits of one model proposal (spec 2 part 8, MOD-019). */
export const MODEL_PROPOSAL_LIMITS = {
  /** Fields of the definition, nested component fields included. */
  fields: 200,
  /** Characters (code points) of `note`. */
  noteCharacters: 500,
} as const;

/** What model proposal commands need beyond a command context. */
export interface ModelProposalContext extends CommandContext {
  /** Facts about a model's content, read inside the command's transaction. */
  facts: (db: Db, model: StoredModel) => ContentFacts;
}

/** The body of `POST /models/proposals`. */
export interface CreateModelProposalOptions {
  mode: unknown;
  /** Required for `update`, refused for `create`. */
  model_id?: unknown;
  /** The model's `updated_at` the proposer read: required for `update`, refused for `create`. */
  base_updated_at?: unknown;
  definition: unknown;
  note?: unknown;
  /** Set when an AI batch job made the proposal; recorded as its source. */
  ai_job?: AiJob;
}

/** The model changed after the proposer read it (`409 model_changed`, MOD-020). */
export interface ModelProposalBaseChanged {
  ok: false;
  code: "model_changed";
  current_updated_at: string;
}

/** Every refusal a model proposal command may answer. */
export type ModelProposalRefusal =
  | ProposalRefusal
  | DefinitionRefusal
  | ModelProposalBaseChanged;

/** A new proposal, with the changes existing content could not survive (allowed, listed). */
export interface CreatedModelProposal {
  ok: true;
  proposal: ModelProposal;
  changes: ModelChange[];
}

/** One model proposal. */
export interface ModelProposalResult {
  ok: true;
  proposal: ModelProposal;
}

/** The site's model proposals. */
export interface ModelProposalList {
  ok: true;
  proposals: ModelProposal[];
}

function invalid(problems: Problem[]): ProposalRefusal {
  return { ok: false, code: "invalid_request", problems };
}

function problem(path: string, message: string): Problem {
  return { path, code: "invalid_request", message };
}

function readBase(value: unknown): Date | null {
  if (value instanceof Date) return value;
  if (typeof value !== "string") return null;
  const at = new Date(value);
  return isNaN(at.getTime()) ? null : at;
}

/** Checks the body's own rules: mode and its companions, note length. */
function checkEnvelope(
  options: CreateModelProposalOptions,
): Problem[] {
  const problems: Problem[] = [];
  if (options.mode !== "create" && options.mode !== "update") {
    problems.push(problem("mode", "Expected create or update"));
  } else if (options.mode === "create") {
    for (const key of ["model_id", "base_updated_at"] as const) {
      if (options[key] !== undefined) {
        problems.push(
          problem(key, "Expected nothing: a create names no model"),
        );
      }
    }
  } else {
    if (typeof options.model_id !== "string" || !UUID.test(options.model_id)) {
      problems.push(
        problem("model_id", "Expected the id of the model changed"),
      );
    }
    if (readBase(options.base_updated_at) === null) {
      problems.push(
        problem("base_updated_at", "Expected the model's updated_at as read"),
      );
    }
  }
  const note = options.note ?? "";
  if (typeof note !== "string") {
    problems.push(problem("note", "Expected text"));
  } else if (characterCount(note) > MODEL_PROPOSAL_LIMITS.noteCharacters) {
    problems.push(
      problem(
        "note",
        `Expected at most ${MODEL_PROPOSAL_LIMITS.noteCharacters} characters, got ${
          characterCount(note)
        }`,
      ),
    );
  }
  return problems;
}

/**
 * Records a proposed new model (`create`) or change (`update`) for a person to apply
 * (MOD-018 to MOD-020). Needs `model:apply` (a credential: scope `schema:propose`). The
 * definition is checked like a model save; changes existing content could not survive
 * are allowed and answered in `changes`. Refusals: `invalid_request` (mode, companions,
 * note over 500 characters, over 200 fields), the definition's own codes, `not_found`,
 * `model_changed` with `current_updated_at` (the model changed after `base_updated_at`),
 * `missing_permission`.
 */
export function createModelProposal(
  ctx: ModelProposalContext,
  options: CreateModelProposalOptions,
): Promise<CreatedModelProposal | ModelProposalRefusal> {
  return runProposalCommand<CreatedModelProposal, ModelProposalRefusal>(
    ctx,
    async (scope) => {
      const decision = decide(scope.authority, { action: "models.propose" });
      if (!decision.ok) return decision;
      const envelope = checkEnvelope(options);
      if (envelope.length > 0) return invalid(envelope);
      const parsed = parseModelDefinition(options.definition);
      if (!parsed.ok) return parsed;
      let count = 0;
      walkFields(parsed.definition.fields, () => count++);
      if (count > MODEL_PROPOSAL_LIMITS.fields) {
        return invalid([problem(
          "definition.fields",
          `Expected at most ${MODEL_PROPOSAL_LIMITS.fields} fields, got ${count}`,
        )]);
      }
      let changes: ModelChange[] = [];
      let modelId: string | null = null;
      let base: Date | null = null;
      if (options.mode === "create") {
        const named = namedIds(parsed.definition.fields);
        if (named.length > 0) {
          return { ok: false, code: "invalid_request", problems: named };
        }
      } else {
        const current = await getModel(
          { db: scope.tx, clock: ctx.clock, siteId: ctx.siteId },
          options.model_id as string,
        );
        if (!current.ok) return { ok: false, code: "not_found" };
        const model = current.model;
        base = readBase(options.base_updated_at)!;
        if (model.updatedAt.getTime() !== base.getTime()) {
          return {
            ok: false,
            code: "model_changed",
            current_updated_at: model.updatedAt.toISOString(),
          } satisfies ModelProposalBaseChanged;
        }
        const ids = assignFieldIds(parsed.definition.fields, model.fields);
        if (ids.problems.length > 0) {
          const first = ids.problems[0].code as ProposalRefusal["code"];
          return { ok: false, code: first, problems: ids.problems };
        }
        changes = await assessModelChange(
          definitionOf(model),
          { model: parsed.definition.model, fields: ids.fields },
          ctx.facts(scope.tx, model),
          await loadRetainedKeys(scope.tx, ctx.siteId, model.id),
        );
        modelId = model.id;
      }
      const id = scope.newId();
      await scope.tx.insertInto("model_proposals").values({
        id,
        site_id: ctx.siteId,
        mode: options.mode as "create" | "update",
        model_id: modelId,
        base_updated_at: base,
        definition: JSON.stringify(parsed.definition),
        note: (options.note ?? "") as string,
        source: JSON.stringify(sourceOf(scope.actor, options.ai_job)),
        created_by: JSON.stringify(scope.actor),
        state: "open",
        revision: 1,
        applied_model_id: null,
        decided_by: null,
        decided_at: null,
        created_at: scope.now,
        updated_at: scope.now,
      }).execute();
      return {
        ok: true,
        proposal: await readModelProposal(scope.tx, ctx.siteId, id),
        changes,
      };
    },
  );
}

/**
 * Lists the site's model proposals, oldest first, optionally by `state` (`open`,
 * `applied`, `dismissed`; MOD-021), each with its `stale` flag. Needs `model:apply`
 * (a credential: scope `schema:propose`).
 */
export async function listModelProposals(
  ctx: CommandContext,
  options: { state?: string } = {},
): Promise<ModelProposalList | ModelProposalRefusal> {
  const loaded = await authorityOf(ctx);
  if (!loaded.ok) return loaded;
  const decision = decide(loaded.authority, { action: "models.propose" });
  if (!decision.ok) return decision;
  const { state } = options;
  if (
    state !== undefined && !PROPOSAL_STATES.includes(state as ProposalState)
  ) {
    return invalid([
      problem(
        "state",
        `Expected one of open, applied, dismissed, got "${state}"`,
      ),
    ]);
  }
  let query = ctx.db.selectFrom("model_proposals").selectAll()
    .where("site_id", "=", ctx.siteId);
  if (state !== undefined) {
    query = query.where("state", "=", state as ProposalState);
  }
  const rows = await query.orderBy("created_at").orderBy("id").execute();
  const times = await modelTimes(
    ctx.db,
    ctx.siteId,
    [...new Set(rows.flatMap((r) => r.model_id ?? []))],
  );
  return {
    ok: true,
    proposals: rows.map((row) => presentModelProposal(row, times)),
  };
}

/** Reads one model proposal with its `stale` flag. Needs what listing needs. */
export async function getModelProposal(
  ctx: CommandContext,
  id: string,
): Promise<ModelProposalResult | ModelProposalRefusal> {
  const loaded = await authorityOf(ctx);
  if (!loaded.ok) return loaded;
  const decision = decide(loaded.authority, { action: "models.propose" });
  if (!decision.ok) return decision;
  const row = await readModelProposalRow(ctx.db, ctx.siteId, id);
  if (!row) return { ok: false, code: "not_found" };
  return {
    ok: true,
    proposal: await readModelProposal(ctx.db, ctx.siteId, row.id),
  };
}
