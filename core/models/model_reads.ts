// Reads the live models of a site: one by id, or all grouped by folder.
import { UUID } from "./field_types.ts";
import {
  loadModelOnce,
  loadModels,
  type ModelContext,
  type StoredModel,
} from "./store_rows.ts";

/** No live model with that id on this site. */
export type ModelNotFound = { ok: false; code: "not_found" };

const NOT_FOUND: ModelNotFound = { ok: false, code: "not_found" };

/** Reads one live model of the site. */
export async function getModel(
  ctx: ModelContext,
  modelId: string,
): Promise<{ ok: true; model: StoredModel } | ModelNotFound> {
  if (!UUID.test(modelId)) return NOT_FOUND;
  const [model] = await loadModels(ctx.db, ctx.siteId, [modelId.toLowerCase()]);
  return model ? { ok: true, model } : NOT_FOUND;
}

/**
 * {@linkcode getModel} for the steps of one entry command: inside a transaction the model is
 * read once and every later step gets the same one.
 */
export async function getModelOnce(
  ctx: ModelContext,
  modelId: string,
): Promise<{ ok: true; model: StoredModel } | ModelNotFound> {
  if (!UUID.test(modelId)) return NOT_FOUND;
  const model = await loadModelOnce(ctx.db, ctx.siteId, modelId.toLowerCase());
  return model ? { ok: true, model } : NOT_FOUND;
}

/** Lists the site's live models, grouped by folder ignoring case (unfiled last), then by name. */
export async function listModels(ctx: ModelContext): Promise<StoredModel[]> {
  const models = await loadModels(ctx.db, ctx.siteId, null);
  const sortKey = (m: StoredModel) =>
    [
      m.folder === null ? 1 : 0,
      m.folder?.toLowerCase() ?? "",
      m.name.toLowerCase(),
    ] as const;
  return models.sort((a, b) => {
    const [x, y] = [sortKey(a), sortKey(b)];
    return x[0] - y[0] || x[1].localeCompare(y[1]) || x[2].localeCompare(y[2]);
  });
}
