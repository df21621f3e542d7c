// POST /api/plugin/v1/content/{instance_id}/restore: the whole entry back from Trash, for a delegated person.
import type { Context } from "hono";
import { restorePluginContent } from "../../../../../../core/plugins/moderation_api.ts";
import type { AppEnv } from "../../../../../../core/web/env.ts";

export const handler = {
  POST: (c: Context<AppEnv>) => restorePluginContent(c),
};
