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
  const entry = await ctx.services.db.selectFrom("entries")
    .innerJoin("models", "models.id", "entries.model_id")
    .select(["entries.group_id", "entries.locale", "models.slug", "models.id"])
    .where("entries.site_id", "=", ctx.site.id)
    .where("models.site_id", "=", ctx.site.id)
    .where("entries.id", "=", instanceId).executeTakeFirst();
  if (!entry || readReach(ctx.authority, entry.id) === "none") return "/admin";
  return `/admin/content/${
    encodeURIComponent(entry.slug)
  }/${entry.group_id}?lang=${encodeURIComponent(entry.locale)}`;
}
