// Installation lifecycle (spec 1 part 3.1): install, hand-off, rotate, disable, enable, uninstall, grant, upgrade.
import { isId } from "../entries/store.ts";
import type { PluginCall } from "./calls.ts";
import {
  type Installation,
  installationOf,
  type InstallationRow,
  listInstallationRows,
  type PolicyMode,
  readInstallation,
} from "./installation_store.ts";
import type { ManifestV1 } from "./manifest.ts";
import { type Capability, LIMITS } from "./protocol.ts";
import { mintToken, tokenDigest } from "./tokens.ts";
import {
  allowed,
  audited,
  changeableRow,
  current,
  ledgerTakes,
  type Outcome,
  type PluginAdminContext,
  type PluginAdminRefusal,
  refused,
} from "./installation_acts.ts";
import { fetchManifest } from "./installation_upgrades.ts";
export {
  fetchManifest,
  previewUpgrade,
  upgradePlugin,
} from "./installation_upgrades.ts";
export type { UpgradeDiff, UpgradeReview } from "./installation_upgrades.ts";

export type {
  PluginAdminContext,
  PluginAdminRefusal,
  PluginAdminRefusalCode,
} from "./installation_acts.ts";

/** The grant an administrator chooses: capabilities and model ids (never slugs). */
export interface Grant {
  capabilities: Capability[];
  model_ids: string[];
}

/** Options of {@linkcode installPlugin}. */
export interface InstallOptions {
  manifest_url: string;
  /** The one-time activation code the plugin issued; sent once in the hand-off, never stored. */
  activation_code: string;
  grant: Grant;
}

async function checkGrant(
  ctx: PluginAdminContext,
  manifest: ManifestV1,
  grant: Grant,
): Promise<PluginAdminRefusal | null> {
  const requested = new Set<string>(manifest.capabilities);
  const extra = grant.capabilities.filter((c) => !requested.has(c));
  if (extra.length > 0) {
    return refused(
      "invalid_request",
      `Cannot grant capabilities the manifest does not request: ${
        extra.join(", ")
      }`,
    );
  }
  const ids = [...new Set(grant.model_ids)];
  if (ids.some((id) => !isId(id))) {
    return refused("invalid_request", "Grants name models by id");
  }
  if (ids.length > 0) {
    const found = await ctx.db.selectFrom("models").select("id")
      .where("site_id", "=", ctx.siteId).where("id", "in", ids).execute();
    if (found.length !== ids.length) {
      return refused(
        "invalid_request",
        "Every granted model must be a model of this site",
      );
    }
  }
  return null;
}

// A hand-off that could not be delivered or was not answered in time is refused as the plugin
// refusing it (PLG-004): either way nothing activates or rotates, and the minted token is dropped.
const UNDELIVERED: ReadonlySet<string> = new Set([
  "plugin_unreachable",
  "plugin_timeout",
]);

function handoffRefusal(
  answer: Awaited<ReturnType<PluginCall>>,
): PluginAdminRefusal | null {
  if (!answer.ok && UNDELIVERED.has(answer.code)) {
    return refused(
      "activation_refused",
      `The plugin did not accept the hand-off: ${answer.message}`,
    );
  }
  if (!answer.ok) return refused(answer.code, answer.message);
  if (answer.status < 200 || answer.status > 299) {
    return refused(
      "activation_refused",
      `The plugin refused the hand-off (HTTP ${answer.status})`,
    );
  }
  return null;
}

/**
 * Installs a plugin: fetches and validates the manifest, checks the grant, writes a
 * `pending` installation with its audit entry, then hands a fresh token and the
 * plugin's one-time code to the manifest's pinned `activation_url`; a 2xx makes it
 * `active`. A refused hand-off leaves it `pending` (retry with {@linkcode activatePlugin}).
 */
