// Removes a model that holds no content, after the caller confirms it by naming its id again.
import type { Db } from "../db/database.ts";
import { jsonColumn } from "../db/json_column.ts";
import { forgetModel } from "../backend/access.ts";
import { pruneModelFromReadTokens } from "../backend/read_tokens.ts";
import type { ContentFacts } from "./change_safety.ts";
import { walkFields } from "./definition.ts";
import { UUID } from "./field_types.ts";
import { recordModelWrite, removedAnswer } from "./model_record.ts";
import {
  forgetModelsRead,
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
  | { ok: false; code: "model_not_empty"; affected_count: number }
  | { ok: false; code: "stale_role_grant"; roles: NamedGrant[] }
  | { ok: false; code: "model_has_bound_queries"; saved_queries: NamedGrant[] }
  | {
    ok: false;
    code: "stale_token_scope";
    credentials: NamedGrant[];
    site_tokens: NamedGrant[];
  };

/** A role, credential or token that names the model. */
export interface NamedGrant {
  id: string;
  name: string;
}

/**
 * What still names the model (MOD-017): roles granting on it by id, and management
 * credentials and public site tokens limited to it. A wildcard grant names no model.
 */
async function grantsNaming(
  db: Db,
  siteId: string,
  modelId: string,
  now: Date,
): Promise<
  { roles: NamedGrant[]; credentials: NamedGrant[]; site_tokens: NamedGrant[] }
> {
  const roles =
    (await db.selectFrom("roles").select(["id", "name", "permissions"])
      .where("site_id", "=", siteId).execute()).filter((r) => {
        const models = jsonColumn<{ models?: object } | null>(r.permissions)
          ?.models;
        return models !== undefined && Object.hasOwn(models, modelId);
      });
  const credentials = (await db.selectFrom("management_credentials")
    .select(["id", "name", "models"]).where("site_id", "=", siteId)
    .where("revoked_at", "is", null).execute()).filter((c) => {
      const models = jsonColumn(c.models);
      return Array.isArray(models) && models.includes(modelId);
    });
  const tokens = (await db.selectFrom("site_api_tokens")
    .select(["id", "name", "model_ids", "expires_at"])
    .where("site_id", "=", siteId).where("revoked_at", "is", null).execute())
    .filter((t) => {
      const models = jsonColumn(t.model_ids);
      return (t.expires_at === null || t.expires_at > now) &&
        Array.isArray(models) && models.includes(modelId);
    });
  const named = (r: { id: string; name: string }) => ({
    id: r.id,
    name: r.name,
  });
  return {
    roles: roles.map(named),
    credentials: credentials.map(named),
    site_tokens: tokens.map(named),
  };
}

/**
 * Removes a model holding no entries (Trash counts) that no role grants on by id, no
 * credential or site token is limited to (`stale_role_grant`, `stale_token_scope`) and no
 * saved query is bound to (`model_has_bound_queries`): settle those first, so nothing a
 * caller named outlives its model. Its access rules go with it. The row is kept, marked
 * deleted, so its slug and name are free again. Relation fields of other models naming it
 * are listed for the caller to settle; they are not changed here.
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
    const grants = await grantsNaming(trx, ctx.siteId, id, now);
    if (grants.roles.length > 0) {
      return {
        ok: false,
        code: "stale_role_grant",
        roles: grants.roles,
      } as const;
    }
    if (grants.credentials.length > 0 || grants.site_tokens.length > 0) {
      return {
        ok: false,
        code: "stale_token_scope",
        credentials: grants.credentials,
        site_tokens: grants.site_tokens,
      } as const;
    }
    // MOD-012: a saved query is a named, routable object callers rely on; removing the
    // model must not delete it behind their back (the model row lock keeps new ones out).
    const queries = await trx.selectFrom("saved_queries")
      .select(["id", "name"]).where("site_id", "=", ctx.siteId)
      .where("model_id", "=", id).orderBy("name").orderBy("id").execute();
    if (queries.length > 0) {
      return {
        ok: false,
        code: "model_has_bound_queries",
        saved_queries: queries.map((q) => ({ id: q.id, name: q.name })),
      } as const;
    }
    forgetModelsRead(trx);
    await trx.updateTable("models").set({ deleted_at: now, updated_at: now })
      .where("site_id", "=", ctx.siteId).where("id", "=", id).execute();
    // Its backend access rules describe only this model and nothing names them: they go with it.
    await forgetModel(trx, ctx.siteId, id);
    // Deployed read tokens name it by id: it leaves their scopes (GACC-013).
    await pruneModelFromReadTokens(trx, ctx.siteId, id, now);
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
    await recordModelWrite(trx, ctx, {
      action: "model.remove",
      modelId: id,
      revision: null,
      answer: removedAnswer(id, model.slug),
    });
    return {
      ok: true,
      model_id: id,
      slug: model.slug,
      relation_dependents: dependents,
    } as const;
  });
}
