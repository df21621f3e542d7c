// Middleware that resolves the site from the Host header alone (spec 3 part 4.1).
import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "../web/env.ts";
import { HttpError } from "../web/errors.ts";
import { hostName } from "./host.ts";
import { findSiteByDomain } from "./site_store.ts";

/** Sets `c.var.site` from the Host header, or refuses `404 unknown_host`. */
export const resolveSiteByHost: MiddlewareHandler<AppEnv> =
  async function resolveSiteByHost(c, next) {
    const domain = hostName(c.req.header("host"));
    const site = domain
      ? await findSiteByDomain(c.var.services.db, domain)
      : null;
    if (!site) {
      throw new HttpError(404, "unknown_host", "No site answers this host");
    }
    c.set("site", site);
    await next();
  };
