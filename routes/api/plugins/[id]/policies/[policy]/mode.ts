// POST /api/plugins/{id}/policies/{policy}/mode: how one of the plugin's content policies runs on
// this site (blocking, advisory or off); audited as plugin.policy.mode (AUD-012).
import type { Context } from "hono";
import { z } from "zod";
import {
  adminContext,
  installationJson,
  refuseAdmin,
} from "../../../../../../core/plugins/admin_routes.ts";
import { setPolicyMode } from "../../../../../../core/plugins/installations.ts";
import type { AppEnv } from "../../../../../../core/web/env.ts";
import { jsonBody } from "../../../index.ts";

const modeBody = z.strictObject({
  mode: z.enum(["blocking", "advisory", "off"]),
});

export const handler = {
  async POST(c: Context<AppEnv>) {
    const { mode } = await jsonBody(c, modeBody);
    const done = await setPolicyMode(
      adminContext(c),
      c.req.param("id") ?? "",
      c.req.param("policy") ?? "",
      mode,
    );
    if (!done.ok) refuseAdmin(done);
    return c.json({ data: installationJson(done.installation) });
  },
};
