// Handlers of the Management API's plugin routes (spec 2 parts 2.5, 4.3; MPL-001 to MPL-013):
// listings of what this credential may use now, launch links, and operation runs.
import { policyModeOf } from "../../plugins/policies.ts";
import { invokeContextOf } from "./policy_gate.ts";
import { createLaunch, type LaunchRequest } from "../../plugins/delegations.ts";
import { availablePlugins } from "../../plugins/available.ts";
import {
  checkInvocation,
  delegatedCapabilities,
  invokeOperation,
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

/** Every listing entry of the site for this credential (active and disabled installations). */
async function listings(ctx: ManageContext) {
  const plugins = await availablePlugins(
    ctx.services.db,
    ctx.site.id,
    ctx.authority,
  );
  // Tool names are judged over the whole listing, as the MCP endpoint lists them.
  const { omitted } = pluginTools(plugins.map((p) => ({
    id: p.installation.pluginId,
    state: p.installation.state === "active" ? "active" : "disabled",
    manage_views: p.views,
    content_actions: p.actions,
    operations: p.operations.map(({ op }) => ({
      id: op.id,
      // Automation-only runs and list columns are never tools.
      automation_only: op.audience !== "interactive",
    })),
  })));
  const tool = (
    pluginId: string,
    kind: "view" | "action" | "op",
    id: string,
    audience: "interactive" | "automation" | "column" = "interactive",
  ): McpTool => {
    if (audience === "automation") {
      return { name: null, omitted_because: "automation_only" };
    }
    if (audience === "column") {
      return { name: null, omitted_because: "list_column" };
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
        mcp_tool: tool(installation.pluginId, "op", op.id, op.audience),
      })),
      policies: installation.state === "active"
        ? installation.manifest.policies.map((p) => ({
          id: p.id,
          label: p.label,
          kind: p.kind,
          mode: policyModeOf(installation, p),
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
        return refuse(403, "model_not_granted", launched.message);
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

/** `invoke-plugin-operation`: runs the operation and answers its blocks. */
export const invokePluginOperation = defineHandler(
  contract.invokePluginOperation,
  {
    // MPL-010: a replay is checked like a new run first (a new run checks inside invoke).
    async beforeReplay(ctx, { params, body }) {
      const checked = await checkInvocation(
        invokeContextOf(ctx),
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
        invokeContextOf(ctx),
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
