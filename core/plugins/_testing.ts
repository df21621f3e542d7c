// Manifests for tests: a minimal one and one that declares every kind of extension, on any origin;
// and an active installation stored without a plugin server, for tests that only need its
// declarations (its rich blocks registered on a site).
import type { Db } from "../db/database.ts";
import { type ManifestV1Input, parseManifest } from "./manifest.ts";

/** The smallest valid manifest: identity, two URLs, one capability. */
export function minimalManifest(
  origin = "https://plugin.example.com",
): ManifestV1Input {
  return {
    manifest_version: 1,
    protocol_version: 1,
    id: "com.example.minimal",
    name: "Minimal",
    version: "1.0.0",
    base_url: `${origin}/`,
    activation_url: `${origin}/svc/activate`,
    capabilities: ["content:read"],
  };
}

/** A manifest declaring every extension kind of spec 1 part 2.1. */
export function fullManifest(
  origin = "https://plugin.example.com",
): ManifestV1Input {
  return {
    manifest_version: 1,
    protocol_version: 1,
    id: "com.example.scheduling",
    name: "Scheduling",
    version: "0.1.0",
    description: "Schedules publishing and runs releases",
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
      "media:source",
    ],
    manage_views: [
      { id: "calendar", label: "Calendar" },
      { id: "releases", label: "Releases" },
    ],
    content_actions: [
      { id: "schedule", label: "Schedule", scope: "entry" },
      { id: "schedule-page", label: "Schedule page", scope: "page" },
    ],
    operations: [
      {
        id: "schedule-status",
        label: "Schedule status",
        url: `${origin}/svc/operations/schedule-status`,
        scope: "entry",
        audience: "interactive",
        requires: ["content:read"],
        result: ["rows"],
      },
      {
        id: "schedule-column",
        label: "Scheduled",
        url: `${origin}/svc/operations/schedule-column`,
        scope: "entry",
        audience: "column",
        requires: ["content:read"],
        cell: "badge",
        result: ["cells"],
      },
      {
        id: "schedule-draft",
        label: "Schedule a draft",
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
          { name: "locale", label: "Language", type: "locale" },
          {
            name: "transition",
            label: "Transition",
            type: "text",
            max_length: 64,
          },
          { name: "due_at", label: "Due", type: "datetime", required: true },
          {
            name: "timezone",
            label: "Time zone",
            type: "timezone",
            required: true,
          },
          {
            name: "version_id",
            label: "Version",
            type: "text",
            required: true,
          },
        ],
        result: ["json", "text"],
      },
      {
        id: "release-run",
        label: "Run release",
        url: `${origin}/svc/operations/release-run`,
        scope: "site",
        audience: "interactive",
        requires: ["site:plugins", "workflow:publish", "workflow:release"],
        destructive: true,
        input: [{
          name: "action",
          label: "Action",
          type: "select",
          required: true,
          options: [
            { value: "schedule", label: "Schedule" },
            { value: "run_now", label: "Run now" },
          ],
        }],
        result: ["text", "links"],
      },
    ],
    policies: [
      {
        id: "alt-text",
        label: "Images need alt text",
        url: `${origin}/svc/policies/alt-text`,
        kind: "save",
        mode: "blocking",
      },
    ],
    media_sources: [
      {
        id: "stock",
        label: "Stock photos",
        url: `${origin}/svc/media/stock`,
        modes: ["copy", "reference"],
        delivery_origins: ["https://cdn.example.net"],
      },
    ],
    rich_blocks: [
      {
        type: "quote",
        label: "Quote",
        version: 2,
        inline: false,
        controls: [
          { name: "text", label: "Quote", type: "textarea", required: true },
          { name: "by", label: "By", type: "text" },
          { name: "link", label: "Source", type: "url" },
          {
            name: "notes",
            label: "Notes",
            type: "group",
            max_items: 50,
            controls: [
              {
                name: "lines",
                label: "Lines",
                type: "group",
                max_items: 10,
                controls: [{
                  name: "parts",
                  label: "Parts",
                  type: "group",
                  max_items: 5,
                  controls: [{ name: "word", label: "Word", type: "text" }],
                }],
              },
            ],
          },
        ],
        rules: [{
          kind: "required_when",
          field: "by",
          when: { field: "link", equals: "" },
        }],
        render: {
          el: "figure",
          class: "quote",
          children: [
            { el: "blockquote", children: [{ field: "text" }] },
            {
              when: "by",
              children: [{ el: "figcaption", children: [{ field: "by" }] }],
            },
          ],
        },
        migrations: [{
          from: 1,
          to: 2,
          steps: [{ op: "rename", from: "author", to: "by" }],
        }],
      },
    ],
    ui_extensions: [
      {
        id: "schedule-card",
        placement: "entry_sidebar",
        title: "Schedule",
        body: "Publish or unpublish at a set time.",
        button_label: "Schedule…",
        opens: { kind: "content_action", id: "schedule" },
      },
      {
        id: "calendar-row",
        placement: "settings_row",
        title: "Publishing calendar",
        button_label: "Open calendar",
        opens: { kind: "manage_view", id: "calendar" },
      },
    ],
  };
}

/** Stores an active installation of `manifest` on a site, as install and activation leave it. */
export async function insertActiveInstallation(
  db: Db,
  siteId: string,
  manifest: ManifestV1Input,
): Promise<string> {
  const manifestUrl = new URL("svc/manifest.json", manifest.base_url).href;
  const parsed = parseManifest(manifest, { manifestUrl });
  if (!parsed.ok) {
    throw new Error(`Invalid test manifest: ${JSON.stringify(parsed.issues)}`);
  }
  const id = crypto.randomUUID();
  const now = new Date();
  await db.insertInto("plugin_installations").values({
    id,
    site_id: siteId,
    plugin_id: parsed.manifest.id,
    name: parsed.manifest.name,
    version: parsed.manifest.version,
    protocol_version: parsed.manifest.protocol_version,
    state: "active",
    token_hash: null,
    previous_token_hash: null,
    previous_token_expires_at: null,
    grant_capabilities: JSON.stringify(parsed.manifest.capabilities),
    grant_model_ids: JSON.stringify([]),
    manifest: JSON.stringify(parsed.manifest),
    manifest_url: manifestUrl,
    installed_by: null,
    created_at: now,
    updated_at: now,
    revoked_at: null,
  }).execute();
  return id;
}
