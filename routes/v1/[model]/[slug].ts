// GET /v1/{model}/{slug}: one published item, or a preview's current draft (spec 3 part 4.3).
import type { Context } from "hono";
import { publicJson } from "../../../core/public/answer.ts";
import { readItem } from "../../../core/public/single.ts";
import type { AppEnv } from "../../../core/web/env.ts";

export const handler = {
  async GET(c: Context<AppEnv>) {
    const token = c.get("siteToken");
    const answer = await readItem(
      {
        db: c.var.services.db,
        now: c.var.services.clock.now(),
        siteId: c.var.site.id,
        token,
        context: c.var.publicContext,
      },
      { model: c.req.param("model")!, slug: c.req.param("slug")! },
      new URL(c.req.url).searchParams,
    );
    const cache = answer.preview ? "none" : token ? "private" : "public";
    return publicJson(c, answer, { cache });
  },
};
