// Where a person lands back in the admin after a plugin's page: the entry language the plugin was
// launched on, when they may still read it, or the plugins' settings.
import { readReach } from "../access/decide.ts";
import { isId } from "../entries/store.ts";
import type { AdminContext } from "./context.ts";

/**
 * The admin address to return to from a plugin's page: the editor of entry language
 * `instanceId` when it exists on the site and the person reads its model, else Settings →
 * Plugins for someone who manages them, else the dashboard. Nothing about an entry the person
 * cannot read is revealed (they land on the dashboard as for an unknown id).
 */
export async function returnAddress(
  ctx: AdminContext,
  instanceId: string | null,
  mayManagePlugins: boolean,
): Promise<string> {
  const fallback = mayManagePlugins ? "/admin/settings/plugins" : "/admin";
  if (!instanceId || !isId(instanceId)) return fallback;
  const db = ctx.services.db;
  const entry = await db.selectFrom("entries")
    .select(["group_id", "locale", "model_id"])
    .where("site_id", "=", ctx.site.id)
    .where("id", "=", instanceId).executeTakeFirst();
  if (!entry || readReach(ctx.authority, entry.model_id) === "none") {
    return "/admin";
  }
  const model = await db.selectFrom("models").select("slug")
    .where("site_id", "=", ctx.site.id)
    .where("id", "=", entry.model_id).executeTakeFirst();
  if (!model) return "/admin";
  return `/admin/content/${
    encodeURIComponent(model.slug)
  }/${entry.group_id}?lang=${encodeURIComponent(entry.locale)}`;
}
