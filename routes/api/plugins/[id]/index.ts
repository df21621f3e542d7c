// GET /api/plugins/{id}: one installation with its audit trail.
import type { Context } from "hono";
import {
  adminContext,
  installationJson,
  refuseAdmin,
} from "../../../../core/plugins/admin_routes.ts";
import { installationWithTrail } from "../../../../core/plugins/installations.ts";
import type { AppEnv } from "../../../../core/web/env.ts";

export const handler = {
  async GET(c: Context<AppEnv>) {
    const found = await installationWithTrail(
      adminContext(c),
      c.req.param("id") ?? "",
    );
    if (!found.ok) refuseAdmin(found);
    return c.json({
      data: {
        ...installationJson(found.installation),
        trail: found.trail.map((t) => ({ ...t, at: t.at.toISOString() })),
      },
    });
  },
};
