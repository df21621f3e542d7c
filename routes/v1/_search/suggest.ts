// GET /v1/_search/suggest: up to ten live items while typing (spec 3 part 4.7); nothing is stored.
import type { Context } from "hono";
import type { AppEnv } from "../../../core/web/env.ts";
// The /v1 middleware sets `c.var.publicContext` (declared there) before this handler runs.
import { onConfirmedContext } from "../../../core/public/middleware.ts";
import { suggest } from "../../../core/search/suggest.ts";
import { NO_STORE, searchRequest, unavailable } from "./index.ts";

export const handler = {
  GET(c: Context<AppEnv>) {
    return onConfirmedContext(c, async () => {
      const { parsed, plan } = await searchRequest(c, true);
      let data;
      try {
        data = await suggest(c.var.services.db, plan, {
          siteId: c.var.site.id,
          locale: parsed.locale,
          words: parsed.words,
          limit: parsed.limit,
        }, c.var.publicContext);
      } catch (error) {
        unavailable(error);
      }
      return c.json(
        { query: parsed.q, data, limit: parsed.limit, locale: parsed.locale },
        200,
        NO_STORE,
      );
    });
  },
};