export async function installPlugin(
  ctx: PluginAdminContext,
  options: InstallOptions,
): Promise<Outcome<{ installation: Installation }>> {
  const denied = await allowed(ctx);
  if (denied) return denied;
  const fetched = await fetchManifest(ctx, options.manifest_url);
  if (!fetched.ok) return fetched;
  const { manifest } = fetched;
  const badGrant = await checkGrant(ctx, manifest, options.grant);
  if (badGrant) return badGrant;
  const existing = await ctx.db.selectFrom("plugin_installations").select("id")
    .where("site_id", "=", ctx.siteId).where("plugin_id", "=", manifest.id)
    .where("state", "<>", "revoked").executeTakeFirst();
  if (existing) {
    return refused(
      "already_installed",
      `Plugin "${manifest.id}" is already installed on this site: upgrade it instead`,
    );
  }
  const id = (ctx.newId ?? (() => crypto.randomUUID()))();
  const grant = {
    capabilities: [...new Set(options.grant.capabilities)],
    model_ids: [...new Set(options.grant.model_ids)],
  };
  const written = await audited(
    ctx,
    { id, plugin_id: manifest.id },
    "plugin.install",
    {
      name: manifest.name,
      version: manifest.version,
      protocol_version: manifest.protocol_version,
      manifest_url: options.manifest_url,
      grant,
    },
    async (tx, now) => {
      await tx.insertInto("plugin_installations").values({
        id,
        site_id: ctx.siteId,
        plugin_id: manifest.id,
        name: manifest.name,
        version: manifest.version,
        protocol_version: manifest.protocol_version,
        state: "pending",
        token_hash: null,
        previous_token_hash: null,
        previous_token_expires_at: null,
        grant_capabilities: JSON.stringify(grant.capabilities),
        grant_model_ids: JSON.stringify(grant.model_ids),
        manifest: JSON.stringify(manifest),
        manifest_url: options.manifest_url,
        installed_by: ctx.userId,
        created_at: now,
        updated_at: now,
        revoked_at: null,
      }).execute();
      return true;
    },
  );
  if (typeof written === "object") return written;
  return await handOff(ctx, id, "activate", options.activation_code);
}

/** Retries the activation hand-off of a `pending` installation with a fresh one-time code. */
export async function activatePlugin(
  ctx: PluginAdminContext,
  id: string,
  code: string,
): Promise<Outcome<{ installation: Installation }>> {
  const denied = await allowed(ctx);
  if (denied) return denied;
  return await handOff(ctx, id, "activate", code);
}

/**
 * Rotates the token of an `active` installation: a new token and the plugin's fresh code
 * go to the pinned `activation_url` with `kind: "rotate"`; only on a 2xx is the digest
 * swapped, the previous one working at most 10 minutes more (or until the new one is used).
 */
export async function rotateToken(
  ctx: PluginAdminContext,
  id: string,
  code: string,
): Promise<Outcome<{ installation: Installation }>> {
  const denied = await allowed(ctx);
  if (denied) return denied;
  return await handOff(ctx, id, "rotate", code);
}

