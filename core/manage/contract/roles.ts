// Contract of the role routes: list, read, create, change and delete the site's roles.
import { z } from "zod";
import { permissionsSchema } from "../../access/permissions.ts";
import { operation } from "./operation.ts";

/**
 * A role permission document. The route checks it (every problem answered as a reason of
 * `400 invalid_permissions`), so the contract states its closed shape as documentation only.
 */
const permissionsDocument = z.looseObject({}).meta({
  description:
    "models (model id or * -> actions), system, optional fields (read/write limits) and languages (per action)",
  ...(({ $schema: _, ...rest }) => rest)(
    z.toJSONSchema(permissionsSchema, {
      target: "draft-2020-12",
      unrepresentable: "any",
    }) as Record<string, unknown>,
  ),
});

/** A role as answered (spec 2 part 2.5, SET-010). */
export const role = z.strictObject({
  id: z.uuid(),
  name: z.string(),
  permissions: permissionsSchema.describe("The normalised permission document"),
  seeded: z.boolean().describe("Seeded roles can be changed, never deleted"),
  created_at: z.string().describe("ISO 8601 time"),
});

const params = z.strictObject({ id: z.uuid() });
const roleName = z.string().describe("1 to 80 characters after trimming");

/** `GET /roles`. */
export const listRoles = operation({
  name: "list-roles",
  description:
    "Roles grant permissions to people; a credential acts with its creator's permissions narrowed by its scopes.",
  method: "GET",
  path: "/roles",
  summary: "List the site's roles, oldest first",
  tag: "roles",
  scope: "roles:write",
  key: null,
  status: 200,
  answer: z.strictObject({ data: z.array(role) }),
});

/** `GET /roles/{id}`. */
export const getRole = operation({
  name: "get-role",
  description:
    "The role with its permissions by model, field, language and system area.",
  method: "GET",
  path: "/roles/{id}",
  summary: "Read one role",
  tag: "roles",
  scope: "roles:write",
  key: null,
  status: 200,
  params,
  answer: role,
});

/** `POST /roles`. */
export const createRole = operation({
  name: "create-role",
  description: "The credential cannot grant more than its creator holds now.",
  method: "POST",
  path: "/roles",
  summary:
    "Create a role; its permissions must stay within the credential's own",
  tag: "roles",
  scope: "roles:write",
  key: { retention: "short", settle: "prove" },
  status: 201,
  body: z.strictObject({ name: roleName, permissions: permissionsDocument }),
  answer: role,
  errors: ["invalid_permissions", "escalation_refused", "role_name_taken"],
});

/** `PUT /roles/{id}`. */
export const updateRole = operation({
  name: "update-role",
  description:
    "Fields left out keep their values. `permissions`, when sent, replaces the whole set.",
  method: "PUT",
  path: "/roles/{id}",
  summary:
    "Change only the fields named; permissions replaces the whole set and must stay within the credential's own",
  tag: "roles",
  scope: "roles:write",
  key: { retention: "short", settle: "rerun" },
  status: 200,
  params,
  body: z.strictObject({
    name: roleName.optional(),
    permissions: permissionsDocument.optional(),
  }),
  answer: role,
  errors: ["invalid_permissions", "escalation_refused", "role_name_taken"],
});

/** `DELETE /roles/{id}`. */
export const deleteRole = operation({
  name: "delete-role",
  description:
    "A role still held by a person is refused, as are the seeded roles, the last role that grants `role:manage`, and a role a backend access rule or saved-query route names.",
  method: "DELETE",
  path: "/roles/{id}",
  summary:
    "Delete a role nobody holds; seeded roles and the last role granting role:manage stay",
  tag: "roles",
  scope: "roles:write",
  key: { retention: "short", settle: "prove" },
  status: 200,
  params,
  answer: z.strictObject({ id: z.uuid(), deleted: z.literal(true) }),
  errors: [
    "role_seeded",
    "role_in_use",
    "role_last_access_granter",
    "role_in_access_rule",
  ],
});

/** Every role operation. */
export const ROLE_OPERATIONS = [
  listRoles,
  getRole,
  createRole,
  updateRole,
  deleteRole,
] as const;
