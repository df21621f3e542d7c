// GET /v1/_related/{model}: the rest of an expanded relation field (spec 3 part 4.4).
import type { Context } from "hono";
import { publicJson } from "../../../core/public/answer.ts";
import { readRelated } from "../../../core/public/related.ts";
import type { AppEnv } from "../../../core/web/env.ts";

export const handler = {
  async GET(c: Context<AppEnv>) {
    const token = c.get("siteToken");
    const answer = await readRelated(
      {
        db: c.var.services.db,
        now: c.var.services.clock.now(),
        siteId: c.var.site.id,
        token,
        context: c.var.publicContext,
      },
      c.req.param("model")!,
      new URL(c.req.url).searchParams,
    );
    return publicJson(c, answer, { cache: token ? "private" : "public" });
  },
};
