// Installation lifecycle (spec 1 part 3.1): install, hand-off, rotate, disable, enable, uninstall, grant, upgrade.
import { personActor } from "../access/actor.ts";
import { personHolding } from "../access/person_authority.ts";
import type { Clock } from "../clock.ts";
import type { Db } from "../db/database.ts";
import { snapshotActor } from "../entries/actor_snapshot.ts";
import { isId } from "../entries/store.ts";
import {
  type AuditEntryInput,
  type AuditWriter,
  ledgerAuditWriter,
} from "../entries/audit.ts";
import type { PluginCall } from "./calls.ts";
import {
  type Installation,
  installationOf,
  type InstallationRow,
  listInstallationRows,
  type PolicyMode,
  readInstallation,
} from "./installation_store.ts";
import {
  type ManifestIssue,
  type ManifestV1,
  parseManifest,
} from "./manifest.ts";
import { type ManifestChanges, manifestChanges } from "./manifest_changes.ts";
import { answerJson } from "./outbound.ts";
import { type Capability, LIMITS } from "./protocol.ts";
import { mintToken, tokenDigest } from "./tokens.ts";

/** What every administrative act needs: the site, the acting person, the stores and the plugin door. */
export interface PluginAdminContext {
  db: Db;
  clock: Clock;
  siteId: string;
  /** The signed-in person acting; they must hold `site:plugins` now. */
  userId: string;
  call: PluginCall;
  /** The service's own address, sent in hand-offs so the plugin knows where to call. */
  serviceUrl: string;
  /** The admin audit ledger writer; a failing writer refuses the act with `audit_unavailable`. */
  audit?: AuditWriter;
  newId?: () => string;
}

/** Refusals of administrative acts. */
export type PluginAdminRefusalCode =
  | "site_access_denied"
  | "missing_permission"
  | "not_found"
  | "invalid_request"
  | "audit_unavailable"
  | "installation_state"
  | "already_installed"
  | "manifest_identity_changed"
  | "activation_refused"
  | "url_not_https"
  | "url_destination_refused"
  | "remote_redirect_refused"
  | "plugin_unreachable"
  | "plugin_timeout"
  | "plugin_response_invalid";

/** A refused act; nothing changed. */
export interface PluginAdminRefusal {
  ok: false;
  code: PluginAdminRefusalCode;
  message: string;
  issues?: ManifestIssue[];
}

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

type Outcome<T> = ({ ok: true } & T) | PluginAdminRefusal;

function refused(
  code: PluginAdminRefusalCode,
  message: string,
  extra: { issues?: ManifestIssue[] } = {},
): PluginAdminRefusal {
  return { ok: false, code, message, ...extra };
}

class AuditDown extends Error {}

async function allowed(
  ctx: PluginAdminContext,
): Promise<PluginAdminRefusal | null> {
  const held = await personHolding(ctx.db, {
    siteId: ctx.siteId,
    personId: ctx.userId,
    permission: "site:plugins",
  });
  if (held.ok) return null;
  return held.code === "missing_permission"
    ? refused(
      "missing_permission",
      "Managing plugins needs the site:plugins permission",
    )
    : refused("site_access_denied", "No access to this site");
}

/** Runs `body` in one transaction with the act's audit entry; a failed audit write changes nothing. */
async function audited<T>(
  ctx: PluginAdminContext,
  installation: { id: string; plugin_id: string },
  action: string,
  details: Record<string, unknown>,
  body: (tx: Db, now: Date) => Promise<T>,
): Promise<T | PluginAdminRefusal> {
  const newId = ctx.newId ?? (() => crypto.randomUUID());
  const writer = ctx.audit ?? ledgerAuditWriter;
  try {
    return await ctx.db.transaction().execute(async (tx) => {
      const now = ctx.clock.now();
      const result = await body(tx, now);
      const actor = await snapshotActor(
        tx,
        ctx.siteId,
        personActor(ctx.userId),
      );
      const entry: AuditEntryInput = {
        id: newId(),
        siteId: ctx.siteId,
        actor,
        action,
        target: {
          kind: "installation",
          installation_id: installation.id,
          plugin_id: installation.plugin_id,
        },
        details,
        at: now,
      };
      try {
        await writer.write(tx, entry);
      } catch {
        throw new AuditDown();
      }
      return result;
    });
  } catch (error) {
    if (error instanceof AuditDown) {
      return refused(
        "audit_unavailable",
        "The audit ledger is unavailable: nothing was changed",
      );
    }
    throw error;
  }
}

class ProbeRolledBack extends Error {}

/**
 * Whether the ledger takes the act's entry now: written and rolled back. A hand-off gives the
 * plugin a token before the act is recorded, so an unwritable ledger must stop it first, or the
 * plugin would hold a token the service never accepts.
 */
async function ledgerTakes(
  ctx: PluginAdminContext,
  installation: { id: string; plugin_id: string },
  action: string,
): Promise<PluginAdminRefusal | null> {
  const writer = ctx.audit ?? ledgerAuditWriter;
  try {
    await ctx.db.transaction().execute(async (tx) => {
      const actor = await snapshotActor(
        tx,
        ctx.siteId,
        personActor(ctx.userId),
      );
      try {
        await writer.write(tx, {
          // Rolled back: an injected id source is kept for the real entry.
          id: crypto.randomUUID(),
          siteId: ctx.siteId,
          actor,
          action,
          target: {
            kind: "installation",
            installation_id: installation.id,
            plugin_id: installation.plugin_id,
          },
          details: {},
          at: ctx.clock.now(),
        });
      } catch {
        throw new AuditDown();
      }
      throw new ProbeRolledBack();
    });
  } catch (error) {
    if (error instanceof ProbeRolledBack) return null;
    if (error instanceof AuditDown) {
      return refused(
        "audit_unavailable",
        "The audit ledger is unavailable: nothing was changed",
      );
    }
    throw error;
  }
  return null;
}

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

async function current(
  ctx: PluginAdminContext,
  id: string,
): Promise<Outcome<{ installation: Installation }>> {
  const row = await readInstallation(ctx.db, ctx.siteId, id);
  if (!row) return refused("not_found", "No such installation on this site");
  return { ok: true, installation: installationOf(row) };
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

/** The row of an installation an administrator may still change: not revoked. */
async function changeableRow(
  ctx: PluginAdminContext,
  id: string,
): Promise<InstallationRow | PluginAdminRefusal> {
  const denied = await allowed(ctx);
  if (denied) return denied;
  const row = await readInstallation(ctx.db, ctx.siteId, id);
  if (!row) return refused("not_found", "No such installation on this site");
  if (row.state === "revoked") {
    return refused("installation_state", "A revoked installation is final");
  }
  return row;
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
