// Launches and delegations (spec 1 parts 2.3, 2.4, 5.6 to 5.8): minting, exchange, and the check on every command.
import { type RawBuilder, sql } from "kysely";
import type { PluginActor } from "../access/actor.ts";
import {
  type Authority,
  authorityFromRows,
  loadAuthority,
} from "../access/authority.ts";
import { decide, readReach } from "../access/decide.ts";
import type { Clock } from "../clock.ts";
import type { Db } from "../db/database.ts";
import { type GroupRow, isId, readGroup } from "../entries/store.ts";
import { OneTimeCodes } from "../kv/one_time_codes.ts";
import { type PluginRefusal, pluginRefusal } from "./api_support.ts";
import {
  type Installation,
  installationOf,
  readInstallation,
} from "./installation_store.ts";
import { LIMITS } from "./protocol.ts";

/** What a launch is bound to, kept in KV under the code's digest. */
interface LaunchPayload {
  siteId: string;
  installationId: string;
  userId: string;
  action: string;
  view: string | null;
  instanceId: string | null;
  /** A management credential's models: the delegation reaches no other (MPL-005). */
  modelLimit?: string[] | null;
  /** A management credential's scope-derived capabilities (MPL-006); null for a person. */
  capabilities?: string[] | null;
}

/** What a launch asks for: the management page (optionally one view) or a content action on one instance. */
export type LaunchRequest =
  | { kind: "manage"; view?: string }
  | { kind: "content_action"; action: string; instance_id: string };

/** What {@linkcode createLaunch} needs. */
export interface LaunchContext {
  db: Db;
  kv: Deno.Kv;
  clock: Clock;
  siteId: string;
  userId: string;
  /** A management credential's models, when it launches for its creator (MPL-005). */
  models?: readonly string[] | null;
  /** The capabilities a credential's scopes allow (MPL-006); null or absent for a person. */
  capabilities?: readonly string[] | null;
}

/** A minted launch: the code exists only in this answer and the URL. */
export interface Launch {
  code: string;
  expires_at: string;
  /** The plugin's page with `svc_launch` (and `svc_view`); open it with no referrer. */
  url: string;
  installation_id: string;
  action: string;
  view: string | null;
  instance_id: string | null;
}

/** Refusals of a launch. */
export type LaunchRefusalCode =
  | "not_found"
  | "installation_state"
  | "site_access_denied"
  | "missing_permission"
  | "model_not_granted"
  | "invalid_request";

/** One model a delegation reaches, with how much of it the person reads. */
export interface DelegatedModel {
  model_id: string;
  access: "read" | "read:own";
}

function launchPurpose(installationId: string): string {
  return `launch:${installationId}`;
}

function launchRefused(code: LaunchRefusalCode, message: string) {
  return { ok: false as const, code, message };
}

/** The granted models the person reads now, each with `read` or `read:own`. */
export function readableGranted(
  authority: Authority,
  installation: Installation,
): DelegatedModel[] {
  const models: DelegatedModel[] = [];
  for (const id of installation.modelIds) {
    const reach = readReach(authority, id);
    if (reach === "all") models.push({ model_id: id, access: "read" });
    if (reach === "own") models.push({ model_id: id, access: "read:own" });
  }
  return models;
}

function readsGroup(authority: Authority, group: GroupRow): boolean {
  return decide(authority, {
    action: "read",
    model: group.model_id,
    owner: group.created_by,
  }).ok;
}

/**
 * Mints a launch code after every check of spec 1 part 5 item 7: the person has access
 * to the site; a bare manage launch needs `site:plugins`; a manage launch naming a
 * declared view needs one granted model the person reads; a content action needs read
 * access to the item and its model in the grant (`model_not_granted`).
 */
