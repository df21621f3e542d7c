// GET /v1/{model}/{slug}: one published item, or a preview's current draft (spec 3 part 4.3).
import type { Context } from "hono";
import { servePublicRead } from "../../../core/public/kept_answers.ts";
import { readItem } from "../../../core/public/single.ts";
import type { AppEnv } from "../../../core/web/env.ts";

export const handler = {
  GET(c: Context<AppEnv>) {
    return servePublicRead(c, (ctx, params) =>
      readItem(
        ctx,
        { model: c.req.param("model")!, slug: c.req.param("slug")! },
        params,
      ));
  },
};
