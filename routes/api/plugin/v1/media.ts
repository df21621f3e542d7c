// POST /api/plugin/v1/media: a file uploaded to the library for a delegated person.
import type { Context } from "hono";
import { uploadPluginMedia } from "../../../../core/plugins/media_api.ts";
import type { AppEnv } from "../../../../core/web/env.ts";

export const handler = {
  POST(c: Context<AppEnv>) {
    return uploadPluginMedia(c);
  },
};