async function handOff(
  ctx: PluginAdminContext,
  id: string,
  kind: "activate" | "rotate",
  code: string,
): Promise<Outcome<{ installation: Installation }>> {
  const row = await readInstallation(ctx.db, ctx.siteId, id);
  if (!row) return refused("not_found", "No such installation on this site");
  const expected = kind === "activate" ? "pending" : "active";
  if (row.state !== expected) {
    return refused(
      "installation_state",
      `Cannot ${kind} an installation that is ${row.state}`,
    );
  }
  if (typeof code !== "string" || code.length < 1 || code.length > 512) {
    return refused("invalid_request", "The plugin's one-time code is required");
  }
  const down = await ledgerTakes(
    ctx,
    row,
    kind === "activate" ? "plugin.activate" : "plugin.rotate",
  );
  if (down) return down;
  const manifest = installationOf(row).manifest;
  const token = mintToken();
  const answer = await ctx.call({
    url: manifest.activation_url,
    method: "POST",
    purpose: kind === "activate" ? "activation" : "rotation",
    json: {
      kind,
      code,
      token,
      installation_id: row.id,
      site_id: row.site_id,
      service_url: ctx.serviceUrl,
    },
  });
  const failed = handoffRefusal(answer);
  if (failed) return failed;
  const digest = tokenDigest(token);
  const done = await audited(
    ctx,
    row,
    kind === "activate" ? "plugin.activate" : "plugin.rotate",
    { version: row.version },
    async (tx, now) => {
      const query = tx.updateTable("plugin_installations")
        .where("site_id", "=", ctx.siteId).where("id", "=", row.id)
        .where("state", "=", expected);
      const result = kind === "activate"
        ? await query.set({
          state: "active",
          token_hash: digest,
          updated_at: now,
        }).executeTakeFirst()
        : await query.set({
          token_hash: digest,
          previous_token_hash: row.token_hash,
          previous_token_expires_at: new Date(
            now.getTime() + LIMITS.previous_token_overlap_ms,
          ),
          updated_at: now,
        }).where("token_hash", "=", row.token_hash).executeTakeFirst();
      return result.numUpdatedRows === 1n;
    },
  );
  if (done === false) {
    return refused(
      "installation_state",
      "The installation changed during the hand-off: nothing was changed",
    );
  }
  if (typeof done === "object") return done;
  return await current(ctx, row.id);
}

async function move(
  ctx: PluginAdminContext,
  id: string,
  from: readonly InstallationRow["state"][],
  action: string,
  change: (now: Date) => Partial<
    Pick<
      InstallationRow,
      | "state"
      | "token_hash"
      | "previous_token_hash"
      | "previous_token_expires_at"
      | "revoked_at"
    >
  >,
): Promise<Outcome<{ installation: Installation }>> {
  const denied = await allowed(ctx);
  if (denied) return denied;
  const row = await readInstallation(ctx.db, ctx.siteId, id);
  if (!row) return refused("not_found", "No such installation on this site");
  if (!from.includes(row.state)) {
    return refused(
      "installation_state",
      `Cannot do "${action}" on an installation that is ${row.state}`,
    );
  }
  const done = await audited(
    ctx,
    row,
    action,
    { from: row.state },
    async (tx, now) => {
      const result = await tx.updateTable("plugin_installations")
        .set({ ...change(now), updated_at: now })
        .where("site_id", "=", ctx.siteId).where("id", "=", id)
        .where("state", "=", row.state).executeTakeFirst();
      return result.numUpdatedRows === 1n;
    },
  );
  if (done === false) {
    return refused("installation_state", "The installation changed meanwhile");
  }
  if (typeof done === "object") return done;
  return await current(ctx, id);
}

/** Disables an active installation: its API stops at the door; the token digest is kept for enable. */
export function disablePlugin(ctx: PluginAdminContext, id: string) {
  return move(ctx, id, ["active"], "plugin.disable", () => ({
    state: "disabled",
  }));
}

/** Enables a disabled installation again: `active` with the token it had. */
export function enablePlugin(ctx: PluginAdminContext, id: string) {
  return move(ctx, id, ["disabled"], "plugin.enable", () => ({
    state: "active",
  }));
}

/** Uninstalls: `revoked`, terminal; both token digests are dropped so no token ever works again. */
export function uninstallPlugin(ctx: PluginAdminContext, id: string) {
  return move(
    ctx,
    id,
    ["pending", "active", "disabled"],
    "plugin.uninstall",
    (now) => ({
      state: "revoked",
      token_hash: null,
      previous_token_hash: null,
      previous_token_expires_at: null,
      revoked_at: now,
    }),
  );
}

