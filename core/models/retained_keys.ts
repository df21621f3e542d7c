// Lists the key paths a model has ever given its fields, for the areas that keep old versions.
import type { RetainedKey } from "./change_safety.ts";
import { UUID } from "./field_types.ts";
import { loadRetainedKeys, type ModelContext } from "./store_rows.ts";

/**
 * Every key path (`title`, `seo.meta_title`) the model has given a field, with that field's
 * id and type at the time; a key given to two fields in turn is listed twice.
 */
export async function listRetainedKeys(
  ctx: ModelContext,
  modelId: string,
): Promise<RetainedKey[]> {
  if (!UUID.test(modelId)) return [];
  return await loadRetainedKeys(ctx.db, ctx.siteId, modelId.toLowerCase());
}
