// GET /v1/_rich-blocks: rich-block definitions of active plugins (PAUX-018).
import type { Context } from "hono";
import { publicJson } from "../../../core/public/answer.ts";
import { activeRichBlocks } from "../../../core/pages/embeds.ts";
import type { AppEnv } from "../../../core/web/env.ts";
import { refuse } from "../../../core/web/errors.ts";

export const handler = {
  async GET(c: Context<AppEnv>) {
    if (new URL(c.req.url).search !== "") {
      refuse(
        400,
        "public_filter_invalid",
        "This address takes no query string",
      );
    }
    const blocks = await activeRichBlocks(c.var.services.db, c.var.site.id);
    return publicJson(c, {
      body: { data: blocks },
      tags: [`site:${c.var.site.id}:plugins`],
    }, { cache: "public" });
  },
};
