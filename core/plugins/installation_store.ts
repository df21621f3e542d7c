// Installation rows: reading them by site or token digest, and their plain shape.
import { isId } from "../entries/store.ts";
import { type RawBuilder, type Selectable, sql } from "kysely";
import type { Db } from "../db/database.ts";
import { jsonColumn } from "../db/json_column.ts";
import type { PluginInstallationsTable } from "../db/schema.ts";
import type { ManifestV1 } from "./manifest.ts";
import type { Capability, InstallationState } from "./protocol.ts";
import { INSTALLATION_COLUMNS } from "../db/row_columns.ts";
import { prebuilt } from "../db/prebuilt.ts";

/** How a policy runs: its refusals and failures block, only warn, or it is not asked at all. */
export type PolicyMode = "blocking" | "advisory" | "off";

/** A stored installation row. */
export type InstallationRow = Selectable<PluginInstallationsTable>;

/** An installation as services see it: the grant and manifest parsed, no token digests. */
export interface Installation {
  id: string;
  siteId: string;
  pluginId: string;
  name: string;
  version: string;
  protocolVersion: number;
  state: InstallationState;
  capabilities: Capability[];
  modelIds: string[];
  manifest: ManifestV1;
  manifestUrl: string;
  createdAt: Date;
  updatedAt: Date;
  /** True while a previous token still works after a rotation. */
  overlapping: boolean;
  /** Modes an administrator chose for some policies; the others run as declared. */
  policyModes: Record<string, PolicyMode>;
}

/**
 * The site's active installations as one JSON column, in the order the policies are asked
 * (oldest first): for a caller that reads them in a statement it runs anyway.
 */
export function activeInstallationsJson(
  siteId: string,
): RawBuilder<unknown> {
  return sql`(select coalesce(json_agg(to_json(pi) order by pi.created_at, pi.id), '[]'::json)
    from plugin_installations pi where pi.site_id = ${siteId} and pi.state = 'active')`;
}

/** The rows an {@linkcode activeInstallationsJson} column answered (its dates as text). */
export function installationRowsOf(value: unknown): InstallationRow[] {
  return jsonColumn<InstallationRow[]>(value);
}

/** The plain shape of a row. */
export function installationOf(row: InstallationRow): Installation {
  return {
    id: row.id,
    siteId: row.site_id,
    pluginId: row.plugin_id,
    name: row.name,
    version: row.version,
    protocolVersion: row.protocol_version,
    state: row.state,
    capabilities: jsonColumn<Capability[]>(row.grant_capabilities),
    modelIds: jsonColumn<string[]>(row.grant_model_ids),
    manifest: jsonColumn<ManifestV1>(row.manifest),
    manifestUrl: row.manifest_url,
    createdAt: new Date(row.created_at),
    updatedAt: new Date(row.updated_at),
    overlapping: row.previous_token_hash !== null,
    policyModes: jsonColumn<Record<string, PolicyMode>>(row.policy_modes ?? {}),
  };
}

/** One installation of the site, or undefined (also for a malformed id). */
export async function readInstallation(
  db: Db,
  siteId: string,
  id: string,
  options: { lock?: boolean } = {},
): Promise<InstallationRow | undefined> {
  if (!isId(id)) return undefined;
  let query = db.selectFrom("plugin_installations").select(INSTALLATION_COLUMNS)
    .where("site_id", "=", siteId).where("id", "=", id);
  if (options.lock) query = query.forUpdate();
  return await query.executeTakeFirst();
}

/** Every installation of the site, newest first (revoked ones too: their audit trail stays readable). */
export async function listInstallationRows(
  db: Db,
  siteId: string,
): Promise<InstallationRow[]> {
  return await db.selectFrom("plugin_installations").select(
    INSTALLATION_COLUMNS,
  )
    .where("site_id", "=", siteId).orderBy("created_at", "desc")
    .orderBy("id").execute();
}

/**
 * The installation holding a token digest as its current or previous token: one indexed
 * lookup (both digest columns carry a unique partial index).
 */
export async function installationByDigest(
  db: Db,
  digest: string,
): Promise<InstallationRow | undefined> {
  return await BY_DIGEST.first(db, { digest });
}

const BY_DIGEST = prebuilt((db, v: { digest: string }) =>
  db.selectFrom("plugin_installations").select(INSTALLATION_COLUMNS)
    .where((eb) =>
      eb.or([
        eb("token_hash", "=", v.digest),
        eb("previous_token_hash", "=", v.digest),
      ])
    )
);
