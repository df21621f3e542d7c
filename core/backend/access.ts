// Who may call each generated-backend operation of a model (spec 2 part 5.3; the generated
// backend enforces it, GACC-001): an access rule per model and operation,
// `service` where none is stored. A session rule may name
// the roles its members must hold, and a named role cannot be deleted (SET-014).
import { z } from "zod";
import type { Clock } from "../clock.ts";
import type { Db } from "../db/database.ts";
import { jsonColumn } from "../db/json_column.ts";
import { loadModels, type StoredModel } from "../models/store_rows.ts";
import { UUID } from "../models/field_types.ts";

/** The generated operations of a model (spec 2 part 4.6). */
export const BACKEND_OPERATIONS = [
  "findMany",
  "findManyPaginated",
  "findUnique",
  "create",
  "update",
  "delete",
] as const;

/** One generated operation. */
export type BackendOperation = typeof BACKEND_OPERATIONS[number];

/** Who a rule admits: anyone, a signed-in member (of the named roles), or a service bearer. */
export const AUDIENCES = ["anonymous", "session", "service"] as const;

/** One audience. */
export type Audience = typeof AUDIENCES[number];

/** What a model without a stored rule admits (spec 2 part 5.3: a missing policy is `service`). */
export const DEFAULT_AUDIENCE: Audience = "service";

/** Roles one rule may name (ours; docs/backend-access.md). */
export const MAX_RULE_ROLES = 20;

/** An audience and, for `session`, the roles admitted (none named: every member). */
export const accessRuleInput = z.strictObject({
  audience: z.enum(AUDIENCES),
  roles: z.array(z.uuid()).max(MAX_RULE_ROLES).optional().describe(
    "Role ids; only with audience session (none: any signed-in member)",
  ),
});

/** The body of a model's access: operations left out admit `service` only. */
export const modelAccessInput = z.strictObject({
  operations: z.strictObject(
    Object.fromEntries(
      BACKEND_OPERATIONS.map((op) => [op, accessRuleInput.optional()]),
    ) as Record<BackendOperation, z.ZodOptional<typeof accessRuleInput>>,
  ),
});

/** A model's access as sent. */
export type ModelAccessInput = z.infer<typeof modelAccessInput>;

/** One operation's rule as answered; `stored: false` is the default. */
export interface AccessRule {
  audience: Audience;
  roles: string[];
  stored: boolean;
}

/** The access of one live model. */
export interface ModelAccess {
  model_id: string;
  slug: string;
  operations: Record<BackendOperation, AccessRule>;
}

/** What the access and saved-query services need. */
export interface BackendContext {
  db: Db;
  clock: Clock;
  siteId: string;
}

/** A problem with a named part of the input, as `{ path, message }`. */
export interface InputIssue {
  path: string;
  message: string;
}

/**
 * Ids of the roles of a site, share-locked: a role delete (which locks them for update) waits,
 * so it sees the rule naming the role, or the rule's write sees the role gone.
 */
export async function siteRoleIds(
  db: Db,
  siteId: string,
): Promise<Set<string>> {
  const rows = await db.selectFrom("roles").select("id")
    .where("site_id", "=", siteId).forShare().execute();
  return new Set(rows.map((r) => r.id));
}

/**
 * The problems of an audience with its roles: roles only for `session`, each once, each a role
 * of the site. `path` prefixes each issue (`operations.create`).
 */
export function audienceIssues(
  rule: { audience: Audience; roles?: string[] },
  roles: Set<string>,
  path: string,
): InputIssue[] {
  const named = rule.roles ?? [];
  if (named.length > 0 && rule.audience !== "session") {
    return [{
      path: `${path}.roles`,
      message: "Only a session audience names roles",
    }];
  }
  const issues: InputIssue[] = [];
  const seen = new Set<string>();
  named.forEach((id, i) => {
    const lower = id.toLowerCase();
    if (seen.has(lower)) {
      issues.push({ path: `${path}.roles.${i}`, message: "Named twice" });
    } else if (!roles.has(lower)) {
      issues.push({
        path: `${path}.roles.${i}`,
        message: `No role "${id}" on this site`,
      });
    }
    seen.add(lower);
  });
  return issues;
}

function defaultRules(): Record<BackendOperation, AccessRule> {
  return Object.fromEntries(
    BACKEND_OPERATIONS.map((op): [BackendOperation, AccessRule] => [op, {
      audience: DEFAULT_AUDIENCE,
      roles: [],
      stored: false,
    }]),
  ) as Record<BackendOperation, AccessRule>;
}

/** The access of every live model of the site (or of one), ordered by slug. */
export async function listModelAccess(
  ctx: Pick<BackendContext, "db" | "siteId">,
  modelId?: string,
): Promise<ModelAccess[]> {
  const models = await loadModels(
    ctx.db,
    ctx.siteId,
    modelId ? [modelId] : null,
  );
  return await accessOfModels(ctx, models);
}

/**
 * The access of models the caller has already loaded (the admin page reads their fields too),
 * ordered by slug.
 */
