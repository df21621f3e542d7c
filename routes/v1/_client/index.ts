// GET /v1/_client: the typed client download; needs a site API token, takes no query, never cached.
import type { Context } from "hono";
import type { AppEnv } from "../../../core/web/env.ts";
import { refuse } from "../../../core/web/errors.ts";
import type { SiteTokenScope } from "../../../core/public/site_tokens.ts";
import { readLocalePlan } from "../../../core/public/projection.ts";
import { clientAnswer } from "../../../core/chrome/client.ts";
import { modelsInScope } from "../../../core/sync/models_in_scope.ts";

const NO_STORE = { "Cache-Control": "no-store" };

export const handler = {
  async GET(c: Context<AppEnv>) {
    const { db } = c.var.services;
    if (new URL(c.req.url).search !== "") {
      refuse(
        400,
        "public_filter_invalid",
        "This address takes no query string",
        {},
        NO_STORE,
      );
    }
    // Verified (or refused 404) by the /v1 middleware; absent is the same 404 without a reason.
    const token: SiteTokenScope | null = c.get("siteToken");
    if (!token) refuse(404, "not_found", "Not found", {}, NO_STORE);
    const site = c.var.site;
    const models = await modelsInScope(db, site.id, token.modelIds);
    const plan = await readLocalePlan(db, site.id);
    // The caller's host, on the scheme of the service's public address: behind a proxy that
    // ends TLS the request itself arrives as http.
    const scheme = new URL(c.var.services.config.publicUrl).protocol;
    const host = c.req.header("host") ?? new URL(c.req.url).host;
    const apiUrl = `${scheme}//${host}/v1`;
    const data = await clientAnswer(site, models, plan?.policy ?? null, apiUrl);
    return c.json({ data }, 200, NO_STORE);
  },
};
