// What every page route of the plugin starts from, shared by the app and the release pages.
import type { PluginInstallation } from "./core/installations.ts";
import type { PluginSession } from "./core/sessions.ts";

/** What every page route starts from. */
export interface OpenedPage {
  installation: PluginInstallation;
  session: PluginSession;
  form: Record<string, unknown>;
}
