// Contract of the plugin routes of the Management API (spec 2 parts 2.5, 4.2, 4.3; MPL-001 to
// MPL-013): what a credential may launch or run, launch links, and operation runs.
import { z } from "zod";
import type { ErrorCode } from "./errors.ts";
import { operation } from "./operation.ts";
import { listRichBlocks } from "./rich_blocks.ts";

const mcpTool = z.strictObject({
  name: z.string().nullable().describe(
    "The MCP tool name, or null when it is left out",
  ),
  omitted_because: z.string().nullable().describe(
    "Why no tool is listed (automation_only, list_column, name_ambiguous, name_too_long), else null",
  ),
});

const inputField = z.strictObject({
  name: z.string(),
  label: z.string(),
  type: z.string(),
  required: z.boolean(),
  help: z.string().optional(),
  max_length: z.int().optional(),
  min: z.number().optional(),
  max: z.number().optional(),
  options: z.array(z.strictObject({ value: z.string(), label: z.string() }))
    .optional(),
});

const pluginOperation = z.strictObject({
  installation_id: z.uuid(),
  plugin_id: z.string(),
  id: z.string(),
  label: z.string(),
  description: z.string().nullable(),
  scope: z.enum(["site", "entry", "page"]),
  audience: z.enum(["interactive", "automation", "column"]),
  destructive: z.boolean(),
  list_action: z.boolean(),
  input: z.array(inputField),
  input_schema: z.looseObject({}).describe(
    "A JSON Schema of `input` (closed object)",
  ),
  result: z.array(z.string()).describe("The block kinds the answer may hold"),
  model_ids: z.array(z.string()).describe(
    "Models this credential may run it on (entry and page operations)",
  ),
  mcp_tool: mcpTool,
});

const manageView = z.strictObject({
  installation_id: z.uuid(),
  plugin_id: z.string(),
  id: z.string(),
  label: z.string(),
  mcp_tool: mcpTool,
});

const contentAction = z.strictObject({
  installation_id: z.uuid(),
  plugin_id: z.string(),
  id: z.string(),
  label: z.string(),
  scope: z.enum(["entry", "page"]),
  model_ids: z.array(z.string()),
  mcp_tool: mcpTool,
});

const pluginListing = z.strictObject({
  id: z.uuid().describe("The installation id"),
  plugin_id: z.string(),
  name: z.string(),
  version: z.string(),
  state: z.enum(["active", "disabled"]),
  launchable: z.boolean().describe(
    "True when this credential may open one of its views or actions now",
  ),
  manage_views: z.array(manageView),
  content_actions: z.array(contentAction),
  operations: z.array(pluginOperation),
  policies: z.array(z.strictObject({
    id: z.string(),
    label: z.string(),
    kind: z.enum(["save", "restore", "trash", "transition"]),
    mode: z.enum(["blocking", "advisory", "off"]).describe(
      "How the policy runs now: declared by the plugin, or chosen by an administrator under Settings → Plugins",
    ),
  })),
});

const noParams = z.strictObject({});

/** `GET /plugins`. */
export const listPlugins = operation({
  name: "list-plugins",
  description:
    "Active and disabled installations; a disabled one offers nothing. Views, actions and operations are those this credential may use now: the grant holds every required capability, the credential's scopes allow it, and the creator reads a granted model inside the credential's models (a site operation needs `site:plugins`).",
  method: "GET",
  path: "/plugins",
  summary:
    "List the site's plugins with what this credential may launch or run",
  tag: "plugins",
  scope: "plugins:use",
  key: null,
  status: 200,
  params: noParams,
  answer: z.strictObject({ data: z.array(pluginListing) }),
});

/** `GET /plugins/manage-views`. */
export const listPluginManageViews = operation({
  name: "list-plugin-manage-views",
  method: "GET",
  path: "/plugins/manage-views",
  summary: "List the management views this credential may launch",
  tag: "plugins",
  scope: "plugins:use",
  key: null,
  status: 200,
  params: noParams,
  answer: z.strictObject({ data: z.array(manageView) }),
});

/** `GET /plugins/content-actions`. */
export const listPluginContentActions = operation({
  name: "list-plugin-content-actions",
  method: "GET",
  path: "/plugins/content-actions",
  summary:
    "List the content actions this credential may launch, with their models",
  tag: "plugins",
  scope: "plugins:use",
  key: null,
  status: 200,
  params: noParams,
  answer: z.strictObject({ data: z.array(contentAction) }),
});