export async function createLaunch(
  ctx: LaunchContext,
  installationId: string,
  request: LaunchRequest,
) {
  const row = await readInstallation(ctx.db, ctx.siteId, installationId);
  if (!row) return launchRefused("not_found", "No such installation");
  const installation = installationOf(row);
  if (installation.state !== "active") {
    return launchRefused(
      "installation_state",
      `The installation is ${installation.state}`,
    );
  }
  const loaded = await loadAuthority(ctx.db, {
    siteId: ctx.siteId,
    actor: { kind: "person", userId: ctx.userId },
  });
  if (!loaded.ok) {
    return launchRefused("site_access_denied", "No access to this site");
  }
  const authority = loaded.authority;
  const manifest = installation.manifest;
  if (manifest.management_url === undefined) {
    return launchRefused(
      "invalid_request",
      "The plugin declares no management page to launch",
    );
  }
  let action: string;
  let view: string | null = null;
  let instanceId: string | null = null;
  if (request.kind === "manage") {
    action = "manage";
    if (request.view === undefined) {
      if (!decide(authority, { action: "site:plugins" }).ok) {
        return launchRefused(
          "missing_permission",
          "Opening the plugin's management page needs site:plugins",
        );
      }
    } else {
      if (!manifest.manage_views.some((v) => v.id === request.view)) {
        return launchRefused(
          "invalid_request",
          `The plugin declares no view "${request.view}"`,
        );
      }
      const readable = readableGranted(authority, installation);
      if (readable.length === 0) {
        return launchRefused(
          "missing_permission",
          "This view needs a granted model you may read",
        );
      }
      // A credential limited to some models launches with only those (the delegation is
      // narrowed the same way at exchange), so the overlap must hold one.
      const limit = ctx.models;
      if (limit && !readable.some((m) => limit.includes(m.model_id))) {
        return launchRefused(
          "model_not_granted",
          "None of the models this credential may reach is granted to the plugin",
        );
      }
      view = request.view;
    }
  } else {
    const declared = manifest.content_actions.find((a) =>
      a.id === request.action
    );
    if (!declared) {
      return launchRefused(
        "invalid_request",
        `The plugin declares no content action "${request.action}"`,
      );
    }
    const entry = isId(request.instance_id)
      ? await ctx.db.selectFrom("entries").select(["group_id"])
        .where("site_id", "=", ctx.siteId)
        .where("id", "=", request.instance_id).executeTakeFirst()
      : undefined;
    const group = entry
      ? await readGroup(ctx.db, ctx.siteId, entry.group_id)
      : undefined;
    if (!group || !readsGroup(authority, group)) {
      return launchRefused("not_found", "No such content you may read");
    }
    if (!installation.modelIds.includes(group.model_id)) {
      return launchRefused(
        "model_not_granted",
        "The item's model is not granted to this plugin",
      );
    }
    if (ctx.models && !ctx.models.includes(group.model_id)) {
      return launchRefused("not_found", "No such content you may read");
    }
    action = declared.id;
    instanceId = request.instance_id;
  }
  const codes = new OneTimeCodes(ctx.kv, { clock: ctx.clock });
  const payload: LaunchPayload = {
    siteId: ctx.siteId,
    installationId,
    userId: ctx.userId,
    action,
    view,
    instanceId,
    modelLimit: ctx.models ? [...ctx.models] : null,
    capabilities: ctx.capabilities ? [...ctx.capabilities] : null,
  };
  const issued = await codes.issue(launchPurpose(installationId), {
    prefix: "svl_",
    ttlMs: LIMITS.launch_code_ms,
    payload,
  });
  const url = new URL(
    manifest.management_url.replaceAll("{installation_id}", installationId),
  );
  url.searchParams.set("svc_launch", issued.code);
  if (view !== null) url.searchParams.set("svc_view", view);
  const launch: Launch = {
    code: issued.code,
    expires_at: issued.expiresAt.toISOString(),
    url: url.toString(),
    installation_id: installationId,
    action,
    view,
    instance_id: instanceId,
  };
  return { ok: true as const, launch };
}

/** A delegation as the plugin receives it. */
export interface DelegationView {
  delegation_id: string;
  action: string;
  view: string | null;
  instance_id: string | null;
  group_id: string | null;
  model_ids: DelegatedModel[];
  user: { id: string; email: string };
}

/** What the exchanges need. */
export interface ExchangeContext {
  db: Db;
  kv: Deno.Kv;
  clock: Clock;
  installation: Installation;
  newId?: () => string;
}

const CODE_REFUSED =
  "The code is unknown, used, expired or was not minted for this installation";

/**
 * Exchanges a launch code (one-time, 60 s, bound to this installation) for a delegation
 * record bound to installation, site and person. The person must still have access now.
 */
