// Handlers of the menu routes over core/chrome/menu_admin.ts.
import { refuseUnknownKeys } from "../input.ts";
import {
  addMenuLanguage as addLanguage,
  findMenuWrite,
  getMenu as readMenu,
  listMenus as readMenus,
  type MenuContext,
  type MenuRefusal,
  replaceMenu,
} from "../../chrome/menu_admin.ts";
import { refuse } from "../../web/errors.ts";
import * as contract from "../contract/menus.ts";
import { defineHandler, type ManageContext } from "../handler.ts";
import { requireAllowed } from "./require.ts";

function menuContext(ctx: ManageContext): MenuContext {
  const { db, clock } = ctx.services;
  return {
    db,
    clock,
    siteId: ctx.site.id,
    actor: ctx.actor,
    keyDigest: ctx.keyDigest,
  };
}

function refuseMenu(refusal: MenuRefusal, key: string): never {
  switch (refusal.code) {
    case "not_found":
      refuse(404, "not_found", `No menu "${key}"`);
      break;
    case "locale_exists":
      refuse(
        409,
        "locale_exists",
        `Menu "${key}" has language "${refusal.language}" already`,
        {
          language: refusal.language,
        },
      );
      break;
    case "unknown_locale":
      refuse(
        422,
        "unknown_locale",
        `The site has no language "${refusal.language}"`,
        {
          language: refusal.language,
        },
      );
      break;
    default:
      refuseUnknownKeys(refusal.problems, "body.");
      refuse(400, "input_invalid", `Menu "${key}" is not valid`, {
        problems: refusal.problems,
      });
  }
}

async function proveMenu(ctx: ManageContext) {
  if (!ctx.keyDigest) return null;
  const menu = await findMenuWrite(ctx.services.db, ctx.site.id, ctx.keyDigest);
  return menu ? { body: menu } : null;
}

/** `list-menus`. */
export const listMenus = defineHandler(contract.listMenus, {
  async run(ctx) {
    requireAllowed(ctx, { action: "settings.write" });
    return { body: { data: await readMenus(ctx.services.db, ctx.site.id) } };
  },
});

/** `get-menu`. */
export const getMenu = defineHandler(contract.getMenu, {
  async run(ctx, { params }) {
    requireAllowed(ctx, { action: "settings.write" });
    const menu = await readMenu(ctx.services.db, ctx.site.id, params.key);
    if (!menu) refuse(404, "not_found", `No menu "${params.key}"`);
    return { body: menu };
  },
});

/** `put-menu`: written with its audit entry; a lost answer is proved from it. */
export const putMenu = defineHandler(contract.putMenu, {
  async run(ctx, { params, body }) {
    requireAllowed(ctx, { action: "settings.write" });
    const result = await replaceMenu(menuContext(ctx), params.key, body.items);
    if (!result.ok) refuseMenu(result, params.key);
    return { body: result.menu };
  },
  prove: proveMenu,
});

/** `add-menu-language`: written with its audit entry; a lost answer is proved from it. */
export const addMenuLanguage = defineHandler(contract.addMenuLanguage, {
  async run(ctx, { params, body }) {
    requireAllowed(ctx, { action: "settings.write" });
    const result = await addLanguage(menuContext(ctx), params.key, {
      language: body.language,
      copyFrom: body.copy_from,
    });
    if (!result.ok) refuseMenu(result, params.key);
    return { body: result.menu };
  },
  prove: proveMenu,
});
