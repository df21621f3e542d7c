// GET /api/pages/renderer-capability: what the site's renderer draws now (spec 3 part 4.8,
// SRCH-033). The built-in template always draws site search, so `site_search.active` follows the
// site's search setting: a published page at /search would then be shadowed by the search page.
import type { Context } from "hono";
import { getSettings } from "../../../core/sites/settings.ts";
import type { AppEnv } from "../../../core/web/env.ts";
import { refuse } from "../../../core/web/errors.ts";

export const handler = {
  async GET(c: Context<AppEnv>) {
    if (!c.var.user) refuse(401, "unauthorized", "Sign in to read this");
    const search = await getSettings(
      { db: c.var.services.db, siteId: c.var.site.id },
      "search",
    );
    return c.json({ site_search: { active: search.document.enabled } });
  },
};
