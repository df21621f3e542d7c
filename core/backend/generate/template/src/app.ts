// Builds the HTTP app: the routes of every model, its translation table and junctions, the
// saved queries, the API description, and the protections that customisation cannot remove
// (authentication and access rules inside each route, error protection, the commit header).
import { Hono } from "hono";
import type { Gate } from "./access.ts";
import { type Adapters, crudRoutes, type RouteContext } from "./crud_routes.ts";
import type { CreateOverride } from "./overrides.ts";
import type { Db } from "./db.ts";
import { type ConstraintRefusals, protectErrors, refuse } from "./errors.ts";
import { resourcesOf } from "./resource.ts";
import { fileRoutes } from "./files.ts";
import { relationRoutes } from "./relations.ts";
import { savedQueryRoutes } from "./saved_queries.ts";
import type { BackendSchema } from "./schema.ts";

/** What the app is built from. */
export interface AppOptions {
  schema: BackendSchema;
  db: Db;
  gate: Gate;
  /** The generated OpenAPI description (already without disabled operations). */
  openapi: unknown;
  /** Answered as `x-artifact-commit` when set (ARTIFACT_COMMIT, else the generated one). */
  commit: string | null;
  /** The folder of private files (PRIVATE_FILES_DIR), or null when none is configured. */
  privateFiles?: string | null;
  /** What the database driver can do; both true unless your own database says otherwise. */
  adapters?: Adapters;
  /** Your create overrides by table (custom/operations.ts). */
  createOverrides?: ReadonlyMap<string, CreateOverride>;
  /** Your own routes, mounted after the generated ones; see README "Customising". */
  customise?: (app: Hono) => void;
}

/** The constraint names the migrations declared, with the refusal each stands for. */
export function constraintRefusals(schema: BackendSchema): ConstraintRefusals {
  const map: ConstraintRefusals = new Map();
  for (const model of schema.models) {
    if (model.single) {
      map.set(`${model.name}_single_entry`, {
        status: 409,
        code: "single_entry_exists",
        details: {},
      });
    }
    for (const column of model.columns) {
      if (column.kind !== "relation") continue;
      map.set(`${model.name}_${column.name}_fkey`, {
        status: 422,
        code: "relation_target_missing",
        details: { field: column.field },
      });
      map.set(`${model.name}_${column.name}_key`, {
        status: 409,
        code: "relation_target_taken",
        details: { field: column.field },
      });
    }
    if (model.translation) {
      map.set(`${model.translation.table}_lang_key`, {
        status: 409,
        code: "locale_exists",
        details: {},
      });
    }
    for (const list of model.lists) {
      for (const junction of list.junctions) {
        map.set(`${junction.table}_target_key`, {
          status: 409,
          code: "relation_target_taken",
          details: { field: list.field },
        });
      }
    }
  }
  return map;
}

/** The app serving `schema`. */
export function buildApp(options: AppOptions): Hono {
  const { schema, db, gate } = options;
  const app = new Hono();
  const commit = options.commit;
  if (commit) {
    app.use("*", async function artifactCommit(c, next) {
      await next();
      c.header("x-artifact-commit", commit);
    });
  }
  app.get("/health", (c) => c.json({ ok: true }));
  app.get("/api/openapi.json", async (c) => {
    const caller = await gate.callerOf(c);
    if (caller.kind === "anonymous") refuse(401, "unauthorized");
    if (!gate.isWildcard(caller)) refuse(403, "forbidden");
    return c.json(options.openapi);
  });
  const ctx: RouteContext = {
    db,
    gate,
    locales: schema.site.locales,
    adapters: options.adapters ?? { batch: true, spatial: true },
    createOverrides: options.createOverrides ?? new Map(),
  };
  app.route("/api/_queries", savedQueryRoutes(schema, ctx));
  for (const model of schema.models) {
    app.route(`/api/${model.name}`, relationRoutes(model, ctx));
    app.route(
      `/api/${model.name}`,
      fileRoutes(model, ctx, options.privateFiles ?? null),
    );
    for (const resource of resourcesOf(model)) {
      app.route(`/api/${resource.table}`, crudRoutes(resource, ctx));
    }
  }
  // After the generated routes, so a custom route cannot take the place of a guarded one.
  options.customise?.(app);
  app.notFound((c) => c.json({ code: "not_found" }, 404));
  app.onError(protectErrors(constraintRefusals(schema)));
  return app;
}
