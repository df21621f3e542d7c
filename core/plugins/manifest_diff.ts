// This module is browser compatible.
// Compares an installation's accepted manifest with an offered upgrade (spec 1 part 2.1 rule 4, PLG-005, PLG-009).
import { manifestUrls, type ManifestV1 } from "./manifest.ts";
import type { Capability } from "./protocol.ts";

const DECLARATION_LISTS = [
  "manage_views",
  "content_actions",
  "operations",
  "policies",
  "media_sources",
  "ui_extensions",
  "rich_blocks",
] as const;

/** One declaration list of a manifest. */
export type DeclarationList = typeof DECLARATION_LISTS[number];

/** What an upgrade changes, for the administrator to review before confirming. */
export interface ManifestComparison {
  /** The offered manifest names another plugin id: refuse with `manifest_identity_changed`. */
  identityChanged: boolean;
  version: { from: string; to: string } | null;
  name: { from: string; to: string } | null;
  /** Capabilities the offered manifest asks for that the accepted one did not; they stay ungranted. */
  capabilitiesAdded: Capability[];
  /** Capabilities no longer asked for; they leave the grant. */
  capabilitiesRemoved: Capability[];
  /** Declarations added, removed or changed, by list and id (`type` for rich blocks). */
  added: { list: DeclarationList; id: string }[];
  removed: { list: DeclarationList; id: string }[];
  changed: { list: DeclarationList; id: string }[];
  /** Manifest URLs that moved (the activation URL among them). */
  urlsChanged: { path: string; from: string | null; to: string | null }[];
}

function idOf(item: { id?: string; type?: string }): string {
  return item.id ?? item.type ?? "";
}

/** Compares the accepted manifest with the offered one. */
export function compareManifests(
  accepted: ManifestV1,
  offered: ManifestV1,
): ManifestComparison {
  const before = new Set(accepted.capabilities);
  const after = new Set(offered.capabilities);
  const result: ManifestComparison = {
    identityChanged: accepted.id !== offered.id,
    version: accepted.version === offered.version
      ? null
      : { from: accepted.version, to: offered.version },
    name: accepted.name === offered.name
      ? null
      : { from: accepted.name, to: offered.name },
    capabilitiesAdded: offered.capabilities.filter((c) => !before.has(c)),
    capabilitiesRemoved: accepted.capabilities.filter((c) => !after.has(c)),
    added: [],
    removed: [],
    changed: [],
    urlsChanged: [],
  };
  for (const list of DECLARATION_LISTS) {
    const old = new Map<string, unknown>(
      (accepted[list] as { id?: string; type?: string }[]).map((
        item,
      ) => [idOf(item), item]),
    );
    const now = new Map<string, unknown>(
      (offered[list] as { id?: string; type?: string }[]).map((
        item,
      ) => [idOf(item), item]),
    );
    for (const [id, item] of now) {
      if (!old.has(id)) result.added.push({ list, id });
      else if (JSON.stringify(old.get(id)) !== JSON.stringify(item)) {
        result.changed.push({ list, id });
      }
    }
    for (const id of old.keys()) {
      if (!now.has(id)) result.removed.push({ list, id });
    }
  }
  const oldUrls = new Map(manifestUrls(accepted));
  const newUrls = new Map(manifestUrls(offered));
  for (const path of new Set([...oldUrls.keys(), ...newUrls.keys()])) {
    const from = oldUrls.get(path) ?? null;
    const to = newUrls.get(path) ?? null;
    if (from !== to) result.urlsChanged.push({ path, from, to });
  }
  return result;
}

/**
 * The grant after an upgrade: the capabilities granted before that the offered manifest
 * still asks for. Capabilities the upgrade adds are never granted by it.
 */
export function grantAfterUpgrade(
  granted: readonly Capability[],
  offered: Pick<ManifestV1, "capabilities">,
): Capability[] {
  const asked = new Set(offered.capabilities);
  return granted.filter((c) => asked.has(c));
}
