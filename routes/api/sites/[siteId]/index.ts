// PATCH /api/sites/{siteId} (site:settings): body `{ domain }`. While the managed renderer serves
// or keeps a host for the site the answer is `409 managed_address_change_required`: its address
// moves through the address steps instead (DLV-012).
import type { Context } from "hono";
import { z } from "zod";
import { decide } from "../../../../core/access/decide.ts";
import { adminContext } from "../../../../core/admin/context.ts";
import {
  closedBody,
  requireSameSite,
} from "../../../../core/templates/release_http.ts";
import { changeSiteDomain } from "../../../../core/templates/site_domain.ts";
import type { AppEnv } from "../../../../core/web/env.ts";
import { refuse } from "../../../../core/web/errors.ts";

const body = z.strictObject({ domain: z.string().min(1).max(253) });

export const handler = {
  async PATCH(c: Context<AppEnv>) {
    requireSameSite(c);
    const ctx = await adminContext(c);
    if (!decide(ctx.authority, { action: "site:settings" }).ok) {
      refuse(403, "missing_permission", "This needs site:settings", {
        missing: ["site:settings"],
      });
    }
    const { domain } = await closedBody(c, body);
    const changed = await changeSiteDomain({
      db: ctx.services.db,
      clock: ctx.services.clock,
      siteId: ctx.site.id,
      userId: ctx.user.id,
    }, domain);
    if (!changed.ok) {
      if (changed.code === "managed_address_change_required") {
        refuse(
          409,
          changed.code,
          "The managed renderer serves this site: change its address under Site delivery",
          { hosts: changed.hosts },
        );
      }
      if (changed.code === "domain_taken") {
        refuse(409, changed.code, "Another site has this domain");
      }
      refuse(400, changed.code, "Expected a domain such as www.example.com");
    }
    return c.json({ data: { id: ctx.site.id, domain: changed.domain } });
  },
};
