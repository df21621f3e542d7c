// Shared steps of the model handlers: contexts, refusal answers, write answers and the wire form of model proposals.
import {
  type ApplyModelResult,
  type DefinitionRefusal,
  type FieldDefinition,
  listModels as readModels,
  type ModelSaved,
  type StoredModel,
  walkFields,
} from "../../models/mod.ts";
import { findModelWrite, savedAnswer } from "../../models/model_record.ts";
import type { Problem } from "../../models/problems.ts";
import type { ModelContext } from "../../models/store_rows.ts";
import type { ModelProposal } from "../../proposals/mod.ts";
import { refuse } from "../../web/errors.ts";
import { entryContentFacts } from "../content_facts.ts";
import type { ErrorCode } from "../contract/errors.ts";
import { reindexModel } from "../../search/index_documents.ts";
import type { ManageContext } from "../handler.ts";

/** The models module's context of a request: the credential's site. */
export function modelContext(ctx: ManageContext) {
  const { db, clock } = ctx.services;
  return { db, clock, siteId: ctx.site.id };
}

/**
 * The context of a model write: it records its answer under the request's key in its own
 * transaction, so a retry after a lost answer is settled from it (MAPI-014).
 */
export function writeContext(ctx: ManageContext): ModelContext {
  return {
    ...modelContext(ctx),
    record: { actor: ctx.actor, keyDigest: ctx.keyDigest },
  };
}

/** The first answer of a model write under the request's key, when one committed. */
export async function provedWrite<T>(
  ctx: ManageContext,
): Promise<{ body: T } | null> {
  if (!ctx.keyDigest) return null;
  const answer = await findModelWrite(
    ctx.services.db,
    ctx.site.id,
    ctx.keyDigest,
  );
  return answer ? { body: answer as T } : null;
}

/** Search documents follow a model change in its own transaction (new or newly private fields). */
export function reindexed(ctx: ManageContext) {
  return (db: typeof ctx.services.db, saved: { model_id: string }) =>
    reindexModel(db, ctx.site.id, saved.model_id);
}

/** The real content facts of the site, for model saves. */
export function facts(ctx: ManageContext) {
  return (db: typeof ctx.services.db, model: StoredModel) =>
    entryContentFacts(db, ctx.site.id, model);
}

/** A model outside the credential's models is answered as absent, like a missing one. */
export function requireReachable(ctx: ManageContext, modelId: string): void {
  const models = ctx.authority.models;
  if (models !== null && !models.includes(modelId.toLowerCase())) {
    refuse(404, "not_found", `No model "${modelId}" on this site`);
  }
}

/** `404 not_found` for a model id. */
export function notFound(modelId: string): never {
  return refuse(404, "not_found", `No model "${modelId}" on this site`);
}

/** `invalid_request` issues for problems found inside the body, under `prefix`. */
export function issuesOf(problems: readonly Problem[], prefix: string) {
  return problems.map((p) => ({
    path: p.path === "" ? prefix : `${prefix}.${p.path}`,
    message: p.message,
  }));
}

/**
 * A definition refusal: 400 with the model builder's code (MOD-017) and every problem; an
 * `invalid_request` also lists them as `issues` under `prefix` like any other bad body.
 */
export function refuseDefinition(
  refusal: DefinitionRefusal,
  prefix: string,
): never {
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
export function refuseSave(
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
    case "private_field_on_public_route":
      return refuse(
        422,
        "private_field_on_public_route",
        `Saved queries on public routes would serve a private column: ${
          result.saved_queries.map((q) => `${q.name} (${q.fields.join(", ")})`)
            .join("; ")
        }`,
        { saved_queries: result.saved_queries },
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
export async function relationDependents(ctx: ManageContext, modelId: string) {
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
export async function writeAnswer(ctx: ManageContext, saved: ModelSaved) {
  return {
    ...savedAnswer(saved),
    ...(saved.renamed_from === null ? {} : {
      dependents: {
        complete: true,
        relation_fields: await relationDependents(ctx, saved.model_id),
      },
    }),
  };
}

/** The model proposal context of a request: the credential as actor, the real content facts. */
export function proposalContext(ctx: ManageContext) {
  return { ...modelContext(ctx), actor: ctx.actor, facts: facts(ctx) };
}

/** ISO text of a time, or null. */
export function iso(value: Date | null): string | null {
  return value === null ? null : new Date(value).toISOString();
}

/** A stored field definition on the wire: the four JSON parts as text, id only when it has one. */
export function wireProposalField(field: FieldDefinition) {
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

/** A model proposal as the contract answers it. */
export function wireProposal(proposal: ModelProposal) {
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
export function proposalPath(path: string): string {
  const inDefinition = path === "model" || path.startsWith("model.") ||
    path.startsWith("model[") || path.startsWith("fields") || path === "";
  return inDefinition
    ? `body.definition${path ? `.${path}` : ""}`
    : `body.${path}`;
}

/** Maps a refusal of a proposal service to its answer. */
export function refuseProposal(result: {
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
