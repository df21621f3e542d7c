// The scheduling plugin's manifest v1 (spec 1 part 2.1), every URL on PUBLIC_ORIGIN.

/** The plugin's id; it never changes across releases. */
export const SCHEDULING_PLUGIN_ID = "dev.stave.scheduling";
/** The reference plugin is 0.1.0: no stable release exists yet (spec 1 part 9). */
export const SCHEDULING_VERSION = "0.1.0";

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
    // It reads an item when a schedule comes due, so no change needs to reach it before then: a
    // notification per save and publish would only be queued, sent and refused.
    events: [],
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
      id: "schedule-column",
      label: "Scheduled",
      description: "The next scheduled change of each listed entry",
      url: `${origin}/svc/operations/schedule-column`,
      scope: "entry",
      audience: "column",
      cell: "badge",
      requires: ["content:read"],
      result: ["cells"],
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
    }, {
      id: "releases",
      label: "Releases",
      description:
        "Every release, or one release's items with their readiness or outcome and its receipt",
      url: `${origin}/svc/operations/releases`,
      scope: "site",
      audience: "interactive",
      requires: ["content:read", "workflow:read"],
      input: [{
        name: "release_id",
        label: "Release id (empty: every release)",
        type: "text",
        max_length: 64,
      }],
      result: ["text", "rows", "json"],
    }, {
      id: "release-edit",
      label: "Edit a release",
      description:
        "Create or rename a release, or add or remove an entry's change",
      url: `${origin}/svc/operations/release-edit`,
      scope: "site",
      audience: "interactive",
      requires: ["content:read", "workflow:read", "workflow:release"],
      input: [
        {
          name: "action",
          label: "Action",
          type: "select",
          required: true,
          options: [
            { value: "create", label: "Create (name)" },
            { value: "rename", label: "Rename (release, name)" },
            { value: "add", label: "Add an entry (release, entry, change)" },
            {
              value: "add_future",
              label: "Add an entry's future version (release, entry)",
            },
            {
              value: "remove",
              label: "Remove an entry (release, entry, change)",
            },
          ],
        },
        {
          name: "release_id",
          label: "Release id",
          type: "text",
          max_length: 64,
        },
        { name: "name", label: "Name", type: "text", max_length: 80 },
        {
          name: "instance_id",
          label: "Entry language id",
          type: "text",
          max_length: 64,
        },
        {
          name: "kind",
          label: "Change",
          type: "select",
          options: [
            { value: "publish", label: "Publish" },
            { value: "unpublish", label: "Unpublish" },
          ],
        },
        { name: "locale", label: "One language (empty: all)", type: "locale" },
      ],
      result: ["text", "json"],
    }, {
      id: "release-run",
      label: "Run a release",
      description:
        "Schedule a release at a time, unschedule it, run it now, or retry it",
      url: `${origin}/svc/operations/release-run`,
      scope: "site",
      audience: "interactive",
      destructive: true,
      requires: [
        "content:read",
        "workflow:read",
        "workflow:release",
        "workflow:publish",
      ],
      input: [
        {
          name: "action",
          label: "Action",
          type: "select",
          required: true,
          options: [
            { value: "schedule", label: "Schedule (release, time, zone)" },
            { value: "cancel", label: "Unschedule" },
            { value: "run_now", label: "Run now" },
            { value: "retry", label: "Retry" },
          ],
        },
        {
          name: "release_id",
          label: "Release id",
          type: "text",
          max_length: 64,
          required: true,
        },
        { name: "due_at", label: "When (UTC)", type: "datetime" },
        {
          name: "local_datetime",
          label: "Or when, in the time zone (YYYY-MM-DDTHH:MM)",
          type: "text",
          max_length: 16,
        },
        {
          name: "fold",
          label: "A time the clocks show twice",
          type: "select",
          options: [
            { value: "earlier", label: "The earlier one" },
            { value: "later", label: "The later one" },
          ],
        },
        { name: "timezone", label: "Time zone", type: "timezone" },
      ],
      result: ["text", "json"],
    }, {
      id: "timeline-preview",
      label: "Timeline preview",
      description:
        "Every release and schedule due up to a release's time, with the changes each makes",
      url: `${origin}/svc/operations/timeline-preview`,
      scope: "site",
      audience: "automation",
      // workflow:release keeps it from every management credential, so from the API and MCP.
      requires: ["content:read", "workflow:read", "workflow:release"],
      input: [{
        name: "release_id",
        label: "Release id",
        type: "text",
        max_length: 64,
        required: true,
      }],
      result: ["json"],
    }],
    ui_extensions: [{
      id: "schedule-card",
      placement: "entry_sidebar",
      title: "Schedule",
      body: "Publish or unpublish this entry at a time you choose.",
      button_label: "Schedule",
      opens: { kind: "content_action", id: "schedule" },
    }, {
      // Settings draws these, so the calendar and releases open from the admin.
      id: "calendar-row",
      placement: "settings_row",
      title: "Schedule calendar",
      body: "Every scheduled change by day, in your time zone.",
      button_label: "Open the calendar",
      opens: { kind: "manage_view", id: "calendar" },
    }, {
      id: "releases-row",
      placement: "settings_row",
      title: "Releases",
      body: "Publish several entries together at one time.",
      button_label: "Open releases",
      opens: { kind: "manage_view", id: "releases" },
    }],
  };
}
