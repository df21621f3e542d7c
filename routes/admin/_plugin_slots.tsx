// Where plugin UI goes in the admin: sidebar cards of the entry editor and badge columns of entry lists.
//
// The plugin protocol work (branch `plugin-core`) fills these in: it renders each installation's
// declared cards (spec 1 part 2.1, `ui_extensions`) as islands here. Until a plugin provides
// cards or badges they render nothing at all, so pages look and weigh the same without plugins.

/** Props of {@link PluginCards}: the entry the editor shows. */
export interface PluginCardsProps {
  model: string;
  entry: string;
  locale: string;
}

/** The entry editor's sidebar slot for plugin cards; renders nothing while no plugin provides cards. */
export function PluginCards(_props: PluginCardsProps) {
  return null;
}

/** Props of {@link PluginListBadges}: the header cell, or one entry's cell. */
export interface PluginListBadgesProps {
  model: string;
  entry?: string;
  header?: boolean;
}

/** The entry list's column slot for plugin badges; renders no cell while no plugin provides badges. */
export function PluginListBadges(_props: PluginListBadgesProps) {
  return null;
}
