// GET /v1/_embeds: the exact https origins an administrator allows for embeds (PAUX-017).
import type { Context } from "hono";
import { publicJson } from "../../../core/public/answer.ts";
import { allowedEmbedOrigins } from "../../../core/pages/embeds.ts";
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
    const origins = await allowedEmbedOrigins(c.var.services.db, c.var.site.id);
    return publicJson(c, {
      body: { data: { origins } },
      tags: [`site:${c.var.site.id}:embeds`],
    }, { cache: "public" });
  },
};
