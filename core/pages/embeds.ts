// What renderers and editors read beside pages: allowed embed origins (PAUX-017) and the
// rich-block registry of active plugins (PAUX-018, MPL-001).
import type { Db } from "../db/database.ts";
import { installationOf } from "../plugins/installation_store.ts";
import type { ManifestRichBlock } from "../plugins/manifest.ts";

/**
 * The exact https origins an administrator allows for embeds: `allowed_embed_origins` of the
 * site's `editorial` settings (added by the hardening work, branch `hard`); none while the
 * setting is absent. Read raw so this works before and after that setting lands.
 */
export async function allowedEmbedOrigins(
  db: Db,
  siteId: string,
): Promise<string[]> {
  const row = await db.selectFrom("site_settings").select("document")
    .where("site_id", "=", siteId).where("key", "=", "editorial")
    .executeTakeFirst();
  const stored = (row?.document as { allowed_embed_origins?: unknown } | null)
    ?.allowed_embed_origins;
  if (!Array.isArray(stored)) return [];
  return stored.filter((o): o is string =>
    typeof o === "string" && /^https:\/\/[^/\s]+$/.test(o)
  ).slice(0, 20);
}

/** A plugin's rich-block definition as renderers read it. */
export interface RichBlockDefinition {
  plugin_id: string;
  key: string;
  label: string;
  version: number;
}

/** One rich block an active installation declares: an entry of the site's registry. */
export interface RegisteredRichBlock {
  installationId: string;
  /** The plugin id, stored as `data-block` of the block's figure. */
  pluginId: string;
  block: ManifestRichBlock;
}

/**
 * The site's rich-block registry: every block an active installation declares, by plugin id,
 * then in manifest order. A disabled, revoked or pending installation registers nothing, so
 * its blocks disappear from every listing at once (PAUX-018, MPL-001).
 */
export async function registeredRichBlocks(
  db: Db,
  siteId: string,
): Promise<RegisteredRichBlock[]> {
  const rows = await db.selectFrom("plugin_installations").selectAll()
    .where("site_id", "=", siteId).where("state", "=", "active")
    .orderBy("plugin_id").orderBy("id").execute();
  return rows.map(installationOf).flatMap((installation) =>
    (installation.manifest.rich_blocks ?? []).map((block) => ({
      installationId: installation.id,
      pluginId: installation.pluginId,
      block,
    }))
  );
}

/** Rich-block definitions of the site's active plugins, as `/v1/_rich-blocks` answers them. */
export async function activeRichBlocks(
  db: Db,
  siteId: string,
): Promise<RichBlockDefinition[]> {
  return (await registeredRichBlocks(db, siteId)).map((
    { pluginId, block },
  ) => ({
    plugin_id: pluginId,
    key: block.type,
    label: block.label,
    version: block.version,
  }));
}
