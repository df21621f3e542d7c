// GET /v1/_redirects: the accepted redirect list, in precedence order (spec 3 part 4.6).
import type { Context } from "hono";
import type { AppEnv } from "../../../core/web/env.ts";
import { refuse } from "../../../core/web/errors.ts";
import { readCheckedSettings } from "../../../core/sites/settings.ts";
import { orderRedirects } from "../../../core/chrome/redirects.ts";
import { cachedJson } from "../../../core/chrome/cached_json.ts";

export const handler = {
  async GET(c: Context<AppEnv>) {
    if (new URL(c.req.url).search !== "") {
      refuse(
        400,
        "public_filter_invalid",
        "This address takes no query string",
      );
    }
    const site = c.var.site;
    const seo = await readCheckedSettings(
      { db: c.var.services.db, siteId: site.id },
      "seo",
    );
    if (!seo) {
      refuse(
        500,
        "site_chrome_unreadable",
        "The stored redirects no longer read: save them again under Settings",
      );
    }
    return await cachedJson(
      c.req.header("if-none-match"),
      { data: orderRedirects(seo.redirects) },
      `site:${site.id}:chrome`,
    );
  },
};
