// GET /v1/_related/{model}: the rest of an expanded relation field (spec 3 part 4.4).
import type { Context } from "hono";
import { servePublicRead } from "../../../core/public/kept_answers.ts";
import { readRelated } from "../../../core/public/related.ts";
import type { AppEnv } from "../../../core/web/env.ts";

export const handler = {
  GET(c: Context<AppEnv>) {
    return servePublicRead(
      c,
      (ctx, params) => readRelated(ctx, c.req.param("model")!, params),
    );
  },
};
