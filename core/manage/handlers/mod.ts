// Every Management API handler, keyed by the camel-case name of its operation; api.ts binds them by name.
import type { HandlerMap } from "../handler.ts";
import * as languages from "./languages.ts";
import * as settings from "./settings.ts";
import * as site from "./site.ts";
import * as models from "./models.ts";
import * as roles from "./roles.ts";
import * as entries from "./entries.ts";
import * as menus from "./menus.ts";
import * as proposals from "./proposals.ts";
import * as relatedFrom from "./related_from.ts";
import * as media from "./media.ts";
import * as pages from "./pages.ts";
import * as comments from "./comments.ts";
import * as plugins from "./plugins.ts";
import * as richBlocks from "./rich_blocks.ts";
import * as data from "./data.ts";
import * as backend from "./backend.ts";

/** One handler per declared operation; the type fails to check when one is missing. */
export const HANDLERS: HandlerMap = {
  ...site,
  ...languages,
  ...settings,
  ...models,
  ...roles,
  ...backend,
  ...entries,
  ...relatedFrom,
  ...proposals,
  ...pages,
  ...menus,
  ...media,
  ...comments,
  ...plugins,
  ...richBlocks,
  ...data,
};