export async function exchangeLaunch(
  ctx: ExchangeContext,
  code: string,
): Promise<{ ok: true; delegation: DelegationView } | PluginRefusal> {
  if (!/^svl_[A-Za-z0-9_-]{43}$/.test(code)) {
    return pluginRefusal("invalid_request", CODE_REFUSED);
  }
  const codes = new OneTimeCodes(ctx.kv, { clock: ctx.clock });
  const consumed = await codes.consume<LaunchPayload>(
    code,
    launchPurpose(ctx.installation.id),
  );
  if (!consumed.ok) return pluginRefusal("invalid_request", CODE_REFUSED);
  const p = consumed.payload;
  if (
    p.siteId !== ctx.installation.siteId ||
    p.installationId !== ctx.installation.id
  ) {
    return pluginRefusal("invalid_request", CODE_REFUSED);
  }
  const loaded = await loadAuthority(ctx.db, {
    siteId: p.siteId,
    actor: { kind: "person", userId: p.userId },
  });
  if (!loaded.ok) {
    return pluginRefusal(
      "requester_unauthorized",
      "The person who launched no longer has access to the site",
    );
  }
  let groupId: string | null = null;
  let models: DelegatedModel[];
  if (p.instanceId !== null) {
    const entry = await ctx.db.selectFrom("entries").select(["group_id"])
      .where("site_id", "=", p.siteId).where("id", "=", p.instanceId)
      .executeTakeFirst();
    const group = entry
      ? await readGroup(ctx.db, p.siteId, entry.group_id)
      : undefined;
    if (
      !group || !readsGroup(loaded.authority, group) ||
      !ctx.installation.modelIds.includes(group.model_id)
    ) {
      return pluginRefusal(
        "requester_unauthorized",
        "The person may no longer read the launched item",
      );
    }
    groupId = group.id;
    const reach = readReach(loaded.authority, group.model_id);
    models = [{
      model_id: group.model_id,
      access: reach === "all" ? "read" : "read:own",
    }];
  } else {
    models = readableGranted(loaded.authority, ctx.installation);
  }
  const limit = p.modelLimit;
  if (limit) models = models.filter((m) => limit.includes(m.model_id));
  const user = await ctx.db.selectFrom("users").select(["email"])
    .where("id", "=", p.userId).executeTakeFirstOrThrow();
  const id = (ctx.newId ?? (() => crypto.randomUUID()))();
  await ctx.db.insertInto("plugin_delegations").values({
    id,
    site_id: p.siteId,
    installation_id: ctx.installation.id,
    source: "launch",
    user_id: p.userId,
    user_email: user.email,
    action: p.action,
    view: p.view,
    instance_id: p.instanceId,
    group_id: groupId,
    model_ids: JSON.stringify(models),
    invocation_id: null,
    capabilities: p.capabilities ? JSON.stringify(p.capabilities) : null,
    created_at: ctx.clock.now(),
  }).execute();
  return {
    ok: true,
    delegation: {
      delegation_id: id,
      action: p.action,
      view: p.view,
      instance_id: p.instanceId,
      group_id: groupId,
      model_ids: models,
      user: { id: p.userId, email: user.email },
    },
  };
}

/** A delegation usable now: its row, the plugin actor and the person's current authority. */
export interface UsableDelegation {
  ok: true;
  id: string;
  userId: string;
  email: string;
  groupId: string | null;
  models: DelegatedModel[];
  actor: PluginActor;
  authority: Authority;
}

/**
 * Re-checks a delegation against the person's authority now (spec 1 part 5 item 8):
 * another installation's or unknown delegation, a deactivated person or one without a
 * role are `requester_unauthorized`. With a group, a content-action delegation reaches
 * only its own translation group (`requester_unauthorized`); a manage delegation reaches
 * a group whose model is granted (`content_not_found`), in its `model_ids`
 * (`requester_unauthorized`) and readable by the person now (`content_not_found`).
 */
