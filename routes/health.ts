// GET /health: liveness of the site named by the Host header (spec 3 part 4.1).
import { resolveSiteByHost } from "../core/sites/resolve_site.ts";
import type { AppEnv } from "../core/web/env.ts";
import type { Context } from "hono";

export const middleware = resolveSiteByHost;

export const handler = {
  GET(c: Context<AppEnv>) {
    return c.json({ ok: true, site: c.var.site.slug });
  },
};
