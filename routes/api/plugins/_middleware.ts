// Every admin-side plugin route: the Host's site, a session and (for writes) the app-wide CSRF check.
import { adminPluginMiddleware } from "../../../core/plugins/admin_routes.ts";

export const middleware = adminPluginMiddleware;
