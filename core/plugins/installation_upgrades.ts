// Upgrading an installation (spec 1 part 3.1): the new manifest fetched and compared, the
// review shown to the admin, and the upgrade applied with the grant it still needs.
import {
  type Installation,
  installationOf,
  readInstallation,
} from "./installation_store.ts";
import { type ManifestV1, parseManifest } from "./manifest.ts";
import { type ManifestChanges, manifestChanges } from "./manifest_changes.ts";
import { answerJson } from "./outbound.ts";
import type { Capability } from "./protocol.ts";
import {
  audited,
  changeableRow,
  current,
  type Outcome,
  type PluginAdminContext,
  refused,
} from "./installation_acts.ts";

/** The differences an upgrade would bring (spec 1 part 2.1 rule 4). */
export interface UpgradeDiff {
  from_version: string;
  to_version: string;
  name: { from: string; to: string };
  /** Capabilities the new release requests that the old one did not: they stay ungranted. */
  capabilities_added: Capability[];
  /** Capabilities no longer requested: they leave the grant. */
  capabilities_removed: Capability[];
  manifest: ManifestV1;
}

/** The whole review of an upgrade: version, name, capabilities, declarations and URLs. */
export type UpgradeReview = UpgradeDiff & ManifestChanges;

/** Fetches and validates a manifest through the guarded fetch (32 KB, 5 s, no redirects). */
export async function fetchManifest(
  ctx: Pick<PluginAdminContext, "call">,
  manifestUrl: string,
): Promise<Outcome<{ manifest: ManifestV1 }>> {
  const answer = await ctx.call({
    url: manifestUrl,
    method: "GET",
    purpose: "manifest",
  });
  if (!answer.ok) return refused(answer.code, answer.message);
  if (answer.status < 200 || answer.status > 299) {
    return refused(
      "plugin_response_invalid",
      `The manifest URL answered ${answer.status}`,
    );
  }
  const json = answerJson(answer);
  if (!json.ok) return refused(json.code, json.message);
  const parsed = parseManifest(json.json, { manifestUrl });
  if (!parsed.ok) {
    return refused(parsed.code, "The manifest is not a valid manifest v1", {
      issues: parsed.issues,
    });
  }
  return { ok: true, manifest: parsed.manifest };
}

/**
 * What an upgrade would change: fetches the manifest again from the installation's
 * manifest URL and compares identity, version and requested capabilities.
 */
export async function previewUpgrade(
  ctx: PluginAdminContext,
  id: string,
): Promise<Outcome<{ diff: UpgradeReview }>> {
  const row = await changeableRow(ctx, id);
  if ("ok" in row) return row;
  const fetched = await fetchManifest(ctx, row.manifest_url);
  if (!fetched.ok) return fetched;
  if (fetched.manifest.id !== row.plugin_id) {
    return refused(
      "manifest_identity_changed",
      `The release carries plugin id "${fetched.manifest.id}", not "${row.plugin_id}"`,
    );
  }
  const old = installationOf(row).manifest;
  const had = new Set<string>(old.capabilities);
  const has = new Set<string>(fetched.manifest.capabilities);
  return {
    ok: true,
    diff: {
      from_version: row.version,
      to_version: fetched.manifest.version,
      name: { from: row.name, to: fetched.manifest.name },
      capabilities_added: fetched.manifest.capabilities.filter((c) =>
        !had.has(c)
      ),
      capabilities_removed: old.capabilities.filter((c) => !has.has(c)),
      ...manifestChanges(old, fetched.manifest),
      manifest: fetched.manifest,
    },
  };
}

/**
 * Accepts the release the administrator reviewed: `expected_version` must still be what
 * the manifest URL serves. The new manifest is pinned; capabilities it adds stay
 * ungranted and capabilities it drops leave the grant.
 */
export async function upgradePlugin(
  ctx: PluginAdminContext,
  id: string,
  options: { expected_version: string },
): Promise<Outcome<{ installation: Installation; diff: UpgradeReview }>> {
  const preview = await previewUpgrade(ctx, id);
  if (!preview.ok) return preview;
  const { diff } = preview;
  if (diff.to_version !== options.expected_version) {
    return refused(
      "invalid_request",
      `The manifest now carries version "${diff.to_version}", not the reviewed "${options.expected_version}": review again`,
    );
  }
  const row = (await readInstallation(ctx.db, ctx.siteId, id))!;
  const before = installationOf(row);
  const kept = before.capabilities.filter((c) =>
    diff.manifest.capabilities.includes(c)
  );
  const done = await audited(
    ctx,
    row,
    "plugin.upgrade",
    {
      from_version: diff.from_version,
      to_version: diff.to_version,
      capabilities_added: diff.capabilities_added,
      capabilities_removed: diff.capabilities_removed,
    },
    async (tx, now) => {
      await tx.updateTable("plugin_installations").set({
        name: diff.manifest.name,
        version: diff.manifest.version,
        protocol_version: diff.manifest.protocol_version,
        manifest: JSON.stringify(diff.manifest),
        grant_capabilities: JSON.stringify(kept),
        updated_at: now,
      }).where("site_id", "=", ctx.siteId).where("id", "=", id).execute();
      return true;
    },
  );
  if (typeof done === "object") return done;
  const after = await current(ctx, id);
  if (!after.ok) return after;
  return { ok: true, installation: after.installation, diff };
}
