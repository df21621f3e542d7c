// Creates, reads and changes content models: definitions applied whole, revisions, safety checks.
import { publicRoutesExposing } from "../backend/saved_queries.ts";
import type { Db } from "../db/database.ts";
import {
  assessModelChange,
  type ContentFacts,
  type DefinitionDiff,
  diffDefinitions,
  type ModelChange,
} from "./change_safety.ts";
import {
  type DefinitionRefusal,
  type ModelDefinition,
  parseModelDefinition,
  readModelInfo,
  refusal,
} from "./definition.ts";

export type { DefinitionRefusal } from "./definition.ts";
import { assignFieldIds, namedIds } from "./field_ids.ts";
import { UUID } from "./field_types.ts";
import { getModel, type ModelNotFound } from "./model_reads.ts";
import { recordModelWrite, savedAnswer } from "./model_record.ts";

export { getModel, listModels, type ModelNotFound } from "./model_reads.ts";
import { type Problem, stableJson } from "./problems.ts";
import { refreshListTitles, titleFieldOf } from "./title_field.ts";
import {
  collisionFromError,
  definitionOf,
  findCollision,
  forgetModelsRead,
  loadModels,
  loadRetainedKeys,
  missingTargets,
  type ModelContext,
  recordKeys,
  type StoredModel,
  writeFields,
} from "./store_rows.ts";

/** The model changed since the revision the caller read (`409 model_changed`). */
export type ModelChanged = {
  ok: false;
  code: "model_changed";
  current_revision: number;
  current_updated_at: string;
};
/** A change existing content cannot survive (`409 model_change_blocked`); nothing was written. */
export type ModelChangeBlocked = {
  ok: false;
  code: "model_change_blocked";
  changes: ModelChange[];
};
/**
 * The change would make a saved query on a public route serve a private column
 * (`422 private_field_on_public_route`, MOD-031); nothing was written.
 */
export type PrivateOnPublicRoute = {
  ok: false;
  code: "private_field_on_public_route";
  saved_queries: { id: string; name: string; fields: string[] }[];
};
/** Another live model of the site holds the slug or (ignoring case) the name. */
export type ModelCollision =
  | { ok: false; code: "model_slug_taken"; slug: string }
  | { ok: false; code: "model_name_collision"; name: string };

/** A saved model and what the save did; `changed` is false when the definition was identical. */
export interface ModelSaved {
  ok: true;
  model: StoredModel;
  model_id: string;
  slug: string;
  /** Ids given to fields the definition added, nested ones included, in definition order. */
  created_field_ids: string[];
  /** The previous slug when the save renamed the model, else null. */
  renamed_from: string | null;
  changed: boolean;
  diff: DefinitionDiff;
}

/** The answer of `createModel`. */
export type CreateModelResult = ModelSaved | DefinitionRefusal | ModelCollision;

/** The answer of `applyModelDefinition` and `updateModelInfo`. */
export type ApplyModelResult =
  | ModelSaved
  | DefinitionRefusal
  | ModelCollision
  | ModelNotFound
  | ModelChanged
  | ModelChangeBlocked
  | PrivateOnPublicRoute;

/** Options of `applyModelDefinition`. */
export interface ApplyModelOptions {
  /** The revision the caller read; any other current revision is `model_changed`. */
  baseRevision: number;
  /** Facts about the model's content, read inside the save's transaction. */
  facts: (db: Db, model: StoredModel) => ContentFacts;
  /** Runs inside the transaction after a change is written (the entries area moves values here). */
  onApplied?: (db: Db, saved: ModelSaved) => Promise<void>;
}

const NOT_FOUND: ModelNotFound = { ok: false, code: "not_found" };

/** Creates a model from a definition that names no field ids; revision starts at 1. */
export async function createModel(
  ctx: ModelContext,
  input: unknown,
): Promise<CreateModelResult> {
  const parsed = parseModelDefinition(input);
  if (!parsed.ok) return parsed;
  const problems = namedIds(parsed.definition.fields);
  if (problems.length > 0) {
    return refusal(problems);
  }
  const ids = assignFieldIds(parsed.definition.fields, []);
  const definition: ModelDefinition = {
    model: parsed.definition.model,
    fields: ids.fields,
  };
  const info = definition.model;
  try {
    return await ctx.db.transaction().execute(async (trx) => {
      const invalid = await targetProblems(trx, ctx.siteId, definition, null);
      if (invalid) return invalid;
      const collision = await findCollision(trx, ctx.siteId, info, null);
      if (collision) return collision;
      const id = crypto.randomUUID();
      const now = ctx.clock.now();
      forgetModelsRead(trx);
      await trx.insertInto("models").values({
        id,
        site_id: ctx.siteId,
        slug: info.slug,
        name: info.name,
        description: info.description,
        kind: info.kind,
        folder: null,
        is_public: info.isPublic,
        enable_i18n: info.enableI18n,
        settings: JSON.stringify(info.settings),
        revision: 1,
        created_at: now,
        updated_at: now,
        deleted_at: null,
      }).execute();
      await writeFields(trx, ctx.siteId, id, definition.fields);
      await recordKeys(trx, ctx.siteId, id, definition.fields, now);
      const [model] = await loadModels(trx, ctx.siteId, [id]);
      const result = saved(
        model,
        ids.created,
        null,
        true,
        diffDefinitions([], model.fields),
      );
      await recordModelWrite(trx, ctx, {
        action: "model.create",
        modelId: id,
        revision: model.revision,
        answer: savedAnswer(result),
      });
      return result;
    });
  } catch (error) {
    return collisionFromError(error, info);
  }
}

