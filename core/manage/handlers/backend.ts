// Handlers of the backend access routes: access rules per model and operation, and saved
// queries (core/backend), for a credential whose creator may apply models.
import {
  type InputIssue,
  listModelAccess,
  putModelAccess,
} from "../../backend/access.ts";
import {
  createSavedQuery as insertSavedQuery,
  deleteSavedQuery as removeSavedQuery,
  findSavedQueryRecord,
  getSavedQuery as readSavedQuery,
  listSavedQueries as readSavedQueries,
  type SavedQueryRecord,
  type SavedQueryRefusal,
  updateSavedQuery as changeSavedQuery,
} from "../../backend/saved_queries.ts";
import { refuse } from "../../web/errors.ts";
import * as contract from "../contract/backend.ts";
import { defineHandler, type ManageContext } from "../handler.ts";
import { requireAllowed } from "./require.ts";

function backendContext(ctx: ManageContext) {
  const { db, clock } = ctx.services;
  return { db, clock, siteId: ctx.site.id };
}

function recordOf(ctx: ManageContext): SavedQueryRecord | undefined {
  return ctx.keyDigest
    ? { actor: ctx.actor, keyDigest: ctx.keyDigest }
    : undefined;
}

function refuseIssues(
  code: "invalid_request" | "saved_query_invalid",
  issues: InputIssue[],
): never {
  const named = issues.map((i) => ({ ...i, path: `body.${i.path}` }));
  return refuse(
    code === "invalid_request" ? 400 : 422,
    code,
    `Invalid ${named[0].path}: ${named[0].message}`,
    { issues: named },
  );
}

function refuseQuery(refusal: SavedQueryRefusal, id?: string): never {
  switch (refusal.code) {
    case "not_found":
      return refuse(404, "not_found", `No saved query "${id}" on this site`);
    case "invalid_request":
    case "saved_query_invalid":
      return refuseIssues(refusal.code, refusal.issues);
    case "private_field_on_public_route":
      return refuse(
        422,
        "private_field_on_public_route",
        `A public route cannot serve private columns: ${
          refusal.fields.join(", ")
        }`,
        { fields: refusal.fields },
      );
    case "saved_query_slug_taken":
      return refuse(
        409,
        "saved_query_slug_taken",
        `Another saved query of the site has slug "${refusal.slug}"`,
        { slug: refusal.slug },
      );
    case "saved_query_limit":
      return refuse(
        422,
        "saved_query_limit",
        `A site keeps at most ${refusal.limit} saved queries`,
        { limit: refusal.limit },
      );
  }
}

/** `list-backend-access`. */
export const listBackendAccess = defineHandler(contract.listBackendAccess, {
  async run(ctx) {
    requireAllowed(ctx, { action: "models.write" });
    return { body: { data: await listModelAccess(backendContext(ctx)) } };
  },
});

/** `put-backend-access`: operations left out go back to `service`. */
export const putBackendAccess = defineHandler(contract.putBackendAccess, {
  async run(ctx, { params, body }) {
    requireAllowed(ctx, { action: "models.write" });
    const result = await putModelAccess(
      backendContext(ctx),
      params.id,
      body,
      ctx.actor,
    );
    if (result.ok) return { body: result.access };
    if (result.code === "not_found") {
      refuse(404, "not_found", `No model "${params.id}" on this site`);
    }
    return refuseIssues("invalid_request", result.issues);
  },
});

/** `list-saved-queries`. */
export const listSavedQueries = defineHandler(contract.listSavedQueries, {
  async run(ctx) {
    requireAllowed(ctx, { action: "models.write" });
    return { body: { data: await readSavedQueries(backendContext(ctx)) } };
  },
});

/** `get-saved-query`. */
export const getSavedQuery = defineHandler(contract.getSavedQuery, {
  async run(ctx, { params }) {
    requireAllowed(ctx, { action: "models.write" });
    const query = await readSavedQuery(backendContext(ctx), params.id);
    if (!query) refuseQuery({ ok: false, code: "not_found" }, params.id);
    return { body: query };
  },
});

/** `create-saved-query`: a public route never serves a private column (MOD-031). */
export const createSavedQuery = defineHandler(contract.createSavedQuery, {
  async run(ctx, { body }) {
    requireAllowed(ctx, { action: "models.write" });
    const result = await insertSavedQuery(
      backendContext(ctx),
      body,
      recordOf(ctx),
    );
    if (!result.ok) refuseQuery(result);
    return { body: result.query };
  },
  // MAPI-014: created with its record in one transaction; a lost answer is proved from it.
  async prove(ctx) {
    if (!ctx.keyDigest) return null;
    const query = await findSavedQueryRecord(
      ctx.services.db,
      ctx.site.id,
      "saved_query.create",
      ctx.keyDigest,
    );
    return query ? { body: query } : null;
  },
});

/** `update-saved-query`: the fields named change; the result is checked whole. */
export const updateSavedQuery = defineHandler(contract.updateSavedQuery, {
  async run(ctx, { params, body }) {
    requireAllowed(ctx, { action: "models.write" });
    const result = await changeSavedQuery(
      backendContext(ctx),
      params.id,
      body,
      recordOf(ctx),
    );
    if (!result.ok) refuseQuery(result, params.id);
    return { body: result.query };
  },
});

/** `delete-saved-query`. */
export const deleteSavedQuery = defineHandler(contract.deleteSavedQuery, {
  async run(ctx, { params }) {
    requireAllowed(ctx, { action: "models.write" });
    const result = await removeSavedQuery(
      backendContext(ctx),
      params.id,
      recordOf(ctx),
    );
    if (!result.ok) refuseQuery(result, params.id);
    return { body: { id: result.query.id, deleted: true as const } };
  },
  async prove(ctx) {
    if (!ctx.keyDigest) return null;
    const query = await findSavedQueryRecord(
      ctx.services.db,
      ctx.site.id,
      "saved_query.delete",
      ctx.keyDigest,
    );
    return query ? { body: { id: query.id, deleted: true as const } } : null;
  },
});
