// Operation overrides: your own function in place of the generated database write of a model's
// create (custom/operations.ts). The generated route still authenticates the caller, applies
// the access rule, validates `data` and leaves private columns out of the answer; the override
// only replaces the insert. An atomic create with relations cannot run your function inside its
// transaction, so a model whose create is overridden answers `with-relations` with
// `501 atomic_create_unavailable`.
import type { Db } from "./db.ts";
import type { BackendSchema } from "./schema.ts";

/** What a create override is given: the checked row (with its `id`) and the database. */
export interface CreateInput {
  table: string;
  row: Record<string, unknown>;
  db: Db;
}

/** Writes the row your way and answers it as stored. */
export type CreateOverride = (
  input: CreateInput,
) => Promise<Record<string, unknown>>;

/** Overrides by operation id, e.g. `{ "Article.create": async ({ row, db }) => ... }`. */
export type OperationOverrides = Record<string, CreateOverride>;

/** An override naming no create operation of this backend. */
export class OverrideError extends Error {}

/**
 * The overrides by table name. Only `<Label>.create` of a generated model may be overridden;
 * anything else refuses the start, so a typo never leaves the generated write in place unseen.
 */
export function createOverridesOf(
  overrides: OperationOverrides,
  schema: BackendSchema,
): Map<string, CreateOverride> {
  const out = new Map<string, CreateOverride>();
  for (const [id, fn] of Object.entries(overrides)) {
    const model = schema.models.find((m) => `${m.label}.create` === id);
    if (!model || typeof fn !== "function") {
      throw new OverrideError(
        `"${id}" is not the create operation of a model of this backend`,
      );
    }
    out.set(model.name, fn);
  }
  return out;
}
