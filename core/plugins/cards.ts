// The declarative cards of `ui_extensions` (spec 1 part 2.1) a person sees beside an entry: one
// per card of an active installation whose grant covers the entry's model, with core controls
// only. The button posts to /admin/plugins/launch, which mints the launch and opens the plugin.
import { decide, readReach } from "../access/decide.ts";
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
  /**
   * What the plugin's read-only entry operations answer about this entry (its pending
   * schedules, say), filled in by the editor's loader; absent when none was asked.
   */
  status?: CardStatus[];
}

/** One read-only operation's answer shown on a card: its label and rows, or why it has none. */
export interface CardStatus {
  label: string;
  columns: { key: string; label: string }[];
  rows: Record<string, string>[];
  error: string | null;
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

/** A `settings_row` card of Settings: what it opens, drawn with core controls only. */
export interface SettingsCard {
  installationId: string;
  pluginName: string;
  id: string;
  title: string;
  body: string | null;
  buttonLabel: string;
  /** The manage view it opens, or null for the plugin's management page. */
  view: string | null;
}

/**
 * The `settings_row` cards of active installations the person may open now, by the launch rules
 * (spec 1 part 5 item 7): a card opening the bare management page needs `site:plugins`; one
 * opening a declared view needs a granted model the person reads. Cards they cannot launch are
 * not drawn, so a button never leads to a refusal.
 */
export async function settingsRowCards(
  db: Db,
  options: { siteId: string; userId: string },
): Promise<SettingsCard[]> {
  const installations = (await listInstallationRows(db, options.siteId)).map(
    installationOf,
  ).filter((i) =>
    i.state === "active" && i.manifest.management_url !== undefined
  );
  if (installations.length === 0) return [];
  const loaded = await loadAuthority(db, {
    siteId: options.siteId,
    actor: { kind: "person", userId: options.userId },
  });
  if (!loaded.ok) return [];
  const authority = loaded.authority;
  const managesPlugins = decide(authority, { action: "site:plugins" }).ok;
  return installations.flatMap((i) => {
    const readsOne = i.modelIds.some((id) =>
      readReach(authority, id) !== "none"
    );
    return i.manifest.ui_extensions.flatMap((card): SettingsCard[] => {
      if (card.placement !== "settings_row") return [];
      const opens = card.opens;
      if (opens.kind === "content_action") return [];
      if (opens.kind === "manage" && !managesPlugins) return [];
      if (
        opens.kind === "manage_view" &&
        (!readsOne || !i.manifest.manage_views.some((v) => v.id === opens.id))
      ) {
        return [];
      }
      return [{
        installationId: i.id,
        pluginName: i.name,
        id: card.id,
        title: card.title,
        body: card.body ?? null,
        buttonLabel: card.button_label,
        view: opens.kind === "manage_view" ? opens.id : null,
      }];
    });
  });
}
