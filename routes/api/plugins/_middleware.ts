// Every admin-side plugin route: the Host's site, a session and (for writes) the app-wide CSRF check, ids in the URL checked.
import { checkIdParams } from "../../../core/admin/ids.ts";
import { adminPluginMiddleware } from "../../../core/plugins/admin_routes.ts";

export const middleware = [...adminPluginMiddleware, checkIdParams];
