// POST /api/sites/{siteId}/managed-renderer/address/remove-previous (site:deploy): forgets the
// previous host's recorded route; going back is no longer possible (DLV-010).
import type { Context } from "hono";
import { z } from "zod";
import { templateContext } from "../../../../../../core/templates/http.ts";
import {
  closedBody,
  refuseRelease,
  requireSameSite,
} from "../../../../../../core/templates/release_http.ts";
import { removePreviousAddress } from "../../../../../../core/templates/releases.ts";
import type { AppEnv } from "../../../../../../core/web/env.ts";

export const handler = {
  async POST(c: Context<AppEnv>) {
    requireSameSite(c);
    const ctx = await templateContext(c, ["site:deploy"]);
    await closedBody(c, z.strictObject({}));
    const done = await removePreviousAddress(ctx);
    if (!done.ok) refuseRelease(done);
    return c.json({ data: done.history });
  },
};
