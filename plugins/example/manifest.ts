// The example plugin's manifest v1, on whatever origin the plugin is served from.

/** The example plugin's id; it never changes across releases. */
export const EXAMPLE_PLUGIN_ID = "dev.stave.example";

/** The manifest served at `/svc/manifest.json` (every URL on `origin`). */
export function exampleManifest(origin: string, version = "0.1.0") {
  return {
    manifest_version: 1,
    protocol_version: 1,
    id: EXAMPLE_PLUGIN_ID,
    name: "Example",
    version,
    description:
      "A small plugin showing the protocol: activation, a launch page and one operation",
    base_url: `${origin}/`,
    activation_url: `${origin}/svc/activate`,
    management_url: `${origin}/installations/{installation_id}`,
    capabilities: ["content:read", "workflow:read"],
    manage_views: [{ id: "overview", label: "Overview" }],
    content_actions: [{ id: "inspect", label: "Inspect", scope: "entry" }],
    operations: [{
      id: "hello",
      label: "Say hello",
      description: "Exchanges the invocation and answers a greeting",
      url: `${origin}/svc/operations/hello`,
      scope: "entry",
      audience: "interactive",
      requires: ["content:read"],
      input: [{ name: "name", label: "Name", type: "text", max_length: 80 }],
      result: ["text", "json"],
    }],
    ui_extensions: [
      {
        id: "inspect-card",
        placement: "entry_sidebar",
        title: "Example",
        body: "Open this entry in the example plugin.",
        button_label: "Inspect",
        opens: { kind: "content_action", id: "inspect" },
      },
      {
        id: "overview-row",
        placement: "settings_row",
        title: "Example plugin",
        button_label: "Open overview",
        opens: { kind: "manage_view", id: "overview" },
      },
    ],
  };
}
