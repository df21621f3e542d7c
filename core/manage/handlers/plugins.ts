// Handlers of the Management API's plugin routes (spec 2 parts 2.5, 4.3; MPL-001 to MPL-013):
// listings of what this credential may use now, launch links, and operation runs.
import { decide } from "../../access/decide.ts";
import type { Authority } from "../../access/authority.ts";
import type { Db } from "../../db/database.ts";
import { isPageField } from "../../models/validate_values.ts";
import { pluginCallOf } from "../../plugins/calls.ts";
import { createLaunch, type LaunchRequest } from "../../plugins/delegations.ts";
import {
  type Installation,
  installationOf,
  listInstallationRows,
} from "../../plugins/installation_store.ts";
import {
  checkInvocation,
  delegatedCapabilities,
  invokeOperation,
  operationAvailable,
  withinScopes,
} from "../../plugins/invocations.ts";
import type { ManifestOperation } from "../../plugins/manifest.ts";
import { pluginToolName, pluginTools } from "../mcp/plugin_tools.ts";
import { refuse } from "../../web/errors.ts";
import * as contract from "../contract/plugins.ts";
import { defineHandler, type ManageContext } from "../handler.ts";

type McpTool = { name: string | null; omitted_because: string | null };

/** The JSON Schema of an operation's closed input. */
function inputSchema(op: ManifestOperation): Record<string, unknown> {
  const properties: Record<string, unknown> = {};
  for (const f of op.input) {
    const base: Record<string, unknown> = { title: f.label };
    switch (f.type) {
      case "number":
        Object.assign(base, {
          type: "number",
          ...(f.min !== undefined ? { minimum: f.min } : {}),
          ...(f.max !== undefined ? { maximum: f.max } : {}),
        });
        break;
      case "boolean":
        base.type = "boolean";
        break;
      case "select":
        Object.assign(base, {
          type: "string",
          enum: f.options!.map((o) => o.value),
        });
        break;
      case "datetime":
        Object.assign(base, { type: "string", format: "date-time" });
        break;
      default:
        Object.assign(base, {
          type: "string",
          ...(f.max_length !== undefined ? { maxLength: f.max_length } : {}),
        });
    }
    properties[f.name] = base;
  }
  return {
    type: "object",
    properties,
    required: op.input.filter((f) => f.required).map((f) => f.name),
    additionalProperties: false,
  };
}

async function pageModels(db: Db, siteId: string): Promise<Set<string>> {
  const rows = await db.selectFrom("model_fields").select([
    "model_id",
    "key",
    "type",
    "config",
  ]).where("site_id", "=", siteId).execute();
  return new Set(
    rows.filter((r) => isPageField(r as never)).map((r) => r.model_id),
  );
}

/** The granted models the caller reads now, inside the credential's models. */
function readableModels(
  authority: Authority,
  installation: Installation,
): string[] {
  return installation.modelIds.filter((model) =>
    decide(authority, { action: "plugins.launch", model }).ok
  );
}

/** Every listing entry of the site for this credential (active and disabled installations). */
async function listings(ctx: ManageContext) {
  const { db } = ctx.services;
  const authority = ctx.authority;
  const pages = await pageModels(db, ctx.site.id);
  const rows = (await listInstallationRows(db, ctx.site.id)).map(
    installationOf,
  ).filter((i) => i.state === "active" || i.state === "disabled");
  const plugins = rows.map((installation) => {
    const active = installation.state === "active";
    const readable = active ? readableModels(authority, installation) : [];
    const views = readable.length > 0 ? installation.manifest.manage_views : [];
    const actions = readable.length > 0
      ? installation.manifest.content_actions.map((a) => ({
        ...a,
        model_ids: a.scope === "page"
          ? readable.filter((m) => pages.has(m))
          : readable,
      })).filter((a) => a.model_ids.length > 0)
      : [];
    const operations = active
      ? installation.manifest.operations.flatMap((op) => {
        if (
          !operationAvailable(installation, op) ||
          !withinScopes(op, authority.scopes)
        ) return [];
        if (op.scope === "site") {
          return decide(authority, { action: "plugins.site_operation" }).ok
            ? [{ op, model_ids: [] as string[] }]
            : [];
        }
        const models = readable.filter((model) =>
          (op.scope !== "page" || pages.has(model)) &&
          (!op.destructive ||
            decide(authority, {
              action: "plugins.entry_operation_destructive",
              model,
            }).ok)
        );
        return models.length > 0 ? [{ op, model_ids: models }] : [];
      })
      : [];
    return { installation, views, actions, operations };
  });
  // Tool names are judged over the whole listing, as the MCP endpoint lists them.
  const { omitted } = pluginTools(plugins.map((p) => ({
    id: p.installation.pluginId,
    state: p.installation.state === "active" ? "active" : "disabled",
    manage_views: p.views,
    content_actions: p.actions,
    operations: p.operations.map(({ op }) => ({
      id: op.id,
      automation_only: op.audience === "automation",
    })),
  })));
  const tool = (
    pluginId: string,
    kind: "view" | "action" | "op",
    id: string,
    automation = false,
  ): McpTool => {
    if (automation) {
      return { name: null, omitted_because: "automation_only" };
    }
    const left = omitted.find((o) =>
      o.pluginId === pluginId && o.kind === kind && o.itemId === id
    );
    return left
      ? { name: null, omitted_because: left.omitted_because }
      : { name: pluginToolName(pluginId, kind, id), omitted_because: null };
  };
  return plugins.map(({ installation, views, actions, operations }) => {
    const base = {
      installation_id: installation.id,
      plugin_id: installation.pluginId,
    };
    return {
      id: installation.id,
      plugin_id: installation.pluginId,
      name: installation.name,
      version: installation.version,
      state: installation.state as "active" | "disabled",
      launchable: views.length + actions.length > 0,
      manage_views: views.map((v) => ({
        ...base,
        id: v.id,
        label: v.label,
        mcp_tool: tool(installation.pluginId, "view", v.id),
      })),
      content_actions: actions.map((a) => ({
        ...base,
        id: a.id,
        label: a.label,
        scope: a.scope,
        model_ids: a.model_ids,
        mcp_tool: tool(installation.pluginId, "action", a.id),
      })),
      operations: operations.map(({ op, model_ids }) => ({
        ...base,
        id: op.id,
        label: op.label,
        description: op.description ?? null,
        scope: op.scope,
        audience: op.audience,
        destructive: op.destructive,
        list_action: op.list_action,
        input: op.input,
        input_schema: inputSchema(op),
        result: op.result,
        model_ids,
        mcp_tool: tool(
          installation.pluginId,
          "op",
          op.id,
          op.audience === "automation",
        ),
      })),
      policies: installation.state === "active"
        ? installation.manifest.policies.map((p) => ({
          id: p.id,
          label: p.label,
          kind: p.kind,
          mode: p.mode,
        }))
        : [],
    };
  });
}