export async function useDelegation(
  db: Db,
  installation: Installation,
  delegationId: string,
  group?: GroupRow,
  needs: readonly string[] = [],
  /** The delegation as a caller read it a moment ago in a statement of its own (see delegationJson). */
  read?: { row: DelegationRow | undefined },
): Promise<UsableDelegation | PluginRefusal> {
  const unusable = pluginRefusal(
    "requester_unauthorized",
    "The delegation is not usable: a person with authority must launch the plugin again",
  );
  if (!isId(delegationId)) return unusable;
  const row = read
    ? read.row
    : await readDelegation(db, installation, delegationId);
  if (
    !row || row.site_id !== installation.siteId ||
    row.installation_id !== installation.id
  ) {
    return unusable;
  }
  const allowed =
    (typeof row.capabilities === "string"
      ? JSON.parse(row.capabilities)
      : row.capabilities) as string[] | null;
  const outside = allowed === null
    ? []
    : needs.filter((n) => !allowed.includes(n));
  if (outside.length > 0) {
    return pluginRefusal(
      "capability_refused",
      `The credential that delegated this does not allow ${outside.join(", ")}`,
    );
  }
  const actor: PluginActor = {
    kind: "plugin",
    installationId: installation.id,
    name: installation.name,
    version: installation.version,
    delegatedUserId: row.user_id,
    delegatedEmail: row.user_email,
    pluginId: installation.pluginId,
    protocolVersion: installation.protocolVersion,
    delegationId: row.id,
  };
  const loaded = authorityFromRows(
    installation.siteId,
    actor,
    null,
    row.m_status === null ? null : {
      status: row.m_status,
      role_id: row.m_role_id!,
      permissions: row.m_permissions,
    },
  );
  if (!loaded.ok) return unusable;
  const models =
    (typeof row.model_ids === "string"
      ? JSON.parse(row.model_ids)
      : row.model_ids) as DelegatedModel[];
  if (group) {
    if (row.group_id !== null) {
      if (row.group_id !== group.id) {
        return pluginRefusal(
          "requester_unauthorized",
          "The delegation is bound to another item's translation group",
        );
      }
      if (!installation.modelIds.includes(group.model_id)) {
        return pluginRefusal("content_not_found", "No such content in scope");
      }
    } else {
      if (!installation.modelIds.includes(group.model_id)) {
        return pluginRefusal("content_not_found", "No such content in scope");
      }
      if (!models.some((m) => m.model_id === group.model_id)) {
        return unusable;
      }
      if (!readsGroup(loaded.authority, group)) {
        return pluginRefusal("content_not_found", "No such content in scope");
      }
    }
    if (!readsGroup(loaded.authority, group)) return unusable;
  }
  return {
    ok: true,
    id: row.id,
    userId: row.user_id,
    email: row.user_email,
    groupId: row.group_id,
    models,
    actor,
    authority: loaded.authority,
  };
}

/**
 * The delegation `delegationId` (a UUID) with its person's status and role on the
 * installation's site, as one JSON value: a column another statement reads alongside its own.
 */
export function delegationJson(
  siteId: string,
  delegationId: string,
): RawBuilder<unknown> {
  return sql`(select json_build_object('row', to_json(d), 'm_status', m.status,
      'm_role_id', m.role_id, 'm_permissions', m.permissions)
    from plugin_delegations d
    left join lateral (
      select u.status, r.id as role_id, r.permissions
      from users u
      join site_members sm on sm.user_id = u.id
      join roles r on r.id = sm.role_id
      where u.id = d.user_id and sm.site_id = ${siteId}
        and r.site_id = ${siteId}
      limit 1
    ) m on true
    where d.id = ${delegationId})`;
}

/** The row of a {@linkcode delegationJson} column (null: no such delegation). */
export function delegationFromJson(value: unknown): DelegationRow | undefined {
  const json = (typeof value === "string" ? JSON.parse(value) : value) as {
    row:
      & Omit<
        DelegationRow,
        "created_at" | "m_status" | "m_role_id" | "m_permissions"
      >
      & {
        created_at: string;
      };
    m_status: DelegationRow["m_status"];
    m_role_id: string | null;
    m_permissions: unknown;
  } | null;
  if (!json) return undefined;
  return {
    ...json.row,
    created_at: new Date(json.row.created_at),
    m_status: json.m_status,
    m_role_id: json.m_role_id,
    m_permissions: json.m_permissions,
  };
}

/** A delegation row with its person's membership columns (null when none). */
export type DelegationRow = NonNullable<
  Awaited<ReturnType<typeof readDelegation>>
>;

/** The delegation and its person's status and role on the installation's site, in one statement. */
function readDelegation(
  db: Db,
  installation: Installation,
  delegationId: string,
) {
  return db.selectFrom("plugin_delegations as d")
    .leftJoinLateral(
      (eb) =>
        eb.selectFrom("users as u")
          .innerJoin("site_members as sm", "sm.user_id", "u.id")
          .innerJoin("roles as r", "r.id", "sm.role_id")
          .select(["u.status", "r.id as role_id", "r.permissions"])
          .whereRef("u.id", "=", "d.user_id")
          .where("sm.site_id", "=", installation.siteId)
          .where("r.site_id", "=", installation.siteId)
          .limit(1)
          .as("m"),
      (join) => join.onTrue(),
    )
    .selectAll("d")
    .select([
      "m.status as m_status",
      "m.role_id as m_role_id",
      "m.permissions as m_permissions",
    ])
    .where("d.id", "=", delegationId).executeTakeFirst();
}