/**
 * Replaces a model's definition (spec 2 part 2.3): fields kept by id, added without one,
 * removed when left out, ordered as listed. Refuses a stale `baseRevision` (`model_changed`)
 * and changes content cannot survive (`model_change_blocked`); the revision moves only when
 * something changed.
 */
export async function applyModelDefinition(
  ctx: ModelContext,
  modelId: string,
  input: unknown,
  options: ApplyModelOptions,
): Promise<ApplyModelResult> {
  const parsed = parseModelDefinition(input);
  if (!parsed.ok) return parsed;
  if (!UUID.test(modelId)) return NOT_FOUND;
  try {
    return await ctx.db.transaction().execute(async (trx) => {
      const [current] = await loadModels(trx, ctx.siteId, [
        modelId.toLowerCase(),
      ], true);
      if (!current) return NOT_FOUND;
      if (current.revision !== options.baseRevision) {
        return {
          ok: false,
          code: "model_changed",
          current_revision: current.revision,
          current_updated_at: current.updatedAt.toISOString(),
        } satisfies ModelChanged;
      }
      return await save(trx, ctx, current, parsed.definition, options);
    });
  } catch (error) {
    return collisionFromError(error, parsed.definition.model);
  }
}

/** Changes the `model` part only (`PUT /models/{id}`), keeping the fields as saved. */
export async function updateModelInfo(
  ctx: ModelContext,
  modelId: string,
  modelInput: unknown,
  options: ApplyModelOptions,
): Promise<ApplyModelResult> {
  const problems: Problem[] = [];
  readModelInfo(modelInput, "model", problems);
  if (problems.length > 0) {
    return refusal(problems);
  }
  const current = await getModel(ctx, modelId);
  if (!current.ok) return current;
  return await applyModelDefinition(ctx, modelId, {
    model: modelInput,
    fields: current.model.fields,
  }, options);
}

async function save(
  trx: Db,
  ctx: ModelContext,
  current: StoredModel,
  definition: ModelDefinition,
  options: ApplyModelOptions,
): Promise<ApplyModelResult> {
  const ids = assignFieldIds(definition.fields, current.fields);
  if (ids.problems.length > 0) {
    return refusal(ids.problems);
  }
  const after: ModelDefinition = {
    model: definition.model,
    fields: ids.fields,
  };
  const invalid = await targetProblems(trx, ctx.siteId, after, current.id);
  if (invalid) return invalid;
  const before = definitionOf(current);
  if (stableJson(before) === stableJson(after)) {
    return saved(
      current,
      [],
      null,
      false,
      diffDefinitions(current.fields, current.fields),
    );
  }
  const collision = await findCollision(
    trx,
    ctx.siteId,
    after.model,
    current.id,
  );
  if (collision) return collision;
  const retained = await loadRetainedKeys(trx, ctx.siteId, current.id);
  const changes = await assessModelChange(
    before,
    after,
    options.facts(trx, current),
    retained,
  );
  if (changes.length > 0) {
    return { ok: false, code: "model_change_blocked", changes };
  }
  const exposing = await publicRoutesExposing(
    trx,
    ctx.siteId,
    current.id,
    after.fields,
  );
  if (exposing.length > 0) {
    return {
      ok: false,
      code: "private_field_on_public_route",
      saved_queries: exposing,
    };
  }
  const now = ctx.clock.now();
  const info = after.model;
  forgetModelsRead(trx);
  await trx.updateTable("models").set({
    slug: info.slug,
    name: info.name,
    description: info.description,
    kind: info.kind,
    is_public: info.isPublic,
    enable_i18n: info.enableI18n,
    settings: JSON.stringify(info.settings),
    revision: current.revision + 1,
    updated_at: now,
  }).where("site_id", "=", ctx.siteId).where("id", "=", current.id).execute();
  await writeFields(trx, ctx.siteId, current.id, after.fields);
  await recordKeys(trx, ctx.siteId, current.id, after.fields, now);
  const [model] = await loadModels(trx, ctx.siteId, [current.id]);
  const titleKey = titleFieldOf(model)?.key ?? null;
  if (titleKey !== (titleFieldOf(current)?.key ?? null)) {
    await refreshListTitles(trx, ctx.siteId, current.id, titleKey);
  }
  const renamedFrom = current.slug === info.slug ? null : current.slug;
  const result = saved(
    model,
    ids.created,
    renamedFrom,
    true,
    diffDefinitions(current.fields, model.fields),
  );
  await options.onApplied?.(trx, result);
  await recordModelWrite(trx, ctx, {
    action: "model.update",
    modelId: model.id,
    revision: model.revision,
    answer: savedAnswer(result),
  });
  return result;
}

async function targetProblems(
  db: Db,
  siteId: string,
  definition: ModelDefinition,
  selfId: string | null,
): Promise<DefinitionRefusal | null> {
  const missing = await missingTargets(db, siteId, definition.fields, selfId);
  if (missing.length === 0) return null;
  return refusal(missing.map((m) => ({
    path: m.path,
    code: "invalid_reference",
    message: `No model "${m.id}" on this site`,
  })));
}

function saved(
  model: StoredModel,
  created: string[],
  renamedFrom: string | null,
  changed: boolean,
  diff: DefinitionDiff,
): ModelSaved {
  return {
    ok: true,
    model,
    model_id: model.id,
    slug: model.slug,
    created_field_ids: created,
    renamed_from: renamedFrom,
    changed,
    diff,
  };
}
