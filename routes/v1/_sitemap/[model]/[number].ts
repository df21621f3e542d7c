// GET /v1/_sitemap/{model}/{number}: one chunk of 5,000 published addresses of a public model.
import type { Context } from "hono";
import { publicJson } from "../../../../core/public/answer.ts";
import { notFound } from "../../../../core/public/middleware.ts";
import { sitemapChunk } from "../../../../core/public/sitemap.ts";
import type { AppEnv } from "../../../../core/web/env.ts";
import { refuse } from "../../../../core/web/errors.ts";

export const handler = {
  async GET(c: Context<AppEnv>) {
    if (new URL(c.req.url).search !== "") {
      refuse(
        400,
        "public_filter_invalid",
        "This address takes no query string",
      );
    }
    const model = c.var.publicContext.heads.find((m) =>
      m.isPublic && m.slug === c.req.param("model")
    );
    const number = Number(c.req.param("number"));
    if (!model || !/^[1-9][0-9]{0,5}$/.test(c.req.param("number") ?? "")) {
      throw notFound();
    }
    const body = await sitemapChunk(
      c.var.services.db,
      c.var.site.id,
      model,
      number,
    );
    if (body.data.length === 0 && number > 1) throw notFound();
    return publicJson(c, { body, tags: [`model:${model.id}`] }, {
      cache: "public",
    });
  },
};
