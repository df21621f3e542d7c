// POST /api/sites/{siteId}/managed-renderer/address/prove (site:deploy): body `{ host }`; checks
// the host and prepares a release pinned to it without moving traffic (DLV-007).
import type { Context } from "hono";
import { z } from "zod";
import { templateContext } from "../../../../../../core/templates/http.ts";
import {
  closedBody,
  refuseRelease,
  requireSameSite,
} from "../../../../../../core/templates/release_http.ts";
import { proveAddress } from "../../../../../../core/templates/releases.ts";
import type { AppEnv } from "../../../../../../core/web/env.ts";

const body = z.strictObject({ host: z.string().min(1).max(253) });

export const handler = {
  async POST(c: Context<AppEnv>) {
    requireSameSite(c);
    const ctx = await templateContext(c, ["site:deploy"]);
    const { host } = await closedBody(c, body);
    const done = await proveAddress(ctx, host);
    if (!done.ok) refuseRelease(done);
    return c.json({ data: done.release }, 201);
  },
};
