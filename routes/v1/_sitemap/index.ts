// GET /v1/_sitemap: the sitemap index of the site's public models and its robots rules (PAUX-019).
import type { Context } from "hono";
import { publicJson } from "../../../core/public/answer.ts";
import { sitemapIndex } from "../../../core/public/sitemap.ts";
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
    const context = c.var.publicContext;
    const body = await sitemapIndex(
      c.var.services.db,
      c.var.site.id,
      context.heads,
      context.localePlan?.languages ?? [],
    );
    return publicJson(c, {
      body,
      tags: context.heads.filter((m) => m.isPublic).map((m) => `model:${m.id}`),
    }, { cache: "public" });
  },
};
