// Every managed-template route: the Host's site, a session, signed in (CSRF runs app-wide).
import { adminPluginMiddleware } from "../../../core/plugins/admin_routes.ts";

export const middleware = adminPluginMiddleware;