/** `GET /plugins/operations`. */
export const listPluginOperations = operation({
  name: "list-plugin-operations",
  method: "GET",
  path: "/plugins/operations",
  summary: "List the operations this credential may run, with their input",
  tag: "plugins",
  scope: "plugins:use",
  key: null,
  status: 200,
  params: noParams,
  answer: z.strictObject({ data: z.array(pluginOperation) }),
});

const launchAnswer = z.strictObject({
  outcome: z.literal("launch_created"),
  url: z.string().describe(
    "The plugin's page with a one-time launch code: open it once, with no referrer",
  ),
  expires_at: z.string(),
  single_use: z.literal(true),
});

const LAUNCH_ERRORS: ErrorCode[] = [
  "not_found",
  "missing_permission",
  "installation_not_active",
  "model_not_granted",
];

/** `POST /plugins/{id}/manage-views/{view}/launch`. */
export const launchPluginManageView = operation({
  name: "launch-plugin-manage-view",
  description:
    "The link is valid 60 seconds and opens once; the plugin acts as the credential's creator within its grant and the credential's models. No `Idempotency-Key`: every call makes a new link.",
  method: "POST",
  path: "/plugins/{id}/manage-views/{view}/launch",
  summary: "Create a one-time launch link to a plugin's management view",
  tag: "plugins",
  scope: "plugins:use",
  key: null,
  status: 201,
  params: z.strictObject({ id: z.uuid(), view: z.string().max(64) }),
  body: z.strictObject({}),
  answer: launchAnswer,
  errors: LAUNCH_ERRORS,
});

/** `POST /plugins/{id}/content-actions/{action}/entries/{instanceId}/launch`. */
export const launchPluginContentAction = operation({
  name: "launch-plugin-content-action",
  description:
    "Bound to one entry language (`instanceId`, the `entry_id` of a language); valid 60 seconds and opens once. No `Idempotency-Key`.",
  method: "POST",
  path: "/plugins/{id}/content-actions/{action}/entries/{instanceId}/launch",
  summary: "Create a one-time launch link to a plugin's action on one entry",
  tag: "plugins",
  scope: "plugins:use",
  key: null,
  status: 201,
  params: z.strictObject({
    id: z.uuid(),
    action: z.string().max(64),
    instanceId: z.uuid(),
  }),
  body: z.strictObject({}),
  answer: launchAnswer,
  errors: LAUNCH_ERRORS,
});

/** `POST /plugins/{id}/operations/{operation}/invoke`. */
export const invokePluginOperation = operation({
  name: "invoke-plugin-operation",
  description:
    "Sends the plugin a closed invocation envelope; the plugin exchanges its one-time code for a delegation acting as the credential's creator and answers result blocks. `instance_id` (an entry language's id) is required for an entry or page operation and refused for a site one; `input` is closed. A replay is checked like a new run first.",
  method: "POST",
  path: "/plugins/{id}/operations/{operation}/invoke",
  summary: "Run a plugin operation and answer its result blocks",
  tag: "plugins",
  scope: "plugins:use",
  key: { retention: "short", settle: "rerun" },
  status: 200,
  params: z.strictObject({ id: z.uuid(), operation: z.string().max(64) }),
  body: z.strictObject({
    instance_id: z.uuid().optional(),
    input: z.record(z.string(), z.unknown()).optional(),
  }),
  answer: z.strictObject({
    outcome: z.literal("completed"),
    invocation_id: z.uuid(),
    result: z.strictObject({
      blocks: z.array(z.looseObject({ type: z.string() })),
    }),
  }),
  errors: [
    "not_found",
    "input_invalid",
    "missing_permission",
    "operation_unavailable",
    "installation_not_active",
    "plugin_unavailable",
    "invocation_in_progress",
    "plugin_refused",
    "plugin_unreachable",
    "plugin_response_invalid",
    "plugin_timeout",
  ],
});

/** The plugin operations, in docs order (with `GET /rich-blocks`, as spec 2's route table lists it). */
export const PLUGIN_OPERATIONS = [
  listPlugins,
  listPluginManageViews,
  listPluginContentActions,
  listPluginOperations,
  listRichBlocks,
  launchPluginManageView,
  launchPluginContentAction,
  invokePluginOperation,
] as const;
