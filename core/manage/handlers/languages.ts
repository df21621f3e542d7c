// Handlers of the language routes.
import {
  addSiteLanguage,
  findLanguageAddition,
  listSiteLanguages,
} from "../../sites/languages.ts";
import { refuse } from "../../web/errors.ts";
import * as contract from "../contract/languages.ts";
import { defineHandler } from "../handler.ts";
import { requireAllowed } from "./require.ts";

/** `list-languages`: the site's languages, default first. */
export const listLanguages = defineHandler(contract.listLanguages, {
  async run(ctx) {
    requireAllowed(ctx, { action: "site.read" });
    const data = await listSiteLanguages(ctx.services.db, ctx.site.id);
    return { body: { data, default_language: ctx.site.defaultLanguage } };
  },
});

/** `add-language`: adds a language; a lost answer is proved from the audit entry written with it. */
export const addLanguage = defineHandler(contract.addLanguage, {
  async run(ctx, { body }) {
    requireAllowed(ctx, { action: "settings.write" });
    const { db, clock } = ctx.services;
    const result = await addSiteLanguage(
      { db, clock, siteId: ctx.site.id, actor: ctx.actor },
      { code: body.code, keyDigest: ctx.keyDigest },
    );
    if (!result.ok) {
      refuse(
        409,
        "locale_exists",
        `The site already has language "${body.code}"`,
        {
          language: body.code,
        },
      );
    }
    return { body: result.language };
  },
  async prove(ctx) {
    if (!ctx.keyDigest) return null;
    const language = await findLanguageAddition(
      ctx.services.db,
      ctx.site.id,
      ctx.keyDigest,
    );
    return language ? { body: language } : null;
  },
});
