// Your own operation overrides: a function in place of the generated insert of a model's create.
// Authentication, access rules, validation and private-column protection stay generated; see
// README "Customising". A model whose create is overridden cannot be created atomically with
// its relations (`with-relations` answers 501 atomic_create_unavailable).
import type { OperationOverrides } from "../src/overrides.ts";

/** Overrides by operation id, e.g. "Posts.create". */
export const overrides: OperationOverrides = {
  // Example:
  // "Posts.create": async ({ table, row, db }) =>
  //   await db.insertInto(table).values(row).returningAll().executeTakeFirstOrThrow(),
};
