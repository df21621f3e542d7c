// Finds the model an admin URL names by its slug, readable by the person.
import { readReach } from "../access/decide.ts";
import { listModels } from "../models/model_reads.ts";
import type { StoredModel } from "../models/store_rows.ts";
import { refuse } from "../web/errors.ts";
import type { AdminContext } from "./context.ts";

/** The live model with this slug, or 404 (also when the person may read none of its entries). */
export async function modelBySlug(
  ctx: AdminContext,
  slug: string,
): Promise<StoredModel> {
  const { db, clock } = ctx.services;
  const models = await listModels({ db, clock, siteId: ctx.site.id });
  const model = models.find((m) => m.slug === slug);
  if (!model || readReach(ctx.authority, model.id) === "none") {
    return refuse(404, "not_found", `No model "${slug}" you can open here`);
  }
  return model;
}
