// Handler of the site route.
import { getSite as getSiteOperation } from "../contract/site.ts";
import { defineHandler } from "../handler.ts";
import { requireAllowed } from "./require.ts";

/** `get-site`: the site of the credential. */
export const getSite = defineHandler(getSiteOperation, {
  run(ctx) {
    requireAllowed(ctx, { action: "site.read" });
    const { site } = ctx;
    return Promise.resolve({
      body: {
        id: site.id,
        slug: site.slug,
        name: site.name,
        domain: site.domain,
        languages: site.languages,
        default_language: site.defaultLanguage,
      },
    });
  },
});
