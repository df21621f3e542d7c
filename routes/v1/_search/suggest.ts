// GET /v1/_search/suggest: up to ten live items while typing (spec 3 part 4.7); nothing is stored.
import type { Context } from "hono";
import type { AppEnv } from "../../../core/web/env.ts";
import { refuse } from "../../../core/web/errors.ts";
import { parseSearchQuery } from "../../../core/search/request.ts";
import { publicSearchPlan } from "../../../core/search/plan.ts";
// Declares `c.var.publicContext`, which the /v1 middleware sets before this handler runs.
import type {} from "../../../core/public/middleware.ts";
import { suggest } from "../../../core/search/suggest.ts";
import { unavailable } from "./index.ts";

const NO_STORE = { "Cache-Control": "no-store" };

export const handler = {
  async GET(c: Context<AppEnv>) {
    const { db } = c.var.services;
    const site = c.var.site;
    const parsed = parseSearchQuery(new URL(c.req.url), site, true);
    if (!parsed.ok) {
      refuse(400, "public_search_invalid", parsed.message, {}, NO_STORE);
    }
    let data;
    try {
      const plan = await publicSearchPlan(db, c.var.publicContext);
      if (!plan.enabled) {
        refuse(404, "search_off", "Search is off for this site", {}, NO_STORE);
      }
      data = await suggest(db, plan, {
        siteId: site.id,
        locale: parsed.locale,
        words: parsed.words,
        limit: parsed.limit,
      });
    } catch (error) {
      unavailable(error);
    }
    return c.json(
      { query: parsed.q, data, limit: parsed.limit, locale: parsed.locale },
      200,
      NO_STORE,
    );
  },
};
