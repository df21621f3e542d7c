// Plugin tool names and omissions against a fixture listing (MCP-015, MCP-016, MCP-017).
import assert from "node:assert/strict";
import {
  PLUGIN_TOOL_NAME_MAX,
  type PluginListingForTools,
  pluginToolName,
  pluginTools,
} from "./plugin_tools.ts";

const scheduling: PluginListingForTools = {
  id: "Scheduling",
  state: "active",
  manage_views: [{ id: "calendar" }],
  content_actions: [{ id: "schedule-publish" }],
  operations: [
    { id: "release.create" },
    { id: "timeline-preview", automation_only: true },
  ],
};

Deno.test("pluginToolName() lowercases and turns every other character into _ (MCP-015)", () => {
  assert.equal(
    pluginToolName("Scheduling", "action", "schedule-publish"),
    "plugin_scheduling_action_schedule_publish",
  );
  assert.equal(
    pluginToolName("acme.seo", "op", "Fix Titles!"),
    "plugin_acme_seo_op_fix_titles_",
  );
});

Deno.test("pluginTools() names each active view, action and operation; automation-only operations and disabled plugins are no tools (MCP-015, MCP-017)", () => {
  const { tools, omitted } = pluginTools([
    scheduling,
    { ...scheduling, id: "off", state: "disabled" },
  ]);
  assert.deepEqual(tools.map((t) => t.name), [
    "plugin_scheduling_view_calendar",
    "plugin_scheduling_action_schedule_publish",
    "plugin_scheduling_op_release_create",
  ]);
  assert.deepEqual(omitted, []);
});

Deno.test("pluginTools() omits names over 64 characters (the 64th is kept) and every item of an ambiguous name (MCP-016)", () => {
  const prefix = "plugin_p_op_";
  const fits = "a".repeat(PLUGIN_TOOL_NAME_MAX - prefix.length);
  const { tools, omitted } = pluginTools([
    {
      id: "p",
      state: "active",
      manage_views: [],
      content_actions: [],
      operations: [{ id: fits }, { id: `${fits}b` }, { id: "a-b" }, {
        id: "a.b",
      }],
    },
  ], new Set(["plugin_p_op_taken"]));
  assert.deepEqual(tools.map((t) => t.name), [`${prefix}${fits}`]);
  assert.equal(tools[0].name.length, 64);
  assert.deepEqual(
    omitted.map((o) => [o.itemId, o.omitted_because]),
    [
      [`${fits}b`, "name_too_long"],
      ["a-b", "name_ambiguous"],
      ["a.b", "name_ambiguous"],
    ],
  );
  const reserved = pluginTools([
    {
      id: "p",
      state: "active",
      manage_views: [],
      content_actions: [],
      operations: [{ id: "taken" }],
    },
  ], new Set(["plugin_p_op_taken"]));
  assert.deepEqual(reserved.tools, []);
  assert.equal(reserved.omitted[0].omitted_because, "name_ambiguous");
});
