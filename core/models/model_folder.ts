// Sets a model's navigation folder label: display only, so the revision stays as it is.
import { UUID } from "./field_types.ts";
import { recordModelWrite } from "./model_record.ts";
import { charLength } from "./problems.ts";
import { forgetModelsRead, type ModelContext } from "./store_rows.ts";

/** A folder label holds 1 to this many characters after trimming (spec 2 part 8). */
export const MAX_FOLDER_LENGTH = 40;

/** The answer of `setModelFolder` (spec 2 part 2.5, "Model navigation folder answer"). */
export type SetModelFolderResult =
  | { ok: true; model_id: string; slug: string; folder: string | null }
  | { ok: false; code: "not_found" }
  | { ok: false; code: "invalid_request"; path: "folder"; message: string };

/**
 * Files a model under a folder label, or unfiles it with null. Labels group without regard
 * to case, so a label matching another model's folder but for case takes that folder's
 * spelling. Neither the revision nor `updated_at` changes.
 */
export async function setModelFolder(
  ctx: ModelContext,
  modelId: string,
  folder: string | null,
): Promise<SetModelFolderResult> {
  let label: string | null = null;
  if (folder !== null) {
    label = folder.trim();
    const length = charLength(label);
    if (length < 1 || length > MAX_FOLDER_LENGTH) {
      return {
        ok: false,
        code: "invalid_request",
        path: "folder",
        message:
          `A folder label holds 1 to ${MAX_FOLDER_LENGTH} characters after trimming, got ${length}`,
      };
    }
  }
  if (!UUID.test(modelId)) return { ok: false, code: "not_found" };
  const id = modelId.toLowerCase();
  return await ctx.db.transaction().execute(async (trx) => {
    if (label !== null) {
      const lower = label.toLowerCase();
      const same = await trx.selectFrom("models").select("folder")
        .where("site_id", "=", ctx.siteId).where("deleted_at", "is", null)
        .where("id", "!=", id)
        .where((eb) => eb(eb.fn("lower", ["folder"]), "=", lower))
        .orderBy("created_at").limit(1).executeTakeFirst();
      label = same?.folder ?? label;
    }
    forgetModelsRead(trx);
    const row = await trx.updateTable("models").set({ folder: label })
      .where("site_id", "=", ctx.siteId).where("id", "=", id)
      .where("deleted_at", "is", null)
      .returning(["id", "slug", "folder", "revision"]).executeTakeFirst();
    if (!row) return { ok: false, code: "not_found" } as const;
    const answer = { model_id: row.id, slug: row.slug, folder: row.folder };
    await recordModelWrite(trx, ctx, {
      action: "model.folder",
      modelId: row.id,
      revision: row.revision,
      answer,
    });
    return { ok: true, ...answer } as const;
  });
}
