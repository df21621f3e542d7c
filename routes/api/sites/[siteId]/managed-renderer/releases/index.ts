// GET /api/sites/{siteId}/managed-renderer/releases (site:infra): releases and history (DLV-002).
import type { Context } from "hono";
import { templateContext } from "../../../../../../core/templates/http.ts";
import { requireSameSite } from "../../../../../../core/templates/release_http.ts";
import { releaseHistory } from "../../../../../../core/templates/releases.ts";
import type { AppEnv } from "../../../../../../core/web/env.ts";

export const handler = {
  async GET(c: Context<AppEnv>) {
    requireSameSite(c);
    const ctx = await templateContext(c, ["site:infra"]);
    return c.json({ data: await releaseHistory(ctx) });
  },
};
