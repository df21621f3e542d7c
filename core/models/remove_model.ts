// Removes a model that holds no content, after the caller confirms it by naming its id again.
import type { Db } from "../db/database.ts";
import type { ContentFacts } from "./change_safety.ts";
import { walkFields } from "./definition.ts";
import { UUID } from "./field_types.ts";
import {
  loadModels,
  type ModelContext,
  type StoredModel,
} from "./store_rows.ts";

/** Options of `removeModel`. */
export interface RemoveModelOptions {
  baseRevision: number;
  /** The model id again (`confirm`); anything else is refused. */
  confirm: string;
  facts: (db: Db, model: StoredModel) => ContentFacts;
}

/** A relation field of another model that names the removed model as a target. */
export interface RelationDependent {
  model_id: string;
  slug: string;
  field: string;
}

/** The answer of `removeModel`. */
export type RemoveModelResult =
  | {
    ok: true;
    model_id: string;
    slug: string;
    relation_dependents: RelationDependent[];
  }
  | { ok: false; code: "not_found" }
  | { ok: false; code: "invalid_request"; path: "confirm"; message: string }
  | {
    ok: false;
    code: "model_changed";
    current_revision: number;
    current_updated_at: string;
  }
  | { ok: false; code: "model_not_empty"; affected_count: number };

/**
 * Removes a model holding no entries (Trash counts). The row is kept, marked deleted, so its
 * slug and name are free again. Relation fields of other models naming it are listed for
 * the caller to settle; they are not changed here.
 */
export async function removeModel(
  ctx: ModelContext,
  modelId: string,
  options: RemoveModelOptions,
): Promise<RemoveModelResult> {
  if (!UUID.test(modelId)) return { ok: false, code: "not_found" };
  const id = modelId.toLowerCase();
  if (options.confirm.toLowerCase() !== id) {
    return {
      ok: false,
      code: "invalid_request",
      path: "confirm",
      message: `Expected confirm to repeat the model id "${id}"`,
    };
  }
  return await ctx.db.transaction().execute(async (trx) => {
    const [model] = await loadModels(trx, ctx.siteId, [id], true);
    if (!model) return { ok: false, code: "not_found" } as const;
    if (model.revision !== options.baseRevision) {
      return {
        ok: false,
        code: "model_changed",
        current_revision: model.revision,
        current_updated_at: model.updatedAt.toISOString(),
      } as const;
    }
    const entries = await options.facts(trx, model).countEntries();
    if (entries > 0) {
      return {
        ok: false,
        code: "model_not_empty",
        affected_count: entries,
      } as const;
    }
    const now = ctx.clock.now();
    await trx.updateTable("models").set({ deleted_at: now, updated_at: now })
      .where("site_id", "=", ctx.siteId).where("id", "=", id).execute();
    const dependents: RelationDependent[] = [];
    for (const other of await loadModels(trx, ctx.siteId, null)) {
      walkFields(other.fields, (field, path) => {
        if (field.type === "relation" && field.config.targets.includes(id)) {
          dependents.push({
            model_id: other.id,
            slug: other.slug,
            field: path,
          });
        }
      });
    }
    return {
      ok: true,
      model_id: id,
      slug: model.slug,
      relation_dependents: dependents,
    } as const;
  });
}
