// GET /v1/{model}: list published items (spec 3 part 4.2).
import type { Context } from "hono";
import { publicJson } from "../../../core/public/answer.ts";
import { listItems } from "../../../core/public/list.ts";
import type { AppEnv } from "../../../core/web/env.ts";

export const handler = {
  async GET(c: Context<AppEnv>) {
    const token = c.get("siteToken");
    const answer = await listItems(
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
