// Plugin views, actions and operations as MCP tools (spec 2 part 4.5): read from the caller's own
// plugin listing (`GET /plugins`, which already names each tool or says why it is left out), and
// run as the Management API request each stands for: an operation through its invoke route, a
// view or an action through its launch-link route. Nothing here decides access: the listing and
// the routes do, for this credential, on every message.
import type { Json } from "../openapi.ts";
import { callTool, type CallToolOptions } from "./call.ts";
import { IDEMPOTENCY_ARGUMENT, type ManageTool } from "./tools.ts";

/** One plugin item offered as a tool, with how to run it. */
export interface PluginToolEntry {
  listed: Json;
  /** The contract tool it runs through, and that tool's arguments, or a refusal of the arguments. */
  bind(
    args: Record<string, unknown>,
  ):
    | { ok: true; tool: ManageTool; args: Record<string, unknown> }
    | { ok: false; message: string };
}

interface Listing {
  data: {
    id: string;
    manage_views: { id: string; label: string; mcp_tool: McpTool }[];
    content_actions: { id: string; label: string; mcp_tool: McpTool }[];
    operations: {
      id: string;
      label: string;
      description: string | null;
      scope: "site" | "entry" | "page";
      destructive: boolean;
      input_schema: Json;
      mcp_tool: McpTool;
    }[];
  }[];
}

interface McpTool {
  name: string | null;
  omitted_because: string | null;
}

const INSTANCE = {
  type: "string",
  format: "uuid",
  description: "The entry language's id (`entry_id` of a language)",
};

// Closed check of the few top-level arguments a plugin tool takes; deeper checks are the route's.
function closed(
  args: Record<string, unknown>,
  allowed: string[],
  required: string[],
): string | null {
  for (const key of Object.keys(args)) {
    if (!allowed.includes(key)) return `${key}: unknown argument`;
  }
  for (const key of required) {
    if (typeof args[key] !== "string") return `${key}: required string`;
  }
  if (
    args[IDEMPOTENCY_ARGUMENT] !== undefined &&
    typeof args[IDEMPOTENCY_ARGUMENT] !== "string"
  ) {
    return `${IDEMPOTENCY_ARGUMENT}: expected a string`;
  }
  if (
    args.input !== undefined &&
    (typeof args.input !== "object" || args.input === null ||
      Array.isArray(args.input))
  ) {
    return "input: expected an object";
  }
  return null;
}

/**
 * The plugin tools the caller may use now. `contract` holds the Management API tools by name;
 * an empty list when the caller may not list plugins (no `plugins:use`).
 */
export async function pluginToolEntries(
  options: CallToolOptions,
  contract: Map<string, ManageTool>,
): Promise<PluginToolEntry[]> {
  const list = contract.get("list_plugins");
  const invoke = contract.get("invoke_plugin_operation");
  const view = contract.get("launch_plugin_manage_view");
  const action = contract.get("launch_plugin_content_action");
  if (!list || !invoke || !view || !action) return [];
  const answer = await callTool(list, {}, options);
  if (answer.status !== 200) return [];
  const entries: PluginToolEntry[] = [];
  for (const plugin of (answer.body as Listing).data) {
    for (const op of plugin.operations) {
      const name = op.mcp_tool.name;
      if (!name) continue;
      const needsEntry = op.scope !== "site";
      entries.push({
        listed: {
          name,
          title: op.label,
          description: `${
            op.description ?? op.label
          } (plugin operation; runs as invoke-plugin-operation)`,
          inputSchema: {
            type: "object",
            properties: {
              ...(needsEntry ? { instance_id: INSTANCE } : {}),
              input: op.input_schema,
              [IDEMPOTENCY_ARGUMENT]: {
                type: "string",
                minLength: 1,
                maxLength: 255,
                description:
                  "Idempotency-Key of this run; left out, one is made and returned",
              },
            },
            required: needsEntry ? ["instance_id"] : [],
            additionalProperties: false,
          },
          annotations: {
            readOnlyHint: false,
            destructiveHint: op.destructive,
            idempotentHint: true,
            openWorldHint: false,
          },
        },
        bind(args) {
          const problem = closed(
            args,
            [
              ...(needsEntry ? ["instance_id"] : []),
              "input",
              IDEMPOTENCY_ARGUMENT,
            ],
            needsEntry ? ["instance_id"] : [],
          );
          if (problem) return { ok: false, message: problem };
          const body: Record<string, unknown> = { input: args.input ?? {} };
          if (needsEntry) body.instance_id = args.instance_id;
          return {
            ok: true,
            tool: invoke,
            args: {
              id: plugin.id,
              operation: op.id,
              body,
              ...(args[IDEMPOTENCY_ARGUMENT] === undefined
                ? {}
                : { [IDEMPOTENCY_ARGUMENT]: args[IDEMPOTENCY_ARGUMENT] }),
            },
          };
        },
      });
    }
    const launchers: [
      { id: string; label: string; mcp_tool: McpTool }[],
      ManageTool,
      boolean,
    ][] = [[plugin.manage_views, view, false], [
      plugin.content_actions,
      action,
      true,
    ]];
    for (const [items, through, needsEntry] of launchers) {
      for (const item of items) {
        const name = item.mcp_tool.name;
        if (!name) continue;
        entries.push({
          listed: {
            name,
            title: item.label,
            description:
              `Makes a one-time link (60 seconds) that opens the plugin's ${item.label} for the person behind this credential`,
            inputSchema: {
              type: "object",
              properties: needsEntry ? { instance_id: INSTANCE } : {},
              required: needsEntry ? ["instance_id"] : [],
              additionalProperties: false,
            },
            annotations: {
              readOnlyHint: false,
              destructiveHint: false,
              idempotentHint: false,
              openWorldHint: false,
            },
          },
          bind(args) {
            const problem = closed(
              args,
              needsEntry ? ["instance_id"] : [],
              needsEntry ? ["instance_id"] : [],
            );
            if (problem) return { ok: false, message: problem };
            return {
              ok: true,
              tool: through,
              args: needsEntry
                ? {
                  id: plugin.id,
                  action: item.id,
                  instanceId: args.instance_id,
                  body: {},
                }
                : { id: plugin.id, view: item.id, body: {} },
            };
          },
        });
      }
    }
  }
  return entries;
}
