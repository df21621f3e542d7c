// GET /v1/_shared/{source}/{model}/{slug}: one published public item a source site shares with this one.
import type { Context } from "hono";
import { servePublicRead } from "../../../../../core/public/kept_answers.ts";
import { readShared } from "../../../../../core/public/shared_read.ts";
import type { AppEnv } from "../../../../../core/web/env.ts";

export const handler = {
  GET(c: Context<AppEnv>) {
    return servePublicRead(c, (ctx, params) =>
      readShared(ctx, {
        source: c.req.param("source")!,
        model: c.req.param("model")!,
        slug: c.req.param("slug")!,
      }, params));
  },
};
