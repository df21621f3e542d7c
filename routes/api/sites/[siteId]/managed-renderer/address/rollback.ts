// POST /api/sites/{siteId}/managed-renderer/address/rollback (site:deploy): body
// `{ observed_active_number }`; back to the previous host within seven days (DLV-009).
import type { Context } from "hono";
import { templateContext } from "../../../../../../core/templates/http.ts";
import {
  closedBody,
  observedBody,
  refuseRelease,
  requireSameSite,
} from "../../../../../../core/templates/release_http.ts";
import { rollbackAddress } from "../../../../../../core/templates/releases.ts";
import type { AppEnv } from "../../../../../../core/web/env.ts";

export const handler = {
  async POST(c: Context<AppEnv>) {
    requireSameSite(c);
    const ctx = await templateContext(c, ["site:deploy"]);
    const body = await closedBody(c, observedBody);
    const done = await rollbackAddress(ctx, body.observed_active_number);
    if (!done.ok) refuseRelease(done);
    return c.json({ data: done.history });
  },
};
