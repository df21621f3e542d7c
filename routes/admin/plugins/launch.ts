// POST /admin/plugins/launch: a plugin card's or Settings' button (spec 1 parts 2.3, 5.7). Mints a
// one-time launch for the signed-in person after every check, then sends the browser to the
// plugin's page in the same tab with no referrer, so the admin address never reaches the plugin;
// the plugin's page links back to the admin (/admin/plugins/return) when the person is done.
// `kind=manage` opens the management page (with `view`, one of its declared views); any other
// form is a content action on one entry language.
import type { Context } from "hono";
import { requireSignedIn } from "../../../core/auth/session_middleware.ts";
import {
  createLaunch,
  type LaunchRequest,
} from "../../../core/plugins/delegations.ts";
import type { AppEnv } from "../../../core/web/env.ts";
import { HttpError } from "../../../core/web/errors.ts";

export const middleware = requireSignedIn;

// The statuses of the other launch doors: model_not_granted is 403 as the protocol's outcomes table says.
const STATUS: Record<string, 403 | 404 | 409> = {
  not_found: 404,
  installation_state: 409,
  site_access_denied: 403,
  missing_permission: 403,
  model_not_granted: 403,
  invalid_request: 404,
};

function requestOf(form: Record<string, unknown>): LaunchRequest {
  if (form.kind === "manage") {
    const view = String(form.view ?? "");
    return view === "" ? { kind: "manage" } : { kind: "manage", view };
  }
  return {
    kind: "content_action",
    action: String(form.action ?? ""),
    instance_id: String(form.instance_id ?? ""),
  };
}

export const handler = {
  async POST(c: Context<AppEnv>) {
    const form = await c.req.parseBody();
    const { db, kv, clock } = c.var.services;
    const launched = await createLaunch(
      { db, kv, clock, siteId: c.var.site.id, userId: c.var.user!.id },
      String(form.installation_id ?? ""),
      requestOf(form),
    );
    if (!launched.ok) {
      throw new HttpError(
        STATUS[launched.code] ?? 400,
        launched.code,
        launched.message,
      );
    }
    c.header("Referrer-Policy", "no-referrer");
    c.header("Cache-Control", "no-store");
    return c.redirect(launched.launch.url, 303);
  },
};
