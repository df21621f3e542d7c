// POST /api/plugin/v1/media/{media_id}/remove: removes a library file nothing uses, for a delegated person.
import type { Context } from "hono";
import { removePluginMedia } from "../../../../../../core/plugins/moderation_api.ts";
import type { AppEnv } from "../../../../../../core/web/env.ts";

export const handler = {
  POST: (c: Context<AppEnv>) => removePluginMedia(c),
};