/** Replaces the grant; a narrowed grant applies to the very next plugin request. */
export async function changeGrant(
  ctx: PluginAdminContext,
  id: string,
  grant: Grant,
): Promise<Outcome<{ installation: Installation }>> {
  const row = await changeableRow(ctx, id);
  if ("ok" in row) return row;
  const bad = await checkGrant(ctx, installationOf(row).manifest, grant);
  if (bad) return bad;
  const next = {
    capabilities: [...new Set(grant.capabilities)],
    model_ids: [...new Set(grant.model_ids)],
  };
  const before = installationOf(row);
  const done = await audited(
    ctx,
    row,
    "plugin.grant",
    {
      from: { capabilities: before.capabilities, model_ids: before.modelIds },
      to: next,
    },
    async (tx, now) => {
      await tx.updateTable("plugin_installations").set({
        grant_capabilities: JSON.stringify(next.capabilities),
        grant_model_ids: JSON.stringify(next.model_ids),
        updated_at: now,
      }).where("site_id", "=", ctx.siteId).where("id", "=", id).execute();
      return true;
    },
  );
  if (typeof done === "object") return done;
  return await current(ctx, id);
}

/**
 * Sets how one declared policy runs on this site: `blocking`, `advisory` or `off` (the
 * declared mode is the default). Applies to the very next write; audited as `plugin.policy.mode`.
 */
export async function setPolicyMode(
  ctx: PluginAdminContext,
  id: string,
  policyId: string,
  mode: PolicyMode,
): Promise<Outcome<{ installation: Installation }>> {
  const row = await changeableRow(ctx, id);
  if ("ok" in row) return row;
  const before = installationOf(row);
  const policy = before.manifest.policies.find((p) => p.id === policyId);
  if (!policy) {
    return refused("not_found", `The plugin declares no policy "${policyId}"`);
  }
  const modes = { ...before.policyModes, [policy.id]: mode };
  const done = await audited(
    ctx,
    row,
    "plugin.policy.mode",
    {
      policy_id: policy.id,
      policy_label: policy.label,
      from: before.policyModes[policy.id] ?? policy.mode,
      mode,
    },
    async (tx, now) => {
      await tx.updateTable("plugin_installations").set({
        policy_modes: JSON.stringify(modes),
        updated_at: now,
      }).where("site_id", "=", ctx.siteId).where("id", "=", id).execute();
      return true;
    },
  );
  if (typeof done === "object") return done;
  return await current(ctx, id);
}

/** Every installation of the site, for people holding `site:plugins`. */
export async function listInstallations(
  ctx: PluginAdminContext,
): Promise<Outcome<{ installations: Installation[] }>> {
  const denied = await allowed(ctx);
  if (denied) return denied;
  const rows = await listInstallationRows(ctx.db, ctx.siteId);
  return { ok: true, installations: rows.map(installationOf) };
}

/** One installation with its audit trail (newest first). */
export async function installationWithTrail(
  ctx: PluginAdminContext,
  id: string,
): Promise<
  Outcome<{
    installation: Installation;
    trail: { action: string; actor: unknown; details: unknown; at: Date }[];
  }>
> {
  const denied = await allowed(ctx);
  if (denied) return denied;
  const row = await readInstallation(ctx.db, ctx.siteId, id);
  if (!row) return refused("not_found", "No such installation on this site");
  const rows = await ctx.db.selectFrom("audit_entries")
    .select(["action", "actor", "details", "created_at", "target"])
    .where("site_id", "=", ctx.siteId)
    .where("action", "like", "plugin.%")
    .orderBy("created_at", "desc").limit(500).execute();
  const trail = rows.filter((r) => {
    const target =
      (typeof r.target === "string" ? JSON.parse(r.target) : r.target) as {
        installation_id?: string;
      };
    const actor =
      (typeof r.actor === "string" ? JSON.parse(r.actor) : r.actor) as {
        installation_id?: string;
      };
    return target?.installation_id === id || actor?.installation_id === id;
  }).slice(0, 100).map((r) => ({
    action: r.action,
    actor: typeof r.actor === "string" ? JSON.parse(r.actor) : r.actor,
    details: typeof r.details === "string" ? JSON.parse(r.details) : r.details,
    at: new Date(r.created_at),
  }));
  return { ok: true, installation: installationOf(row), trail };
}
