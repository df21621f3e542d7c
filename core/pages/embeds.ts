// What renderers read beside pages: allowed embed origins (PAUX-017) and the rich-block
// definitions of active plugins (PAUX-018).
import type { Db } from "../db/database.ts";

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

/**
 * Rich-block definitions of the site's active plugins. The plugin protocol (branch
 * `plugin-core`) is not on main yet, so no plugin can declare one: the list is empty until it
 * lands and replaces this seam with a read of active installations.
 */
export function activeRichBlocks(
  _db: Db,
  _siteId: string,
): Promise<RichBlockDefinition[]> {
  return Promise.resolve([]);
}
