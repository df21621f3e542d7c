// POST /api/sites/{siteId}/managed-renderer/releases/{number}/switch-address (site:deploy): body
// `{ observed_active_number }`; binding, routes and release move in one batch (DLV-008).
import type { Context } from "hono";
import { templateContext } from "../../../../../../../core/templates/http.ts";
import {
  closedBody,
  observedBody,
  refuseRelease,
  requireSameSite,
} from "../../../../../../../core/templates/release_http.ts";
import { switchAddress } from "../../../../../../../core/templates/releases.ts";
import type { AppEnv } from "../../../../../../../core/web/env.ts";
import { refuse } from "../../../../../../../core/web/errors.ts";

export const handler = {
  async POST(c: Context<AppEnv>) {
    requireSameSite(c);
    const ctx = await templateContext(c, ["site:deploy"]);
    const number = Number(c.req.param("number"));
    if (!Number.isSafeInteger(number) || number < 1) {
      refuse(404, "release_not_found", "No such release");
    }
    const body = await closedBody(c, observedBody);
    const done = await switchAddress(ctx, number, body.observed_active_number);
    if (!done.ok) refuseRelease(done);
    return c.json({ data: done.history });
  },
};
