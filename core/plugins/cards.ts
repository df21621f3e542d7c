// The declarative cards of `ui_extensions` (spec 1 part 2.1) a person sees beside an entry: one
// per card of an active installation whose grant covers the entry's model, with core controls
// only. The button posts to /admin/plugins/launch, which mints the launch and opens the plugin.
import { decide } from "../access/decide.ts";
import { loadAuthority } from "../access/authority.ts";
import type { Db } from "../db/database.ts";
import { installationOf, listInstallationRows } from "./installation_store.ts";

/** One card as the editor renders it. */
export interface PluginCard {
  installationId: string;
  pluginName: string;
  id: string;
  title: string;
  body: string | null;
  buttonLabel: string;
  /** The content action the button launches on the entry. */
  action: string;
  /** A reviewed frame on the plugin's origin, drawn sandboxed inside the card. */
  frame: { url: string; height: number; origin: string } | null;
}

/**
 * The cards for an entry of `modelId` the person may open now: `entry_sidebar` cards, and for a
 * page model `page_sidebar` cards too. A person who cannot read the model sees none.
 */
export async function pluginCardsFor(
  db: Db,
  options: { siteId: string; userId: string; modelId: string; isPage: boolean },
): Promise<PluginCard[]> {
  const installations = (await listInstallationRows(db, options.siteId)).map(
    installationOf,
  ).filter((i) => i.state === "active" && i.modelIds.includes(options.modelId));
  if (installations.length === 0) return [];
  const loaded = await loadAuthority(db, {
    siteId: options.siteId,
    actor: { kind: "person", userId: options.userId },
  });
  if (
    !loaded.ok ||
    !decide(loaded.authority, { action: "read", model: options.modelId }).ok
  ) {
    return [];
  }
  const placements = options.isPage
    ? ["entry_sidebar", "page_sidebar"]
    : ["entry_sidebar"];
  return installations.flatMap((i) =>
    i.manifest.ui_extensions.filter((card) =>
      placements.includes(card.placement) &&
      card.opens.kind === "content_action" &&
      i.manifest.content_actions.some((a) =>
        a.id === (card.opens as { id: string }).id
      )
    ).map((card) => ({
      installationId: i.id,
      pluginName: i.name,
      id: card.id,
      title: card.title,
      body: card.body ?? null,
      buttonLabel: card.button_label,
      action: (card.opens as { id: string }).id,
      frame: card.frame
        ? {
          url: card.frame.url,
          height: card.frame.height,
          origin: new URL(card.frame.url).origin,
        }
        : null,
    }))
  );
}
