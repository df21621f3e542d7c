// GET /v1/{model}: list published items (spec 3 part 4.2).
import type { Context } from "hono";
import { servePublicRead } from "../../../core/public/kept_answers.ts";
import { listItems } from "../../../core/public/list.ts";
import type { AppEnv } from "../../../core/web/env.ts";

export const handler = {
  GET(c: Context<AppEnv>) {
    return servePublicRead(
      c,
      (ctx, params) => listItems(ctx, c.req.param("model")!, params),
    );
  },
};
