// Form attachment downloads: the site from the Host header, the person from the session cookie.
import type { MiddlewareHandler } from "hono";
import { checkIdParams } from "../../../core/admin/ids.ts";
import { loadSession } from "../../../core/auth/session_middleware.ts";
import { resolveSiteByHost } from "../../../core/sites/resolve_site.ts";
import type { AppEnv } from "../../../core/web/env.ts";

const noStore: MiddlewareHandler<AppEnv> = async function noStore(c, next) {
  c.header("Cache-Control", "no-store");
  await next();
};

export const middleware = [
  noStore,
  resolveSiteByHost,
  loadSession,
  checkIdParams,
];
