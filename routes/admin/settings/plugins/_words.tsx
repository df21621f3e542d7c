// The words of a plugin's settings page: capabilities, declarations, audit actions, states and
// policy modes as an administrator reads them.
import type { UpgradeReview } from "../../../../core/plugins/installations.ts";
import type { PolicyMode } from "../../../../core/plugins/installation_store.ts";
import {
  type Capability,
  NOTIFICATION_EVENTS,
  type NotificationEvent,
} from "../../../../core/plugins/protocol.ts";
import { CAPABILITY_WORDS } from "./_shared.tsx";

/** Capabilities in words, or "None." */
export function CapabilityList(
  { capabilities }: { capabilities: Capability[] },
) {
  if (capabilities.length === 0) return <p class="muted">None.</p>;
  return (
    <ul>
      {capabilities.map((c) => (
        <li key={c}>
          <code>{c}</code> — {CAPABILITY_WORDS[c]}
        </li>
      ))}
    </ul>
  );
}

const EVENT_WORDS: Record<NotificationEvent, string> = {
  "content.changed": "content",
  "media.changed": "media",
  "model.changed": "models",
};

/** Which changes Stave will tell the plugin of, from its manifest's `events`. */
export function notificationWords(
  events: readonly NotificationEvent[] | undefined,
): string {
  const kinds = NOTIFICATION_EVENTS.filter((e) => events?.includes(e) ?? true);
  if (kinds.length === 0) {
    return "Stave does not tell it when anything changes.";
  }
  const words = kinds.map((e) => EVENT_WORDS[e]);
  const list = words.length === 1
    ? words[0]
    : `${words.slice(0, -1).join(", ")} or ${words.at(-1)}`;
  return `Stave tells it when ${list} it may read change.`;
}

const LIST_WORDS: Record<string, string> = {
  manage_views: "management view",
  content_actions: "content action",
  operations: "operation",
  policies: "policy",
  media_sources: "media source",
  ui_extensions: "card",
  rich_blocks: "rich-text block",
};

/** What else the release changes: declarations by kind and id, and addresses that moved. */
export function ManifestChangeList({ review }: { review: UpgradeReview }) {
  const lines = [
    ...review.declarations_added.map((d) =>
      `Adds the ${LIST_WORDS[d.list]} "${d.id}"`
    ),
    ...review.declarations_changed.map((d) =>
      `Changes the ${LIST_WORDS[d.list]} "${d.id}"`
    ),
    ...review.declarations_removed.map((d) =>
      `Removes the ${LIST_WORDS[d.list]} "${d.id}"`
    ),
    ...review.urls_changed.map((u) =>
      u.from === null
        ? `Adds the address ${u.path}: ${u.to}`
        : u.to === null
        ? `Drops the address ${u.path} (was ${u.from})`
        : `Moves ${u.path} from ${u.from} to ${u.to}`
    ),
  ];
  if (lines.length === 0) return <p class="muted">None.</p>;
  return <ul>{lines.map((line) => <li key={line}>{line}</li>)}</ul>;
}

export const ACTION_WORDS: Record<string, string> = {
  "plugin.install": "Installed",
  "plugin.activate": "Activated",
  "plugin.rotate": "Token rotated",
  "plugin.disable": "Disabled",
  "plugin.enable": "Enabled",
  "plugin.uninstall": "Uninstalled",
  "plugin.grant": "Grant changed",
  "plugin.upgrade": "Upgraded",
  "plugin.operation.run": "Operation run",
  "plugin.content.save": "Saved content for a person",
  "plugin.media.upload": "Uploaded media for a person",
  "plugin.media.remove": "Removed media for a person",
  "plugin.proposal.create": "Proposed a change",
  "plugin.policy.check": "Policy checked a write",
  "plugin.policy.mode": "Policy mode changed",
};

export const POLICY_KIND_WORDS: Record<string, string> = {
  save: "Checks saves",
  restore: "Checks version restores",
  trash: "Checks moves into and out of Trash",
  transition: "Checks publishing, unpublishing and review moves",
};

export const MODE_NAMES: Record<PolicyMode, string> = {
  blocking: "Blocking",
  advisory: "Advisory",
  off: "Off",
};

export function who(actor: unknown): string {
  const a = actor as Record<string, unknown> | null;
  if (!a) return "";
  return String(
    a.email ?? a.delegated_email ?? a.creator_email ?? a.name ?? a.kind ?? "",
  );
}

export const STATE_WORDS: Record<string, string> = {
  pending: "Waiting for the plugin to accept its token",
  active: "Active",
  disabled: "Disabled: it cannot call the service, and is not called",
  revoked: "Uninstalled: its token no longer works; its history stays",
};
