// GET /api/plugins/catalogue: the entries of every configured plugin catalogue, and the catalogues left out with their reason (spec 1 parts 4.3, 8).
import type { Context } from "hono";
import {
  catalogueContext,
  refuseAdmin,
} from "../../../core/plugins/admin_routes.ts";
import { discoverCatalogues } from "../../../core/plugins/catalogues.ts";
import type { AppEnv } from "../../../core/web/env.ts";

export const handler = {
  async GET(c: Context<AppEnv>) {
    const found = await discoverCatalogues(catalogueContext(c));
    if (!found.ok) refuseAdmin(found);
    return c.json({
      data: { entries: found.entries, left_out: found.left_out },
    });
  },
};