export async function accessOfModels(
  ctx: Pick<BackendContext, "db" | "siteId">,
  models: readonly Pick<StoredModel, "id" | "slug">[],
): Promise<ModelAccess[]> {
  if (models.length === 0) return [];
  const rows = await ctx.db.selectFrom("backend_access_rules").selectAll()
    .where("site_id", "=", ctx.siteId)
    .where("model_id", "in", models.map((m) => m.id)).execute();
  const bySlug = [...models].sort((a, b) => a.slug.localeCompare(b.slug));
  return bySlug.map((model) => {
    const operations = defaultRules();
    for (const row of rows) {
      if (row.model_id !== model.id) continue;
      operations[row.operation as BackendOperation] = {
        audience: row.audience as Audience,
        roles: jsonColumn<string[]>(row.role_ids),
        stored: true,
      };
    }
    return { model_id: model.id, slug: model.slug, operations };
  });
}

/** The answer of `putModelAccess`. */
export type PutModelAccessResult =
  | { ok: true; access: ModelAccess }
  | { ok: false; code: "not_found" }
  | { ok: false; code: "invalid_request"; issues: InputIssue[] };

/**
 * Replaces a model's access rules: the operations named get their rule, the others go back
 * to `service`; the change is audited with `actor`. The model's row is locked so two writers
 * cannot interleave their rules.
 */
export async function putModelAccess(
  ctx: BackendContext,
  modelId: string,
  input: ModelAccessInput,
  actor: unknown = null,
): Promise<PutModelAccessResult> {
  if (!UUID.test(modelId)) return { ok: false, code: "not_found" };
  const id = modelId.toLowerCase();
  return await ctx.db.transaction().execute(async (trx) => {
    const [model] = await loadModels(trx, ctx.siteId, [id], true);
    if (!model) return { ok: false, code: "not_found" } as const;
    const roles = await siteRoleIds(trx, ctx.siteId);
    const issues = BACKEND_OPERATIONS.flatMap((op) => {
      const rule = input.operations[op];
      return rule ? audienceIssues(rule, roles, `operations.${op}`) : [];
    });
    if (issues.length > 0) {
      return { ok: false, code: "invalid_request", issues } as const;
    }
    await trx.deleteFrom("backend_access_rules")
      .where("site_id", "=", ctx.siteId).where("model_id", "=", id).execute();
    const now = ctx.clock.now();
    const rows = BACKEND_OPERATIONS.flatMap((op) => {
      const rule = input.operations[op];
      return rule
        ? [{
          site_id: ctx.siteId,
          model_id: id,
          operation: op,
          audience: rule.audience,
          role_ids: JSON.stringify(
            (rule.roles ?? []).map((r) => r.toLowerCase()),
          ),
          updated_at: now,
        }]
        : [];
    });
    if (rows.length > 0) {
      await trx.insertInto("backend_access_rules").values(rows).execute();
    }
    const [access] = await listModelAccess(
      { db: trx, siteId: ctx.siteId },
      id,
    );
    // Who may call the backend is security configuration: each change is audited.
    await trx.insertInto("audit_entries").values({
      id: crypto.randomUUID(),
      site_id: ctx.siteId,
      actor: JSON.stringify(actor),
      action: "backend_access.update",
      target: JSON.stringify({ kind: "model", id }),
      details: JSON.stringify({ operations: access.operations }),
      created_at: now,
    }).execute();
    return { ok: true, access } as const;
  });
}

/** What names a role (SET-014): access rules and saved-query routes. */
export interface RoleUses {
  access_rules: { model_id: string; operation: string }[];
  saved_queries: { id: string; name: string }[];
}

/** The access rules and saved-query routes that name a role. */
export async function usesOfRole(
  db: Db,
  siteId: string,
  roleId: string,
): Promise<RoleUses> {
  const rules = (await db.selectFrom("backend_access_rules")
    .select(["model_id", "operation", "role_ids"])
    .where("site_id", "=", siteId).orderBy("model_id").orderBy("operation")
    .execute()).filter((r) =>
      jsonColumn<string[]>(r.role_ids).includes(roleId)
    );
  const queries = (await db.selectFrom("saved_queries")
    .select(["id", "name", "route_role_ids"]).where("site_id", "=", siteId)
    .orderBy("name").execute()).filter((q) =>
      jsonColumn<string[]>(q.route_role_ids).includes(roleId)
    );
  return {
    access_rules: rules.map((r) => ({
      model_id: r.model_id,
      operation: r.operation,
    })),
    saved_queries: queries.map((q) => ({ id: q.id, name: q.name })),
  };
}

/**
 * Removes a removed model's access rules, in the removal's transaction. Saved queries are
 * not touched: a model that still has any is refused `model_has_bound_queries` first.
 */
export async function forgetModel(
  db: Db,
  siteId: string,
  modelId: string,
): Promise<void> {
  await db.deleteFrom("backend_access_rules").where("site_id", "=", siteId)
    .where("model_id", "=", modelId).execute();
}
