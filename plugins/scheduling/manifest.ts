// The scheduling plugin's manifest v1 (spec 1 part 2.1), every URL on PUBLIC_ORIGIN.

/** The plugin's id; it never changes across releases. */
export const SCHEDULING_PLUGIN_ID = "dev.stave.scheduling";
export const SCHEDULING_VERSION = "1.0.0";

/** The manifest served at `/svc/manifest.json`. */
export function schedulingManifest(origin: string) {
  return {
    manifest_version: 1,
    protocol_version: 1,
    id: SCHEDULING_PLUGIN_ID,
    name: "Scheduling",
    version: SCHEDULING_VERSION,
    description:
      "Publishes or unpublishes a pinned version at a chosen time, in the editor's time zone",
    base_url: `${origin}/`,
    activation_url: `${origin}/svc/activate`,
    management_url: `${origin}/installations/{installation_id}`,
    capabilities: [
      "content:read",
      "workflow:read",
      "workflow:publish",
      "workflow:unpublish",
      "workflow:locale",
      "workflow:release",
    ],
    manage_views: [
      { id: "calendar", label: "Schedule calendar" },
      { id: "releases", label: "Releases" },
    ],
    content_actions: [{ id: "schedule", label: "Schedule", scope: "entry" }],
    operations: [{
      id: "schedule-status",
      label: "Scheduled changes",
      description: "The pending, retrying and running schedules of this entry",
      url: `${origin}/svc/operations/schedule-status`,
      scope: "entry",
      audience: "interactive",
      requires: ["content:read"],
      result: ["rows"],
    }, {
      id: "schedule-draft",
      label: "Schedule a publish",
      description:
        "Publishes exactly version_id of the entry at due_at (a whole UTC minute); for scripts and agents",
      url: `${origin}/svc/operations/schedule-draft`,
      scope: "entry",
      audience: "automation",
      requires: [
        "content:read",
        "workflow:read",
        "workflow:publish",
        "workflow:locale",
      ],
      input: [
        {
          name: "locale",
          label: "One language (empty: all)",
          type: "text",
          max_length: 35,
        },
        {
          name: "transition",
          label: "Change",
          type: "select",
          required: true,
          options: [{ value: "publish:published", label: "Publish" }],
        },
        {
          name: "due_at",
          label: "When (UTC)",
          type: "datetime",
          required: true,
        },
        {
          name: "timezone",
          label: "Time zone",
          type: "timezone",
          required: true,
        },
        {
          name: "version_id",
          label: "Version to publish",
          type: "text",
          max_length: 64,
          required: true,
        },
      ],
      result: ["json"],
    }],
    ui_extensions: [{
      id: "schedule-card",
      placement: "entry_sidebar",
      title: "Schedule",
      body: "Publish or unpublish this entry at a time you choose.",
      button_label: "Schedule",
      opens: { kind: "content_action", id: "schedule" },
    }],
  };
}
