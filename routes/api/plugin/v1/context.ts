// GET /api/plugin/v1/context: the installation the token names, its site and grant.
import type { Context } from "hono";
import {
  dataResponse,
  installationOf,
  parseQuery,
  refusalResponse,
} from "../../../../core/plugins/api_support.ts";
import type { AppEnv } from "../../../../core/web/env.ts";

export const handler = {
  async GET(c: Context<AppEnv>) {
    const query = parseQuery(c, []);
    if (!query.ok) return refusalResponse(query);
    const installation = installationOf(c);
    const { db } = c.var.services;
    const site = await db.selectFrom("sites").select(["id", "slug", "name"])
      .where("id", "=", installation.siteId).executeTakeFirstOrThrow();
    const languages = await db.selectFrom("site_languages")
      .select(["code", "is_default"]).where("site_id", "=", site.id)
      .orderBy("position").execute();
    const models = installation.modelIds.length === 0
      ? []
      : await db.selectFrom("models").select(["id", "slug", "name"])
        .where("site_id", "=", site.id)
        .where("id", "in", installation.modelIds)
        .where("deleted_at", "is", null).orderBy("slug").execute();
    return dataResponse({
      installation_id: installation.id,
      plugin_id: installation.pluginId,
      name: installation.name,
      version: installation.version,
      protocol_version: installation.protocolVersion,
      state: installation.state,
      site: {
        id: site.id,
        slug: site.slug,
        name: site.name,
        languages: languages.map((l) => ({
          code: l.code,
          default: l.is_default,
        })),
      },
      grant: {
        capabilities: installation.capabilities,
        // Deleted models drop out: that part of the grant is inert (spec 1 part 2.1 rule 1).
        models: models.map((m) => ({ id: m.id, slug: m.slug, name: m.name })),
      },
    });
  },
};
