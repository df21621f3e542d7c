// Every public read route resolves its site from the Host header alone (spec 3 part 4.1).
import { resolveSiteByHost } from "../../core/sites/resolve_site.ts";

export const middleware = [resolveSiteByHost];
