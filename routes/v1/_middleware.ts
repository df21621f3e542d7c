// Every public read route resolves its site from the Host header alone (spec 3 part 4.1), then
// answers CORS for the site's browser origins and reads the optional site API token (part 5).
import { resolveSiteByHost } from "../../core/sites/resolve_site.ts";
import { publicCors, readSiteToken } from "../../core/public/middleware.ts";

export const middleware = [resolveSiteByHost, publicCors, readSiteToken];
