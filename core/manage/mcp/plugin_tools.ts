// Names plugin views, actions and operations as MCP tools, and says why a name is left out (spec 2 part 4.5).
// This module is browser compatible.

/** Longest tool name a plugin item may get. */
export const PLUGIN_TOOL_NAME_MAX = 64;

/** The three kinds of plugin item that become tools, with their name infix. */
export type PluginToolKind = "view" | "action" | "op";

/** Why a plugin item has no tool; `GET /plugins` shows it as `mcp_tool.omitted_because`. */
export type OmittedBecause = "name_too_long" | "name_ambiguous";

/** What the naming needs of one plugin of the listing (`GET /plugins`, spec 2 part 2.5). */
export interface PluginListingForTools {
  /** The plugin id as the listing names it. */
  id: string;
  state: "active" | "disabled";
  manage_views: readonly { id: string }[];
  content_actions: readonly { id: string }[];
  operations: readonly {
    id: string;
    /**
     * Automation-only operations (e.g. the scheduler's `timeline-preview`, SOP-018) and list
     * columns are never tools.
     */
    automation_only?: boolean;
  }[];
}

/** One plugin item that is a tool. */
export interface PluginTool {
  name: string;
  pluginId: string;
  kind: PluginToolKind;
  itemId: string;
}

/** One plugin item that would be a tool but is left out, and why. */
export interface OmittedPluginTool {
  pluginId: string;
  kind: PluginToolKind;
  itemId: string;
  /** The name it would have had. */
  name: string;
  omitted_because: OmittedBecause;
}

/** The tool name of one plugin item: lowercased, every other character than a-z, 0-9 and `_` as `_`. */
export function pluginToolName(
  pluginId: string,
  kind: PluginToolKind,
  itemId: string,
): string {
  return `plugin_${pluginId}_${kind}_${itemId}`.toLowerCase().replace(
    /[^a-z0-9_]/g,
    "_",
  );
}

/**
 * The tools of the active plugins of a listing. A name longer than 64 characters is left
 * out (`name_too_long`); a name two items share, or that an operation's tool already has,
 * is left out for every item that has it (`name_ambiguous`), so no call can reach the
 * wrong item. Disabled plugins and automation-only operations are not tools at all.
 */
export function pluginTools(
  plugins: readonly PluginListingForTools[],
  reservedNames: ReadonlySet<string> = new Set(),
): { tools: PluginTool[]; omitted: OmittedPluginTool[] } {
  const candidates: PluginTool[] = [];
  for (const plugin of plugins) {
    if (plugin.state !== "active") continue;
    const items: [PluginToolKind, string][] = [
      ...plugin.manage_views.map((
        v,
      ): [PluginToolKind, string] => ["view", v.id]),
      ...plugin.content_actions.map((a): [PluginToolKind, string] => [
        "action",
        a.id,
      ]),
      ...plugin.operations.filter((o) => !o.automation_only).map((
        o,
      ): [PluginToolKind, string] => ["op", o.id]),
    ];
    for (const [kind, itemId] of items) {
      candidates.push({
        name: pluginToolName(plugin.id, kind, itemId),
        pluginId: plugin.id,
        kind,
        itemId,
      });
    }
  }
  const count = new Map<string, number>();
  for (const c of candidates) count.set(c.name, (count.get(c.name) ?? 0) + 1);
  const tools: PluginTool[] = [];
  const omitted: OmittedPluginTool[] = [];
  for (const c of candidates) {
    if (c.name.length > PLUGIN_TOOL_NAME_MAX) {
      omitted.push({ ...c, omitted_because: "name_too_long" });
    } else if (count.get(c.name)! > 1 || reservedNames.has(c.name)) {
      omitted.push({ ...c, omitted_because: "name_ambiguous" });
    } else {
      tools.push(c);
    }
  }
  return { tools, omitted };
}

// The MCP endpoint lists and runs these tools from the caller's `GET /plugins` answer, which
// carries each item's name from here (core/manage/mcp/plugin_calls.ts).
