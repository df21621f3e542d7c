// How every admin act on an installation runs (spec 1 part 3.1, part 6): the caller's
// permission checked, the change and its audit entry written together, refused with
// audit_unavailable when the ledger cannot take it, and the installation row read under lock.
import { personActor } from "../access/actor.ts";
import { personHolding } from "../access/person_authority.ts";
import type { Clock } from "../clock.ts";
import type { Db } from "../db/database.ts";
import { snapshotActor } from "../entries/actor_snapshot.ts";
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
  readInstallation,
} from "./installation_store.ts";
import type { ManifestIssue } from "./manifest.ts";

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

export type Outcome<T> = ({ ok: true } & T) | PluginAdminRefusal;

export function refused(
  code: PluginAdminRefusalCode,
  message: string,
  extra: { issues?: ManifestIssue[] } = {},
): PluginAdminRefusal {
  return { ok: false, code, message, ...extra };
}

class AuditDown extends Error {}

export async function allowed(
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
export async function audited<T>(
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
export async function ledgerTakes(
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

export async function current(
  ctx: PluginAdminContext,
  id: string,
): Promise<Outcome<{ installation: Installation }>> {
  const row = await readInstallation(ctx.db, ctx.siteId, id);
  if (!row) return refused("not_found", "No such installation on this site");
  return { ok: true, installation: installationOf(row) };
}

/** The row of an installation an administrator may still change: not revoked. */
export async function changeableRow(
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
