// GET /admin/plugins/return?instance=…: the way back from a plugin's page to the admin (a launch
// that returns to the admin, spec 1 part 1). The plugin links here with the entry language it was
// launched on; the person lands in that entry's editor, whose cards show what the plugin did.
import type { Context } from "hono";
import { decide } from "../../../core/access/decide.ts";
import { adminContext } from "../../../core/admin/context.ts";
import { returnAddress } from "../../../core/admin/plugin_return.ts";
import { requireSignedIn } from "../../../core/auth/session_middleware.ts";
import type { AppEnv } from "../../../core/web/env.ts";

export const middleware = requireSignedIn;

export const handler = {
  async GET(c: Context<AppEnv>) {
    const ctx = await adminContext(c);
    const to = await returnAddress(
      ctx,
      c.req.query("instance") ?? null,
      decide(ctx.authority, { action: "site:plugins" }).ok,
    );
    c.header("Cache-Control", "no-store");
    return c.redirect(to, 303);
  },
};
