// Contract of the backend access routes (spec 2 parts 2.3 and 5.3; Stave additions, 1.13.0):
// who may call each generated operation of a model, and saved queries a declarative route may
// serve. docs/backend-access.md describes both.
import { z } from "zod";
import {
  AUDIENCES,
  BACKEND_OPERATIONS,
  modelAccessInput,
} from "../../backend/access.ts";
import {
  createSavedQueryInput,
  updateSavedQueryInput,
} from "../../backend/saved_queries.ts";
import { operation } from "./operation.ts";

const rule = z.strictObject({
  audience: z.enum(AUDIENCES),
  roles: z.array(z.uuid()).describe("Only a session rule names roles"),
  stored: z.boolean().describe(
    "False: no rule is stored and the default (service) applies",
  ),
});

/** One model's access as answered. */
export const modelAccess = z.strictObject({
  model_id: z.uuid(),
  slug: z.string(),
  operations: z.strictObject(
    Object.fromEntries(BACKEND_OPERATIONS.map((op) => [op, rule])) as Record<
      typeof BACKEND_OPERATIONS[number],
      typeof rule
    >,
  ),
});

/** A saved query as answered. */
export const savedQuery = z.strictObject({
  id: z.uuid(),
  model_id: z.uuid(),
  name: z.string(),
  slug: z.string(),
  select: z.array(z.string()),
  filter: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])),
  order_by: z.array(z.strictObject({
    field: z.string(),
    direction: z.enum(["asc", "desc"]),
  })),
  take: z.int(),
  route: z.strictObject({
    path: z.string().describe("Where the generated backend serves it"),
    audience: z.enum(AUDIENCES),
    roles: z.array(z.uuid()),
  }).nullable(),
  revision: z.int(),
  created_at: z.string().describe("ISO 8601 time"),
  updated_at: z.string().describe("ISO 8601 time"),
});

const params = z.strictObject({ id: z.uuid() });
const TAG = "backend";

/** `GET /backend/access`. */
export const listBackendAccess = operation({
  name: "list-backend-access",
  description:
    "Each generated operation (`findMany`, `findManyPaginated`, `findUnique`, `create`, `update`, `delete`) admits `anonymous`, `session` (optionally members of named roles) or `service` callers; an operation without a stored rule admits `service` only.",
  method: "GET",
  path: "/backend/access",
  summary: "List who may call each generated-backend operation of every model",
  tag: TAG,
  scope: "schema:write",
  key: null,
  status: 200,
  answer: z.strictObject({ data: z.array(modelAccess) }),
});

/** `PUT /backend/access/{id}`. */
export const putBackendAccess = operation({
  name: "put-backend-access",
  description:
    "Replaces the model's rules: operations left out go back to `service`. Roles are named only by a `session` rule, each once, each a role of the site; a named role cannot be deleted.",
  method: "PUT",
  path: "/backend/access/{id}",
  summary: "Replace a model's generated-backend access rules",
  tag: TAG,
  scope: "schema:write",
  key: { retention: "short", settle: "rerun" },
  status: 200,
  params,
  body: modelAccessInput,
  answer: modelAccess,
});

/** `GET /saved-queries`. */
export const listSavedQueries = operation({
  name: "list-saved-queries",
  description:
    "A saved query names a model's columns, equality filters, order and page size; with a route the generated backend serves it at `route.path`.",
  method: "GET",
  path: "/saved-queries",
  summary: "List the site's saved queries by name",
  tag: TAG,
  scope: "schema:write",
  key: null,
  status: 200,
  answer: z.strictObject({ data: z.array(savedQuery) }),
});

/** `GET /saved-queries/{id}`. */
export const getSavedQuery = operation({
  name: "get-saved-query",
  method: "GET",
  path: "/saved-queries/{id}",
  summary: "Read one saved query",
  tag: TAG,
  scope: "schema:write",
  key: null,
  status: 200,
  params,
  answer: savedQuery,
});

const queryErrors = [
  "saved_query_invalid",
  "private_field_on_public_route",
  "saved_query_slug_taken",
] as const;

/** `POST /saved-queries`. */
export const createSavedQuery = operation({
  name: "create-saved-query",
  description:
    "A route open to `anonymous` callers is public: naming a private column (or a component holding one) in `select`, `filter` or `order_by` is refused `422 private_field_on_public_route`.",
  method: "POST",
  path: "/saved-queries",
  summary: "Create a saved query, optionally served on a route",
  tag: TAG,
  scope: "schema:write",
  key: { retention: "short", settle: "prove" },
  status: 201,
  body: createSavedQueryInput,
  answer: savedQuery,
  errors: [...queryErrors, "saved_query_limit"],
});

/** `PUT /saved-queries/{id}`. */
export const updateSavedQuery = operation({
  name: "update-saved-query",
  description:
    "Fields left out keep their values; the result is checked whole, as on create. `route: null` stops serving it.",
  method: "PUT",
  path: "/saved-queries/{id}",
  summary: "Change the fields named of a saved query",
  tag: TAG,
  scope: "schema:write",
  key: { retention: "short", settle: "rerun" },
  status: 200,
  params,
  body: updateSavedQueryInput,
  answer: savedQuery,
  errors: queryErrors,
});

/** `DELETE /saved-queries/{id}`. */
export const deleteSavedQuery = operation({
  name: "delete-saved-query",
  method: "DELETE",
  path: "/saved-queries/{id}",
  summary: "Delete a saved query and its route",
  tag: TAG,
  scope: "schema:write",
  key: { retention: "short", settle: "prove" },
  status: 200,
  params,
  answer: z.strictObject({ id: z.uuid(), deleted: z.literal(true) }),
});

/** Every backend access operation. */
export const BACKEND_OPERATIONS_CONTRACT = [
  listBackendAccess,
  putBackendAccess,
  listSavedQueries,
  getSavedQuery,
  createSavedQuery,
  updateSavedQuery,
  deleteSavedQuery,
] as const;