/** `list-plugins`. */
export const listPlugins = defineHandler(contract.listPlugins, {
  async run(ctx) {
    return { body: { data: await listings(ctx) } };
  },
});

/** `list-plugin-manage-views`. */
export const listPluginManageViews = defineHandler(
  contract.listPluginManageViews,
  {
    async run(ctx) {
      const data = (await listings(ctx)).flatMap((p) => p.manage_views);
      return { body: { data } };
    },
  },
);

/** `list-plugin-content-actions`. */
export const listPluginContentActions = defineHandler(
  contract.listPluginContentActions,
  {
    async run(ctx) {
      const data = (await listings(ctx)).flatMap((p) => p.content_actions);
      return { body: { data } };
    },
  },
);

/** `list-plugin-operations`. */
export const listPluginOperations = defineHandler(
  contract.listPluginOperations,
  {
    async run(ctx) {
      const data = (await listings(ctx)).flatMap((p) => p.operations);
      return { body: { data } };
    },
  },
);

async function launch(
  ctx: ManageContext,
  installationId: string,
  request: LaunchRequest,
) {
  const { db, kv, clock } = ctx.services;
  const launched = await createLaunch(
    {
      db,
      kv,
      clock,
      siteId: ctx.site.id,
      userId: ctx.authority.personId,
      models: ctx.authority.models,
      capabilities: delegatedCapabilities(ctx.authority.scopes),
    },
    installationId,
    request,
  );
  if (!launched.ok) {
    switch (launched.code) {
      case "installation_state":
        return refuse(409, "installation_not_active", launched.message);
      case "missing_permission":
        return refuse(403, "missing_permission", launched.message, {
          missing: ["read"],
        });
      case "model_not_granted":
        return refuse(422, "model_not_granted", launched.message);
      case "site_access_denied":
        return refuse(403, "creator_unauthorized", launched.message);
      default:
        return refuse(404, "not_found", launched.message);
    }
  }
  return {
    body: {
      outcome: "launch_created" as const,
      url: launched.launch.url,
      expires_at: launched.launch.expires_at,
      single_use: true as const,
    },
  };
}

/** `launch-plugin-manage-view`. */
export const launchPluginManageView = defineHandler(
  contract.launchPluginManageView,
  {
    async run(ctx, { params }) {
      return await launch(ctx, params.id, {
        kind: "manage",
        view: params.view,
      });
    },
  },
);

/** `launch-plugin-content-action`. */
export const launchPluginContentAction = defineHandler(
  contract.launchPluginContentAction,
  {
    async run(ctx, { params }) {
      return await launch(ctx, params.id, {
        kind: "content_action",
        action: params.action,
        instance_id: params.instanceId,
      });
    },
  },
);

function invokeContext(ctx: ManageContext) {
  const { db, kv, clock } = ctx.services;
  return {
    db,
    kv,
    clock,
    call: pluginCallOf(ctx.services),
    siteId: ctx.site.id,
    caller: {
      userId: ctx.authority.personId,
      via: "management_credential" as const,
      authority: ctx.authority,
    },
  };
}

/** `invoke-plugin-operation`: runs the operation and answers its blocks. */
export const invokePluginOperation = defineHandler(
  contract.invokePluginOperation,
  {
    // MPL-010: a replay is checked like a new run first (a new run checks inside invoke).
    async beforeReplay(ctx, { params, body }) {
      const checked = await checkInvocation(
        invokeContext(ctx),
        params.id,
        params.operation,
        { instance_id: body.instance_id, input: body.input },
      );
      if (!checked.ok) {
        refuse(checked.status, checked.code, checked.message, checked.details);
      }
    },
    async run(ctx, { params, body }) {
      const result = await invokeOperation(
        invokeContext(ctx),
        params.id,
        params.operation,
        {
          instance_id: body.instance_id,
          input: body.input,
        },
      );
      if (!result.ok) {
        return refuse(
          result.status,
          result.code,
          result.message,
          result.details,
        );
      }
      return {
        body: {
          outcome: result.outcome,
          invocation_id: result.invocation_id,
          result: result.result,
        },
      };
    },
  },
);
