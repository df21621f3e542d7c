// The models a public caller may read: every public model, plus private ones a valid token names.
import type { Db } from "../db/database.ts";
import { listModels } from "../models/model_reads.ts";
import type { StoredModel } from "../models/store_rows.ts";

/** Live models of the site readable with `tokenModelIds` (empty without a token). */
export async function modelsInScope(
  db: Db,
  siteId: string,
  tokenModelIds: readonly string[],
): Promise<StoredModel[]> {
  const all = await listModels({
    db,
    siteId,
    clock: { now: () => new Date() },
  });
  return all.filter((m) => m.isPublic || tokenModelIds.includes(m.id));
}
