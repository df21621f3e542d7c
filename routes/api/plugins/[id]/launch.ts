// POST /api/plugins/{id}/launch: mint a launch after every check of spec 1 part 5 item 7; no referrer leaves with it.
import type { Context } from "hono";
import { z } from "zod";
import { idField } from "../../../../core/admin/ids.ts";
import { refuseAdmin } from "../../../../core/plugins/admin_routes.ts";
import { createLaunch } from "../../../../core/plugins/delegations.ts";
import type { AppEnv } from "../../../../core/web/env.ts";
import { jsonBody } from "../index.ts";

const launchBody = z.discriminatedUnion("kind", [
  z.strictObject({
    kind: z.literal("manage"),
    view: z.string().min(1).max(64).optional(),
  }),
  z.strictObject({
    kind: z.literal("content_action"),
    action: z.string().min(1).max(64),
    instance_id: idField,
  }),
]);

export const handler = {
  async POST(c: Context<AppEnv>) {
    const body = await jsonBody(c, launchBody);
    const { db, kv, clock } = c.var.services;
    const launched = await createLaunch(
      { db, kv, clock, siteId: c.var.site.id, userId: c.var.user!.id },
      c.req.param("id") ?? "",
      body,
    );
    if (!launched.ok) refuseAdmin(launched);
    return c.json({ data: launched.launch }, 201, {
      "Referrer-Policy": "no-referrer",
    });
  },
};
