// POST /api/managed-templates/builtin/use (site:deploy): "Use built-in template". Body
// `{ observed_acceptance }` as for accepting a candidate. Accepts the released built-in by copying
// its files byte for byte, then prepares and activates a release of it when delivery is set up;
// otherwise it stops after acceptance and names what is missing (spec 3 part 4.8 rule 4).
import type { Context } from "hono";
import { z } from "zod";
import { useBuiltInTemplate } from "../../../../core/templates/builtin.ts";
import {
  refuseTemplate,
  templateContext,
} from "../../../../core/templates/http.ts";
import { closedBody } from "../../../../core/templates/release_http.ts";
import type { AppEnv } from "../../../../core/web/env.ts";

const body = z.strictObject({
  observed_acceptance: z.number().int().min(0),
});

export const handler = {
  async POST(c: Context<AppEnv>) {
    const ctx = await templateContext(c, ["site:deploy"]);
    const { observed_acceptance } = await closedBody(c, body);
    const used = await useBuiltInTemplate(ctx, {
      observed: observed_acceptance,
    });
    if (!used.ok) refuseTemplate(used);
    const { ok: _ok, release_refused, ...data } = used;
    const refused = release_refused
      ? (({ ok: _o, ...r }) => r)(release_refused)
      : null;
    return c.json({ data: { ...data, release_refused: refused } });
  },
};
