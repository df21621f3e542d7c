// GET /v1/_search: live search over published content (spec 3 part 4.7); queries are never stored or logged.
import type { Context } from "hono";
import type { AppEnv } from "../../../core/web/env.ts";
import { refuse } from "../../../core/web/errors.ts";
import {
  type ParsedSearch,
  parseSearchQuery,
} from "../../../core/search/request.ts";
import {
  publicSearchPlan,
  type SearchPlan,
} from "../../../core/search/plan.ts";
// The /v1 middleware sets `c.var.publicContext` (declared there) before this handler runs.
import { onConfirmedContext } from "../../../core/public/middleware.ts";
import { StaleContext } from "../../../core/public/request_context.ts";
import { requestUrl } from "../../../core/web/request_url.ts";
import { search } from "../../../core/search/search.ts";

/** Search answers and refusals are never stored. */
export const NO_STORE = { "Cache-Control": "no-store" };

export const handler = {
  GET(c: Context<AppEnv>) {
    return onConfirmedContext(c, async () => {
      const { db, clock } = c.var.services;
      const { parsed, plan } = await searchRequest(c, false);
      let outcome;
      try {
        outcome = await search(
          { db, clock, context: c.var.publicContext },
          plan,
          {
            siteId: c.var.site.id,
            locale: parsed.locale,
            words: parsed.words,
            limit: parsed.limit,
            cursor: parsed.cursor,
          },
        );
      } catch (error) {
        unavailable(error);
      }
      if (!outcome.ok) {
        refuse(400, outcome.code, outcome.message, {}, NO_STORE);
      }
      return c.json(outcome.answer, 200, NO_STORE);
    });
  },
};

/** A search's or suggestion's parsed query and the site's plan; `search_off` when it is off. */
export async function searchRequest(
  c: Context<AppEnv>,
  suggest: boolean,
): Promise<
  { parsed: Extract<ParsedSearch, { ok: true }>; plan: SearchPlan }
> {
  const parsed = parseSearchQuery(requestUrl(c), c.var.site, suggest);
  if (!parsed.ok) {
    refuse(400, "public_search_invalid", parsed.message, {}, NO_STORE);
  }
  let plan;
  try {
    plan = await publicSearchPlan(c.var.services.db, c.var.publicContext);
  } catch (error) {
    unavailable(error);
  }
  if (!plan.enabled) {
    refuse(404, "search_off", "Search is off for this site", {}, NO_STORE);
  }
  return { parsed, plan };
}

/** Refusals pass through; any other failure is the search backend being unavailable. */
export function unavailable(error: unknown): never {
  // A remembered context found stale is not a failure: the read starts over with a fresh one.
  if (error instanceof StaleContext) throw error;
  if (error instanceof Error && error.name === "HttpError") throw error;
  refuse(503, "search_unavailable", "Search cannot answer now", {}, {
    ...NO_STORE,
    "Retry-After": "5",
  });
}
