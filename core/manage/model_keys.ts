// A model named by its api key ("posts") where the Management API takes a model_id: resolved to its id before parsing.
import type { Db } from "../db/database.ts";
import { MODEL_SLUG } from "../models/definition.ts";
import { refuse } from "../web/errors.ts";
import type { AnyOperation } from "./contract/mod.ts";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Whether `schema` is the contract's model reference (itself or a described copy: meta carries over). */
function namesModel(schema: unknown): boolean {
  const meta = (schema as { meta?: () => Record<string, unknown> | undefined })
    ?.meta?.();
  return meta?.["x-model-ref"] === true;
}

/**
 * Replaces an api key given as `model_id` (in the query or at the top of the body, where the
 * operation declares a model reference) by that model's id on `siteId`. An id passes unread;
 * an api key no model of the site has is `404 not_found`, as an unknown id is. Anything else
 * is left for the schema to refuse with `invalid_request`.
 */
export async function resolveModelKeys(
  db: Db,
  siteId: string,
  operation: AnyOperation,
  input: { query: Record<string, unknown>; body: unknown },
): Promise<void> {
  const holders: Record<string, unknown>[] = [];
  if (namesModel(operation.query.shape.model_id)) holders.push(input.query);
  const body = input.body;
  if (
    operation.body && namesModel(operation.body.shape.model_id) &&
    typeof body === "object" && body !== null && !Array.isArray(body)
  ) holders.push(body as Record<string, unknown>);
  for (const holder of holders) {
    const value = holder.model_id;
    if (
      typeof value !== "string" || UUID.test(value) || !MODEL_SLUG.test(value)
    ) continue;
    const found = await db.selectFrom("models").select("id")
      .where("site_id", "=", siteId).where("slug", "=", value)
      .executeTakeFirst();
    if (!found) {
      refuse(
        404,
        "not_found",
        `No model with id or api key "${value}" on this site: list-models answers both`,
      );
    }
    holder.model_id = found.id;
  }
}
