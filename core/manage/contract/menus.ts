// Contract of the menu routes: list, read, replace a menu, and add a language to its labels.
import { z } from "zod";
import { MENU_ITEMS } from "../../chrome/menus.ts";
import { languageCode } from "./languages.ts";
import { operation } from "./operation.ts";

const menuKey = z.string().regex(/^[a-z0-9][a-z0-9_-]{0,63}$/);

/** A stored menu: items with labels by language, up to two levels. */
export const menu = z.strictObject({
  key: z.string(),
  items: MENU_ITEMS,
  languages: z.array(z.string()).describe(
    "Languages every item has a label in",
  ),
  updated_at: z.string(),
});

const params = z.strictObject({ key: menuKey });

/** `GET /menus`. */
export const listMenus = operation({
  name: "list-menus",
  description:
    "Menus are part of the site chrome the public API serves at `/v1/_chrome`.",
  method: "GET",
  path: "/menus",
  summary: "List the site's menus",
  tag: "menus",
  scope: "settings:write",
  key: null,
  status: 200,
  answer: z.strictObject({ data: z.array(menu) }),
});

/** `GET /menus/{key}`. */
export const getMenu = operation({
  name: "get-menu",
  description:
    "Labels by language; the public API serves menus in `/v1/_chrome`.",
  method: "GET",
  path: "/menus/{key}",
  summary: "Read one menu",
  tag: "menus",
  scope: "settings:write",
  key: null,
  status: 200,
  params,
  answer: menu,
});

/** `PUT /menus/{key}`. */
export const putMenu = operation({
  name: "put-menu",
  description: "Items nest up to two levels; the whole menu is replaced.",
  method: "PUT",
  path: "/menus/{key}",
  summary: "Create or replace a menu",
  tag: "menus",
  scope: "settings:write",
  key: { retention: "short", settle: "prove" },
  status: 200,
  params,
  // Each item is checked by the menu service, which names the item's path in `input_invalid`;
  // the schema only says what an item is, for readers and tool clients.
  body: z.strictObject({
    items: z.array(
      z.unknown().meta({
        type: "object",
        additionalProperties: true,
        description:
          "A menu item as the menu read answers it: labels by language, its target, and child items one level down",
      }),
    ).max(100),
  }),
  answer: menu,
  errors: ["input_invalid"],
});

/** `POST /menus/{key}/languages`. */
export const addMenuLanguage = operation({
  name: "add-menu-language",
  description:
    "Copies every label from one language to the new one, to translate afterwards.",
  method: "POST",
  path: "/menus/{key}/languages",
  summary:
    "Add a language to every label of a menu, copied from another language",
  tag: "menus",
  scope: "settings:write",
  key: { retention: "short", settle: "prove" },
  status: 201,
  params,
  body: z.strictObject({
    language: languageCode,
    copy_from: languageCode.optional(),
  }),
  answer: menu,
  errors: ["locale_exists", "unknown_locale"],
});

/** Every menu operation, in the order of the docs. */
export const MENU_OPERATIONS = [
  listMenus,
  getMenu,
  putMenu,
  addMenuLanguage,
] as const;
