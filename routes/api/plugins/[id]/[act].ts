// POST /api/plugins/{id}/{act}: activate, rotate, disable, enable, uninstall, grant, upgrade-preview, upgrade.
import type { Context } from "hono";
import { z } from "zod";
import { idField } from "../../../../core/admin/ids.ts";
import {
  adminContext,
  installationJson,
  refuseAdmin,
} from "../../../../core/plugins/admin_routes.ts";
import {
  activatePlugin,
  changeGrant,
  disablePlugin,
  enablePlugin,
  previewUpgrade,
  rotateToken,
  uninstallPlugin,
  upgradePlugin,
} from "../../../../core/plugins/installations.ts";
import { CAPABILITIES } from "../../../../core/plugins/protocol.ts";
import type { AppEnv } from "../../../../core/web/env.ts";
import { HttpError } from "../../../../core/web/errors.ts";
import { jsonBody } from "../index.ts";

const codeBody = z.strictObject({ code: z.string().min(1).max(256) });
const emptyBody = z.strictObject({});
const grantBody = z.strictObject({
  capabilities: z.array(z.enum(CAPABILITIES)).max(CAPABILITIES.length),
  model_ids: z.array(idField).max(500),
});
const upgradeBody = z.strictObject({
  expected_version: z.string().min(1).max(64),
});

export const handler = {
  async POST(c: Context<AppEnv>) {
    const ctx = adminContext(c);
    const id = c.req.param("id") ?? "";
    const act = c.req.param("act");
    switch (act) {
      case "activate":
      case "rotate": {
        const { code } = await jsonBody(c, codeBody);
        const done = act === "activate"
          ? await activatePlugin(ctx, id, code)
          : await rotateToken(ctx, id, code);
        if (!done.ok) refuseAdmin(done);
        return c.json({ data: installationJson(done.installation) });
      }
      case "disable":
      case "enable":
      case "uninstall": {
        await jsonBody(c, emptyBody);
        const run = act === "disable"
          ? disablePlugin
          : act === "enable"
          ? enablePlugin
          : uninstallPlugin;
        const done = await run(ctx, id);
        if (!done.ok) refuseAdmin(done);
        return c.json({ data: installationJson(done.installation) });
      }
      case "grant": {
        const grant = await jsonBody(c, grantBody);
        const done = await changeGrant(ctx, id, grant);
        if (!done.ok) refuseAdmin(done);
        return c.json({ data: installationJson(done.installation) });
      }
      case "upgrade-preview": {
        await jsonBody(c, emptyBody);
        const done = await previewUpgrade(ctx, id);
        if (!done.ok) refuseAdmin(done);
        return c.json({ data: done.diff });
      }
      case "upgrade": {
        const body = await jsonBody(c, upgradeBody);
        const done = await upgradePlugin(ctx, id, body);
        if (!done.ok) refuseAdmin(done);
        return c.json({
          data: { ...installationJson(done.installation), diff: done.diff },
        });
      }
    }
    throw new HttpError(404, "not_found", "Not found");
  },
};
