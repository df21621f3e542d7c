// POST /api/managed-templates/candidates/{versionId}/accept (site:deploy): body
// `{ observed_acceptance }`, the acceptance number the page was loaded with (0 before any).
// Accepting deploys nothing (spec 3 part 4.8 rule 3).
import type { Context } from "hono";
import { z } from "zod";
import { acceptCandidate } from "../../../../../core/templates/accept.ts";
import {
  refuseTemplate,
  templateContext,
} from "../../../../../core/templates/http.ts";
import type { AppEnv } from "../../../../../core/web/env.ts";
import { refuse } from "../../../../../core/web/errors.ts";
import { readJsonBody } from "../../../../../core/web/json_body.ts";

const body = z.strictObject({
  observed_acceptance: z.number().int().min(0),
});

export const handler = {
  async POST(c: Context<AppEnv>) {
    const ctx = await templateContext(c, ["site:deploy"]);
    const parsed = body.safeParse(await readJsonBody(c.req.raw));
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      return refuse(
        400,
        "invalid_request",
        `Invalid body.${issue.path.join(".")}: ${issue.message}`,
      );
    }
    const accepted = await acceptCandidate(ctx, {
      candidateId: c.req.param("versionId") ?? "",
      observed: parsed.data.observed_acceptance,
    });
    if (!accepted.ok) refuseTemplate(accepted);
    return c.json({
      data: { acceptance: accepted.sequence, sections: accepted.sections },
    });
  },
};
