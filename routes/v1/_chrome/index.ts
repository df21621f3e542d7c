// GET /v1/_chrome?locale=: menus, placements, footer note and regions of one language (spec 3 part 4.6).
import { PUBLIC_QUERY_PARAMETERS } from "../../../core/public/query_parameters.ts";
import type { Context } from "hono";
import type { AppEnv } from "../../../core/web/env.ts";
import { refuse } from "../../../core/web/errors.ts";
import { singleParams } from "../../../core/sync/query.ts";
import { ChromeUnreadable, readChrome } from "../../../core/chrome/menus.ts";
import { cachedJson } from "../../../core/chrome/cached_json.ts";

export const handler = {
  async GET(c: Context<AppEnv>) {
    const parsed = singleParams(
      new URL(c.req.url),
      PUBLIC_QUERY_PARAMETERS.chrome,
    );
    if (!parsed.ok) refuse(400, "public_filter_invalid", parsed.message);
    const site = c.var.site;
    const locale = parsed.params.locale ?? site.defaultLanguage;
    if (!site.languages.includes(locale)) {
      refuse(400, "public_chrome_invalid", `Unknown language "${locale}"`);
    }
    let data;
    try {
      data = await readChrome(c.var.services.db, site, locale);
    } catch (error) {
      if (!(error instanceof ChromeUnreadable)) throw error;
      refuse(
        500,
        "site_chrome_unreadable",
        "The stored site chrome no longer reads: save it again under Settings",
      );
    }
    // The tags name what the answer shows, so a zone in front purges it on their publication.
    return await cachedJson(
      c.req.header("if-none-match"),
      { data: data.data },
      data.tags.join(","),
    );
  },
};
